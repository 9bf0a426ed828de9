package legacy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/blang/semver/v4"
)

// buildBundle assembles one Bundle from its row, the tables read at Open
// and, where the level lacks data, the CSV: one step per group of
// columns and tables, each taking the stored data when the level has it.
func (db *DB) buildBundle(ctx context.Context, t *tables, pkg, name string, raw *rawBundle, head bool, edges *bundleEdges, rep *pkgReport) (Bundle, error) {
	key := t.rows[name]
	bb := &bundleBuild{ctx: ctx, db: db, t: t, pkg: pkg, name: name, key: key, raw: raw, head: head, edges: edges, rep: rep,
		b: Bundle{Name: name, BundlePath: key.bundlePath.String}}
	for _, step := range []func() error{
		bb.manifests, bb.versionAndSkipRange, bb.edgesAndSubstitutes, bb.apis,
		bb.properties, bb.dependencies, bb.relatedImages,
	} {
		if err := step(); err != nil {
			return bb.b, err
		}
	}
	b := &bb.b
	b.Deprecated = t.deprecated[name] || hasType(b.Properties, "olm.deprecated")
	return bb.b, nil
}

// bundleBuild is one bundle being assembled by buildBundle.
type bundleBuild struct {
	ctx   context.Context
	db    *DB
	t     *tables // the rows of the bundle-keyed tables
	pkg   string
	name  string
	key   bundleKey
	raw   *rawBundle
	head  bool
	edges *bundleEdges
	rep   *pkgReport
	b     Bundle

	// csv is the parsed CSV once getCSV ran (csvTried), nil if none.
	csv      *csvDoc
	csvTried bool
	// lostKeyed: the row lost its api, property and dependency rows to
	// migration 5's NULL version (see versionAndSkipRange).
	lostKeyed bool
}

// versionAndSkipRange fills version and skipRange: stored columns when
// present and non-NULL, else the CSV; the version, last, from the
// olm.package property or the bundle name. Migration 5's damage leaves
// both columns NULL: one RepairNullVersion line says what was taken from
// where.
func (bb *bundleBuild) versionAndSkipRange() error {
	b := &bb.b
	db, s, key, name, raw, rep := bb.db, bb.db.sch, bb.key, bb.name, bb.raw, bb.rep
	var nullCols, taken []string
	if key.version.Valid && key.version.String != "" {
		b.Version = key.version.String
	} else {
		c, err := bb.getCSV()
		if err != nil {
			return err
		}
		src := ""
		switch {
		case c != nil && c.version != "":
			b.Version, src = c.version, "the CSV's spec.version"
		case packageVersion(bb.t.props[name]) != "":
			b.Version, src = packageVersion(bb.t.props[name]), "its olm.package property"
		case versionFromName(name) != "":
			b.Version, src = versionFromName(name), "the bundle name"
		}
		switch {
		case src == "":
			rep.add(RepairNullVersion, "operatorbundle", name,
				"no version: the version column is missing or NULL and neither a CSV, an olm.package property nor the bundle name holds one; left empty")
		case s.col("operatorbundle", "version"):
			nullCols = append(nullCols, "version")
			taken = append(taken, fmt.Sprintf("version %s from %s", b.Version, src))
		case src == "the CSV's spec.version":
			rep.derive("version")
		default:
			rep.add(RepairNullVersion, "operatorbundle", name, fmt.Sprintf(
				"schema level %d has no version column and the bundle has no CSV; version %s taken from %s", db.level, b.Version, src))
		}
	}
	if raw.skipRange.Valid {
		b.SkipRange = raw.skipRange.String
	} else {
		c, err := bb.getCSV()
		if err != nil {
			return err
		}
		if c != nil {
			b.SkipRange = c.annotation("olm.skipRange")
		}
		if s.col("operatorbundle", "skiprange") {
			nullCols = append(nullCols, "skiprange")
			if c != nil {
				taken = append(taken, fmt.Sprintf("skipRange %q from the CSV's olm.skipRange annotation", b.SkipRange))
			} else {
				taken = append(taken, "skipRange left empty (no CSV)")
			}
		} else if c != nil {
			rep.derive("skipRange")
		}
	}
	// Migration 6 copied api rows only for bundles with a version, and
	// migrations 8 and 9 backfilled dependencies and properties from those
	// rows: a real row left with a NULL version by migration 5 lost all of
	// them. They are derived from the CSV where missing.
	bb.lostKeyed = s.col("operatorbundle", "version") && !(key.version.Valid && key.version.String != "") &&
		s.has("api_provider") && !db.apiKeyedByEntry()
	if bb.lostKeyed && len(nullCols) > 0 {
		taken = append(taken, "missing api_provider/api_requirer, olm.gvk properties and dependencies rows (migrations 6-9 skipped NULL-version rows) derived from the manifests")
	}
	if len(nullCols) > 0 {
		verb := "is"
		if len(nullCols) > 1 {
			verb = "are"
		}
		rep.add(RepairNullVersion, "operatorbundle", name, fmt.Sprintf(
			"%s %s NULL or empty on a real row (as migration 5's backfill left them: it inserted junk rows instead of updating); %s",
			strings.Join(nullCols, " and "), verb, strings.Join(taken, ", ")))
	}
	return nil
}

