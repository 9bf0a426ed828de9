package declcfg

import (
	"bytes"
	"os"
	"slices"
)

// WithPackages keeps only the blobs of the named packages (olm.package
// blobs by name, every other blob by its package). A file whose bytes
// cannot hold any of them is not decoded at all, which makes loading one
// package of a large catalog cheap; that is decided conservatively (see
// mayHold), so no blob of a named package is ever missed.
func WithPackages(names ...string) LoadOption {
	return func(o *loadOptions) {
		o.packages = map[string]bool{}
		for _, n := range names {
			o.packages[n] = true
		}
	}
}

// mayHold reports whether a blob stream file could hold a blob of one of
// packages: some package name appears in its bytes, or the file has an
// escape sequence (JSON \u, YAML \x \u \U) that could spell one.
func mayHold(data []byte, packages map[string]bool) bool {
	for name := range packages {
		if bytes.Contains(data, []byte(name)) {
			return true
		}
	}
	return bytes.Contains(data, []byte(`\u`)) || bytes.Contains(data, []byte(`\x`)) || bytes.Contains(data, []byte(`\U`))
}

// keepPackages drops the blobs of every package not in packages.
func (c *DeclarativeConfig) keepPackages(packages map[string]bool) {
	c.Packages = slices.DeleteFunc(c.Packages, func(p Package) bool { return !packages[p.Name] })
	c.Channels = slices.DeleteFunc(c.Channels, func(ch Channel) bool { return !packages[ch.Package] })
	c.Bundles = slices.DeleteFunc(c.Bundles, func(b Bundle) bool { return !packages[b.Package] })
	c.Deprecations = slices.DeleteFunc(c.Deprecations, func(d Deprecation) bool { return !packages[d.Package] })
	c.Others = slices.DeleteFunc(c.Others, func(m Meta) bool { return !packages[m.Package] })
}

// readAll reads a whole file into a buffer of its size.
func readAll(f *os.File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	buf := bytes.NewBuffer(make([]byte, 0, st.Size()+bytes.MinRead))
	_, err = buf.ReadFrom(f)
	return buf.Bytes(), err
}
