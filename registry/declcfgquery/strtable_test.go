package declcfgquery

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStrTable: strings come back by number during the build and after
// freeze; a package's repeated strings are held once, and after a reset
// (the next package) an equal string is added again under a new number.
func TestStrTable(t *testing.T) {
	st := newStrTable()
	a := st.add("etcd.v1")
	assert.Equal(t, a, st.add("etcd.v1"), "a repeated string gets the first number")
	assert.Equal(t, int32(0), st.add(""), `"" is number 0`)
	b := st.add("stable")
	assert.Equal(t, "etcd.v1", st.str(a), "str(%d) while building", a)
	st.reset()
	c := st.add("etcd.v1")
	assert.NotEqual(t, a, c, "after a reset the string kept its number: the table would hold every package's strings in one map")
	require.NoError(t, st.freeze())
	for n, want := range map[int32]string{0: "", a: "etcd.v1", b: "stable", c: "etcd.v1"} {
		assert.Equal(t, want, st.str(n), "str(%d)", n)
	}
	assert.Equal(t, 4, st.len())
}

// TestImageRepo: an image splits before its tag or digest, never inside
// a registry host's port, and repository plus the rest is the image.
func TestImageRepo(t *testing.T) {
	tests := []struct{ image, repo string }{
		{"example.com/org/etcd-bundle:v1.0.0", "example.com/org/etcd-bundle"},
		{"example.com/org/etcd-bundle@sha256:0123abcd", "example.com/org/etcd-bundle@sha256"},
		{"localhost:5000/etcd-bundle", ""},
		{"localhost:5000/etcd-bundle:v1", "localhost:5000/etcd-bundle"},
		{"etcd-bundle", ""},
		{"", ""},
	}
	for _, tt := range tests {
		repo := imageRepo(tt.image)
		assert.Equal(t, tt.repo, repo, "imageRepo(%q)", tt.image)
		ib := newIndexBuilder()
		rec := bundleRec{BundleRepo: ib.strNum(repo), BundleRef: ib.strNum(tt.image[len(repo):])}
		assert.Equal(t, tt.image, ib.q.bundlePath(&rec), "bundlePath")
	}
}
