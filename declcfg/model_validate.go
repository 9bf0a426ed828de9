package declcfg

import (
	"encoding/json"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/blang/semver/v4"
)

// Validate checks the model's graph rules: every package has channels and
// a default channel among them and no two bundles with the same version;
// every channel has bundles, exactly one head, no cycle in its replaces
// chain and no stranded bundle; every bundle has a name, exactly one
// olm.package property, an image or objects, no empty skips and a
// parseable skipRange. All problems are returned as a *ValidationError.
func (m *Model) Validate() error {
	return problems(m.validate(true)).err()
}

// validate runs the model rules. full adds the rules ConvertToModel
// already checks on the blobs (bundle rules, default channel presence), so
// that a model built from another source is checked completely.
func (m *Model) validate(full bool) problems {
	var ps problems
	for _, pname := range sortedKeys(m.Packages) {
		mp := m.Packages[pname]
		if mp.Name == "" {
			ps.add(mp.Origin, SchemaPackage, "", "", "package name must be set")
		}
		if len(mp.Channels) == 0 {
			ps.add(mp.Origin, SchemaPackage, pname, "", "package must have at least one channel")
		}
		if full {
			switch {
			case mp.DefaultChannel == nil:
				ps.add(mp.Origin, SchemaPackage, pname, "", "default channel must be set")
			case mp.Channels[mp.DefaultChannel.Name] != mp.DefaultChannel:
				ps.add(mp.Origin, SchemaPackage, pname, "", "default channel %q not found in the package's channels", mp.DefaultChannel.Name)
			}
		}

		// One entry per bundle name, from the first channel (by name) that
		// holds it, for the per-bundle rules.
		unique := map[string]*ModelBundle{}
		for _, cname := range sortedKeys(mp.Channels) {
			mc := mp.Channels[cname]
			if mc.Package != mp {
				ps.add(mc.Origin, SchemaChannel, pname, cname, "channel is not linked to its package")
			}
			ps = append(ps, validateChannel(mc, pname, cname)...)
			for _, bname := range sortedKeys(mc.Bundles) {
				if _, ok := unique[bname]; !ok {
					unique[bname] = mc.Bundles[bname]
				}
			}
		}

		byVersion := map[string][]string{}
		for _, bname := range sortedKeys(unique) {
			b := unique[bname]
			if full {
				if b.Name == "" {
					ps.add(b.Origin, SchemaBundle, pname, "", "bundle name must be set")
				}
				checkBundleRules(&ps, b.Origin, pname, bname, b.Image, b.Properties, len(b.Objects))
			}
			if b.Version.Equals(semver.Version{}) && !hasZeroVersion(b) {
				continue // unparsed version: reported elsewhere
			}
			v := b.Version.String()
			if r := releaseOf(b.Properties); r != "" {
				v += " release " + r
			}
			byVersion[v] = append(byVersion[v], bname)
		}
		for _, v := range sortedKeys(byVersion) {
			if names := byVersion[v]; len(names) > 1 {
				ps.add(mp.Origin, SchemaPackage, pname, "", "duplicate versions found in bundles: %s: %s", v, strings.Join(names, ", "))
			}
		}
	}
	return ps
}

// hasZeroVersion says whether a bundle's olm.package property really is
// version 0.0.0 (rather than missing or unparseable).
func hasZeroVersion(b *ModelBundle) bool {
	for _, p := range b.Properties {
		if p.Type != PropertyPackage {
			continue
		}
		var v PackageValue
		if json.Unmarshal(p.Value, &v) == nil {
			if ver, err := semver.Parse(v.Version); err == nil && ver.Equals(semver.Version{}) {
				return true
			}
		}
	}
	return false
}

// validateChannel checks one channel's graph and edges.
func validateChannel(mc *ModelChannel, pname, cname string) problems {
	var ps problems
	add := func(format string, args ...any) {
		ps.add(mc.Origin, SchemaChannel, pname, cname, format, args...)
	}
	if cname == "" {
		add("channel name must be set")
	}
	if len(mc.Bundles) == 0 {
		add("channel must contain at least one bundle")
		return ps
	}
	for _, n := range sortedKeys(mc.Bundles) {
		if b := mc.Bundles[n]; b.Channel != nil && b.Channel != mc {
			add("bundle %q is not linked to its channel", n)
		}
	}
	for _, f := range AnalyzeChannel(mc.graphEntries()).Findings {
		if !f.Warning {
			add("%s", f.Message)
		}
	}
	return ps
}

// parallelFor calls fn(i) for every i in [0, n) on GOMAXPROCS goroutines.
func parallelFor(n int, fn func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