// edgesAndSubstitutes fills replaces, skips and substitutesFor.
func (bb *bundleBuild) edgesAndSubstitutes() error {
	b := &bb.b
	s, raw, rep := bb.db.sch, bb.raw, bb.rep
	if raw.replaces.Valid && raw.skips.Valid {
		b.Replaces = raw.replaces.String
		b.Skips = splitSkips(raw.skips.String)
	} else {
		c, err := bb.getCSV()
		if err != nil {
			return err
		}
		switch {
		case c != nil:
			b.Replaces, b.Skips = c.replaces, dedupStrings(c.skips)
			rep.derive("replaces/skips from the CSV")
		case bb.edges != nil:
			b.Replaces, b.Skips = bb.edges.replaces, bb.edges.skips
			rep.derive("replaces/skips from channel_entry")
		}
	}
	if raw.substitutes.Valid {
		b.SubstitutesFor = raw.substitutes.String
	} else if !s.col("operatorbundle", "substitutesfor") {
		c, err := bb.getCSV()
		if err != nil {
			return err
		}
		if c != nil {
			b.SubstitutesFor = c.annotation("olm.substitutesFor")
		}
	}
	return nil
}

// apis fills the provided and required APIs.
func (bb *bundleBuild) apis() error {
	b := &bb.b
	db, s, name, rep := bb.db, bb.db.sch, bb.name, bb.rep
	// APIs. Below level 6 the api tables are keyed by channel_entry_id and
	// opm wrote rows only for the entries of the replaces walk, so bundles
	// that are only skipped (or stranded) have none; below level 9 the
	// properties are derived from these APIs. In those cases a bundle with
	// no rows gets its APIs from the CRDs in its objects and its CSV.
	// Slices read at Open are copied: callers may sort or edit what they get.
	b.ProvidedAPIs = append([]API(nil), bb.t.provided[name]...)
	if len(b.ProvidedAPIs) == 0 && (!s.has("api_provider") || db.apiKeyedByEntry() || !s.has("properties") || bb.lostKeyed) {
		c, err := bb.getCSV()
		if err != nil {
			return err
		}
		if c != nil || b.Objects != nil {
			if b.ProvidedAPIs = c.providedAPIs(b.Objects); len(b.ProvidedAPIs) > 0 {
				rep.derive("provided APIs")
			}
		}
	}
	b.RequiredAPIs = append([]API(nil), bb.t.required[name]...)
	if len(b.RequiredAPIs) == 0 && (!s.has("api_requirer") || db.apiKeyedByEntry() || !s.has("dependencies") || bb.lostKeyed) {
		c, err := bb.getCSV()
		if err != nil {
			return err
		}
		if c != nil {
			if b.RequiredAPIs = c.requiredAPIs(); len(b.RequiredAPIs) > 0 {
				rep.derive("required APIs")
			}
		}
	}
	return nil
}

