package jobtool

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSanitizeKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"etcd.clusterserviceversion.yaml", "etcd.clusterserviceversion.yaml"},
		{"a+b.yaml", "a-b.yaml"},
		{"image:tag.yaml", "image-tag.yaml"},
		{"with space.json", "with-space.json"},
		{"é.yaml", "--.yaml"},
		{".", "-"},
		{"..", "--"},
		{"", "-"},
	} {
		assert.Equal(t, tc.want, SanitizeKey(tc.in), "SanitizeKey(%q)", tc.in)
	}
	got := SanitizeKey(strings.Repeat("x", 300) + ".yaml")
	assert.Len(t, got, maxKeyLength, "long name")
	assert.True(t, strings.HasSuffix(got, ".yaml"), "long name %q keeps its .yaml", got)
}

func TestKeyAssignerAvoidsCollisions(t *testing.T) {
	k := newKeyAssigner()
	var got []string
	for _, name := range []string{"a+b.yaml", "a:b.yaml", "a-b.yaml", "dependencies.yaml", "dependencies.yaml"} {
		got = append(got, k.assign(name))
	}
	want := []string{"a-b.yaml", "a-b-2.yaml", "a-b-3.yaml", "dependencies.yaml", "dependencies-2.yaml"}
	assert.Equal(t, want, got)
}
