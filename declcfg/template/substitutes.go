package template

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
)

// substitutesTemplate is the olm.template.substitutes document.
type substitutesTemplate struct {
	Schema        string         `json:"schema"`
	Entries       entryLoader    `json:"entries"`
	Substitutions []Substitution `json:"substitutions"`
}

// Substitution makes the bundle rendered from Name (a bundle reference)
// take the place of the bundle named Base in every channel.
type Substitution struct {
	Name string `json:"name"`
	Base string `json:"base"`
}

// renderSubstitutes checks that the entries are a valid catalog, applies
// each substitution in order and checks the result again.
func renderSubstitutes(ctx context.Context, doc json.RawMessage, o options) (*declcfg.DeclarativeConfig, error) {
	st := substitutesTemplate{Entries: entryLoader{o: o}}
	if err := json.Unmarshal(doc, &st); err != nil {
		return nil, &Error{File: o.file, Err: fmt.Errorf("decode template: %w", err)}
	}
	cfg, err := st.Entries.loaded()
	if err != nil {
		return nil, err
	}
	if _, err := model.FromDeclcfg(cfg); err != nil {
		return nil, &Error{File: o.file, Field: "entries", Err: fmt.Errorf("entries are not valid FBC: %w", err)}
	}
	bases := map[string]int{}
	names := map[string]int{}
	for i, s := range st.Substitutions {
		if err := checkSubstitution(s, i, bases, names, st.Substitutions); err != nil {
			return nil, &Error{File: o.file, Entry: fmt.Sprintf("substitutions[%d]", i), Field: err.field, Err: err.err}
		}
	}
	for i, s := range st.Substitutions {
		if err := substitute(ctx, cfg, s, o); err != nil {
			return nil, &Error{File: o.file, Entry: fmt.Sprintf("substitutions[%d]", i), Err: fmt.Errorf("error processing substitution %q -> %q: %w", s.Base, s.Name, err)}
		}
	}
	return cfg, nil
}

type fieldError struct {
	field string
	err   error
}

// checkSubstitution checks one substitution against the earlier ones.
func checkSubstitution(s Substitution, i int, bases, names map[string]int, all []Substitution) *fieldError {
	switch {
	case s.Name == "":
		return &fieldError{"name", errors.New("substitution name cannot be empty")}
	case s.Base == "":
		return &fieldError{"base", errors.New("substitution base cannot be empty")}
	case s.Name == s.Base:
		return &fieldError{"name", errors.New("substitution name and base cannot be the same")}
	}
	if j, ok := bases[s.Base]; ok {
		return &fieldError{"base", fmt.Errorf("cannot reuse the same substitution base %q (substitutions[%d] has it)", s.Base, j)}
	}
	if j, ok := names[s.Name]; ok {
		return &fieldError{"name", fmt.Errorf("cannot reuse the same substitution %q for different bases (%q and %q)", s.Name, all[j].Base, s.Base)}
	}
	bases[s.Base], names[s.Name] = i, i
	return nil
}

// substitute renders the substitute, checks it is newer than the base and
// rewires every channel holding the base.
func substitute(ctx context.Context, cfg *declcfg.DeclarativeConfig, s Substitution, o options) error {
	bi := slices.IndexFunc(cfg.Bundles, func(b declcfg.Bundle) bool { return b.Name == s.Base })
	if bi < 0 {
		return fmt.Errorf("base bundle %q does not exist in catalog", s.Base)
	}
	sub, err := o.render(ctx, s.Name)
	if err != nil {
		return fmt.Errorf("failed to render bundle image reference %q: %w", s.Name, err)
	}
	sub.Objects = nil
	newer, err := newerThan(sub, &cfg.Bundles[bi])
	if err != nil {
		return err
	}
	if !newer {
		return fmt.Errorf("base bundle %q is not less than substitute bundle %q", s.Base, s.Name)
	}
	for ci := range cfg.Channels {
		rewire(&cfg.Channels[ci], s.Base, sub.Name)
	}
	cfg.Bundles = append(cfg.Bundles, *sub)
	if _, err := model.FromDeclcfg(cfg); err != nil {
		return fmt.Errorf("resulting config is not valid FBC: %w", err)
	}
	return nil
}

// rewire moves the base's edges to a new entry for the substitute (which
// also skips the base), points the entries that replaced the base at the
// substitute (skipping the base too) and the entries that skipped the base
// at the substitute.
func rewire(ch *declcfg.Channel, base, sub string) {
	var moved []int
	for j, e := range ch.Entries {
		if e.Name == base {
			moved = append(moved, j)
		}
	}
	for k := len(moved) - 1; k >= 0; k-- {
		e := &ch.Entries[moved[k]]
		ne := declcfg.ChannelEntry{Name: sub, Replaces: e.Replaces, Skips: append(slices.Clone(e.Skips), base), SkipRange: e.SkipRange}
		e.Replaces, e.Skips, e.SkipRange = "", nil, ""
		ch.Entries = append(ch.Entries, ne)
	}
	for j := 0; j < len(ch.Entries)-len(moved); j++ {
		e := &ch.Entries[j]
		switch {
		case e.Replaces == base:
			e.Replaces = sub
			e.Skips = append(e.Skips, base)
		case slices.Contains(e.Skips, base):
			e.Skips = slices.DeleteFunc(append(e.Skips, sub), func(n string) bool { return n == base })
		}
	}
}

// newerThan compares the version and release of two bundles: the release
// of the olm.package property, or when absent the version's build
// metadata taken as a release.
func newerThan(a, b *declcfg.Bundle) (bool, error) {
	va, ra, err := versionRelease(a)
	if err != nil {
		return false, err
	}
	vb, rb, err := versionRelease(b)
	if err != nil {
		return false, err
	}
	if c := va.Compare(vb); c != 0 {
		return c > 0, nil
	}
	return compareRelease(ra, rb) > 0, nil
}

func versionRelease(b *declcfg.Bundle) (semver.Version, []semver.PRVersion, error) {
	pv, err := packageProperty(b)
	if err != nil {
		return semver.Version{}, nil, err
	}
	v, err := semver.Parse(pv.Version)
	if err != nil {
		return v, nil, fmt.Errorf("bundle %q has invalid version %q: %w", b.Name, pv.Version, err)
	}
	rel := pv.Release
	if rel == "" {
		rel = strings.Join(v.Build, ".")
	}
	var out []semver.PRVersion
	if rel != "" {
		for _, part := range strings.Split(rel, ".") {
			p, err := semver.NewPRVersion(part)
			if err != nil {
				return v, nil, fmt.Errorf("bundle %q has invalid release %q: %w", b.Name, rel, err)
			}
			out = append(out, p)
		}
	}
	return v, out, nil
}

// compareRelease orders releases: none is lowest, then identifier by
// identifier as semver pre-release identifiers compare.
func compareRelease(a, b []semver.PRVersion) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := a[i].Compare(b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}
