package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// TestImageSparseEntries: a catalog image whose layer holds a file as an
// old GNU sparse entry (tar -S, all holes) is judged by its declared
// size: 50 GB goes over the per-file limit, and a small one is the all-NUL
// file it stands for, refused as on the local path. validate and unpack
// both refuse, naming the file; neither used to see the entry at all.
func TestImageSparseEntries(t *testing.T) {
	_, flags := imageTestEnv(t)
	reg := imagetest.New(t)
	catalog := imagetest.DirLayer(t, "../../fixtures/legacy/small-fbb/opm-migrate", "configs")
	labels := map[string]string{image.LabelConfigs: "/configs"}
	for _, tc := range []struct {
		name string
		size int64
		want string
	}{
		{"50 GB of holes", 50 << 30, "entry configs/foo/huge.json: 50.0 GiB would exceed the bytes per file limit of 4.0 GiB"},
		{"8 KiB of holes", 8 << 10, "NUL byte at byte offset 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref := reg.Push(t, "ns/sparse:v1", imagetest.Image(t, labels, nil, catalog, imagetest.GNUSparseLayer(t, "configs/foo/huge.json", tc.size)))
			for _, args := range [][]string{
				{"validate", ref},
				{"unpack", ref, filepath.Join(t.TempDir(), "out")},
			} {
				stdout, stderr, code := runCLI(t, append(args, flags...)...)
				assert.Equal(t, exitInvalid, code, "%v: %s%s", args, stdout, stderr)
				assert.Contains(t, stdout+stderr, tc.want, args)
				assert.Contains(t, stdout+stderr, "foo/huge.json", args)
			}
		})
	}
}
