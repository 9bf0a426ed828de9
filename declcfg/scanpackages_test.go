package declcfg

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScanPackagesQuickPathAgrees: the quick scan (whole file, top-level
// keys only) lists the packages the framed scan lists, and whatever it
// cannot read goes to the framed scan, whose error is LoadDir's.
func TestScanPackagesQuickPathAgrees(t *testing.T) {
	pkg := `{"schema":"olm.package","name":"p","defaultChannel":"s"}`
	bundle := `{"schema":"olm.bundle","package":"q","name":"q.v1","properties":[{"type":"olm.package","value":{"packageName":"q","version":"1.0.0"}}]}`
	for name, tc := range map[string]struct {
		content string
		quick   bool
		err     string
	}{
		"plain JSON":          {pkg + "\n" + bundle + "\n", true, ""},
		"escaped key":         {`{"schema":"olm.channel","p\u0061ckage":"p","name":"s"}`, true, ""},
		"byte order mark":     {"\xef\xbb\xbf" + pkg, false, ""},
		"YAML":                {"schema: olm.package\nname: p\n", false, ""},
		"top-level array":     {pkg + "[1]", false, "blob #1: not a JSON object"},
		"folded duplicate":    {`{"schema":"olm.package","Name":"a","name":"b"}`, false, `duplicate keys "Name" and "name"`},
		"unterminated object": {pkg + `{"schema":"olm.package"`, false, "blob #1"},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "c.json"), []byte(tc.content), 0o644))
			r, err := os.OpenRoot(dir)
			require.NoError(t, err)
			defer r.Close()
			f, err := r.Open("c.json")
			require.NoError(t, err)
			quick, ok := quickScanPackages(f)
			f.Close()
			require.Equal(t, tc.quick, ok, "quick path taken")
			if tc.err != "" {
				_, err := scanFilePackages(context.Background(), r, []string{"c.json"}, newLoadOptions(nil))
				require.ErrorContains(t, err, tc.err)
				_, lerr := LoadDir(context.Background(), dir)
				require.EqualError(t, err, lerr.Error(), "the scan's error is LoadDir's")
				return
			}
			got, err := scanPackages(r, "c.json")
			require.NoError(t, err)
			cfg, err := LoadDir(context.Background(), dir)
			require.NoError(t, err)
			require.ElementsMatch(t, packageNames(cfg), got)
			if ok {
				require.Equal(t, got, quick)
			}
		})
	}
}
