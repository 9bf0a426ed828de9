package declcfgquery

import "testing"

// TestStrTable: strings come back by number during the build and after
// freeze; a package's repeated strings are held once, and after a reset
// (the next package) an equal string is added again under a new number.
func TestStrTable(t *testing.T) {
	st := newStrTable()
	a := st.add("etcd.v1")
	if again := st.add("etcd.v1"); again != a {
		t.Errorf("a repeated string got number %d, want %d (the first)", again, a)
	}
	if n := st.add(""); n != 0 {
		t.Errorf(`"" got number %d, want 0`, n)
	}
	b := st.add("stable")
	if got := st.str(a); got != "etcd.v1" {
		t.Errorf("str(%d) while building = %q, want %q", a, got, "etcd.v1")
	}
	st.reset()
	c := st.add("etcd.v1")
	if c == a {
		t.Errorf("after a reset the string kept number %d: the table would hold every package's strings in one map", a)
	}
	if err := st.freeze(); err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int32]string{0: "", a: "etcd.v1", b: "stable", c: "etcd.v1"} {
		if got := st.str(n); got != want {
			t.Errorf("str(%d) = %q, want %q", n, got, want)
		}
	}
	if got := st.len(); got != 4 {
		t.Errorf("len = %d, want 4", got)
	}
}

// TestImageRepo: an image splits before its tag or digest, never inside
// a registry host's port, and repository plus the rest is the image.
func TestImageRepo(t *testing.T) {
	tests := []struct{ image, repo string }{
		{"quay.io/org/etcd-bundle:v1.0.0", "quay.io/org/etcd-bundle"},
		{"quay.io/org/etcd-bundle@sha256:0123abcd", "quay.io/org/etcd-bundle@sha256"},
		{"localhost:5000/etcd-bundle", ""},
		{"localhost:5000/etcd-bundle:v1", "localhost:5000/etcd-bundle"},
		{"etcd-bundle", ""},
		{"", ""},
	}
	for _, tt := range tests {
		repo := imageRepo(tt.image)
		if repo != tt.repo {
			t.Errorf("imageRepo(%q) = %q, want %q", tt.image, repo, tt.repo)
		}
		ib := newIndexBuilder()
		rec := bundleRec{BundleRepo: ib.strNum(repo), BundleRef: ib.strNum(tt.image[len(repo):])}
		if got := ib.q.bundlePath(&rec); got != tt.image {
			t.Errorf("bundlePath of %q = %q", tt.image, got)
		}
	}
}
