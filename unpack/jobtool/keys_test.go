package jobtool

import "testing"

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
		if got := SanitizeKey(tc.in); got != tc.want {
			t.Errorf("SanitizeKey(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	long := make([]byte, 300)
	for i := range long {
		long[i] = 'x'
	}
	if got := SanitizeKey(string(long) + ".yaml"); len(got) != maxKeyLength || got[len(got)-5:] != ".yaml" {
		t.Errorf("long name: got %d bytes ending %q", len(got), got[len(got)-5:])
	}
}

func TestKeyAssignerAvoidsCollisions(t *testing.T) {
	k := newKeyAssigner()
	var got []string
	for _, name := range []string{"a+b.yaml", "a:b.yaml", "a-b.yaml", "dependencies.yaml", "dependencies.yaml"} {
		got = append(got, k.assign(name))
	}
	want := []string{"a-b.yaml", "a-b-2.yaml", "a-b-3.yaml", "dependencies.yaml", "dependencies-2.yaml"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("key %d = %q, want %q (all: %v)", i, got[i], want[i], got)
		}
	}
}