// properties fills the properties.
func (bb *bundleBuild) properties() error {
	b := &bb.b
	s, key, name, rep := bb.db.sch, bb.key, bb.name, bb.rep
	if s.has("properties") {
		rows := bb.t.props[name]
		nullPath := false
		seen := map[Property]bool{}
		dups := map[string]int{}
		for _, r := range rows {
			if r.nullPath && key.bundlePath.Valid && key.bundlePath.String == "" {
				nullPath = true
			}
			if seen[r.Property] {
				if r.Type != "olm.package" {
					dups[r.Type]++
				}
				continue
			}
			seen[r.Property] = true
			b.Properties = append(b.Properties, r.Property)
		}
		if nullPath {
			rep.nullPath = append(rep.nullPath, name)
		}
		for t, n := range dups {
			if rep.dups == nil {
				rep.dups = map[string]int{}
			}
			rep.dups[t] += n
		}
		if bb.lostKeyed && !hasType(b.Properties, "olm.gvk") {
			for _, a := range b.ProvidedAPIs {
				b.Properties = append(b.Properties, Property{Type: "olm.gvk", Value: gvkValue(a)})
			}
			c, err := bb.getCSV()
			if err != nil {
				return err
			}
			if c != nil {
				extra, err := c.annotationProperties()
				if err != nil {
					return err
				}
				b.Properties = dedupProperties(append(b.Properties, extra...))
			}
		}
		if !hasType(b.Properties, "olm.package") {
			b.Properties = append([]Property{{Type: "olm.package", Value: packageValue(bb.pkg, b.Version)}}, b.Properties...)
			rep.derive("olm.package property (none stored)")
		}
	} else {
		b.Properties = append(b.Properties, Property{Type: "olm.package", Value: packageValue(bb.pkg, b.Version)})
		for _, a := range b.ProvidedAPIs {
			b.Properties = append(b.Properties, Property{Type: "olm.gvk", Value: gvkValue(a)})
		}
		c, err := bb.getCSV()
		if err != nil {
			return err
		}
		if c != nil {
			extra, err := c.annotationProperties()
			if err != nil {
				return err
			}
			b.Properties = append(b.Properties, extra...)
		}
		b.Properties = dedupProperties(b.Properties)
		rep.derive("properties")
	}
	return nil
}

// dependencies fills the dependencies.
func (bb *bundleBuild) dependencies() error {
	b := &bb.b
	db, s, name, rep := bb.db, bb.db.sch, bb.name, bb.rep
	if s.has("dependencies") {
		rows := bb.t.deps[name]
		if db.depsCorrupt {
			var err error
			if rows, err = db.repairDependencies(name, rows, bb.t.required[name], bb.getCSV, rep); err != nil {
				return err
			}
		}
		seen := map[Dependency]bool{}
		typeKey := false
		for _, r := range rows {
			if r.Type == "olm.gvk" && strings.Contains(r.Value, `"type"`) {
				// Migration 8 wrote a "type" key inside the value; migration 9
				// removed it. Levels in between still hold it.
				if c := canonGVK(r.Value); c != "" {
					r.Value, typeKey = c, true
				}
			}
			if seen[r] {
				if r.Type != "olm.package" {
					if rep.dups == nil {
						rep.dups = map[string]int{}
					}
					rep.dups["dependency "+r.Type]++
				}
				continue
			}
			seen[r] = true
			b.Dependencies = append(b.Dependencies, r)
		}
		if bb.lostKeyed && len(b.Dependencies) == 0 {
			for _, a := range b.RequiredAPIs {
				b.Dependencies = append(b.Dependencies, Dependency{Type: "olm.gvk", Value: gvkValue(a)})
			}
		}
		if typeKey {
			rep.derive(`olm.gvk dependency values without migration 8's "type" key`)
		}
	} else {
		for _, a := range b.RequiredAPIs {
			b.Dependencies = append(b.Dependencies, Dependency{Type: "olm.gvk", Value: gvkValue(a)})
		}
		rep.derive("dependencies")
	}
	return nil
}

// relatedImages fills the related images.
func (bb *bundleBuild) relatedImages() error {
	b := &bb.b
	s, name, rep := bb.db.sch, bb.name, bb.rep
	if s.has("related_image") {
		b.RelatedImages = append([]string(nil), bb.t.related[name]...)
	} else {
		c, err := bb.getCSV()
		if err != nil {
			return err
		}
		if c != nil {
			b.RelatedImages = c.images()
		}
		rep.derive("related images")
	}
	return nil
}

func hasType(ps []Property, t string) bool {
	for _, p := range ps {
		if p.Type == t {
			return true
		}
	}
	return false
}

func dedupProperties(in []Property) []Property {
	seen := map[Property]bool{}
	var out []Property
	for _, p := range in {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// versionFromName takes a semver version from a bundle name such as
// "foo.v0.1.0" or "prometheusoperator.0.14.0"; "" when there is none.
func versionFromName(name string) string {
	for i := 1; i < len(name); i++ {
		if name[i-1] != '.' && name[i-1] != '-' {
			continue
		}
		rest := name[i:]
		if rest[0] == 'v' {
			rest = rest[1:]
		}
		if v, err := semver.Parse(rest); err == nil {
			return v.String()
		}
	}
	return ""
}

// packageVersion is the version of the first olm.package property row.
func packageVersion(rows []propRow) string {
	for _, r := range rows {
		if r.Type != "olm.package" {
			continue
		}
		var v struct {
			Version string `json:"version"`
		}
		if json.Unmarshal([]byte(r.Value), &v) == nil && v.Version != "" {
			return v.Version
		}
	}
	return ""
}
