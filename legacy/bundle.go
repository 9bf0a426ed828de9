package legacy

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// buildBundle assembles one Bundle from its row, the tables read at Open
// and, where the level lacks data, the CSV.
func (db *DB) buildBundle(ctx context.Context, pkg, name string, raw *rawBundle, head bool, edges *bundleEdges, rep *pkgReport) (Bundle, error) {
	s := db.sch
	key := db.rows[name]
	b := Bundle{Name: name, BundlePath: key.bundlePath.String}

	var err error
	if raw.bundle != nil {
		if b.Objects, err = SplitObjects(raw.bundle); err != nil {
			return b, fmt.Errorf("bundle column: %w", err)
		}
	}
	b.CSV = raw.csv

	// The CSV is parsed only when something has to be derived from it.
	var csv *csvDoc
	csvTried := false
	getCSV := func() (*csvDoc, error) {
		if csvTried {
			return csv, nil
		}
		csvTried = true
		data := raw.csv
		if data == nil && b.Objects != nil {
			data = findCSV(b.Objects)
		}
		if data == nil && !raw.csvNull {
			// Not selected (SkipManifests): fetch it for this bundle only.
			doc, err := db.fetchCSV(ctx, name)
			csv = doc
			return csv, err
		}
		if data == nil {
			return nil, nil
		}
		doc, err := parseCSV(data)
		if err != nil {
			return nil, fmt.Errorf("csv: %w", err)
		}
		csv = doc
		return csv, nil
	}

	if raw.csvNull && raw.bundleNull {
		what := "a non-head bundle"
		if head {
			what = "a channel head"
		}
		rep.add(RepairMissingManifests, "operatorbundle", name, fmt.Sprintf(
			"csv and bundle columns are NULL on %s (cleared by opm for image-built indexes); kept with its image, properties and related images, without manifests", what))
	}

	// version
	switch {
	case key.version.Valid && key.version.String != "":
		b.Version = key.version.String
	default:
		c, err := getCSV()
		if err != nil {
			return b, err
		}
		src := ""
		if c != nil && c.Spec.Version != "" {
			b.Version, src = c.Spec.Version, "the CSV's spec.version"
		} else if v := packageVersion(db.props[name]); v != "" {
			b.Version, src = v, "its olm.package property"
		}
		if s.col("operatorbundle", "version") {
			detail := "version is NULL"
			if src != "" {
				detail += fmt.Sprintf("; taken from %s (%s)", src, b.Version)
			} else {
				detail += " and no CSV or olm.package property holds one; left empty"
			}
			rep.add(RepairNullVersion, "operatorbundle", name, detail)
		} else {
			rep.derive("version")
		}
	}

	// skipRange, replaces, skips, substitutesFor: stored columns when present
	// and non-NULL, else the CSV, else (replaces/skips) channel_entry.
	if raw.skipRange.Valid {
		b.SkipRange = raw.skipRange.String
	} else {
		c, err := getCSV()
		if err != nil {
			return b, err
		}
		if c != nil {
			b.SkipRange = c.annotation("olm.skipRange")
		}
		rep.derive("skipRange")
	}
	if raw.replaces.Valid && raw.skips.Valid {
		b.Replaces = raw.replaces.String
		b.Skips = splitSkips(raw.skips.String)
	} else {
		c, err := getCSV()
		if err != nil {
			return b, err
		}
		switch {
		case c != nil:
			b.Replaces, b.Skips = c.Spec.Replaces, dedupStrings(c.Spec.Skips)
			rep.derive("replaces/skips from the CSV")
		case edges != nil:
			b.Replaces, b.Skips = edges.replaces, edges.skips
			rep.derive("replaces/skips from channel_entry")
		}
	}
	if raw.substitutes.Valid {
		b.SubstitutesFor = raw.substitutes.String
	} else if !s.col("operatorbundle", "substitutesfor") {
		c, err := getCSV()
		if err != nil {
			return b, err
		}
		if c != nil {
			b.SubstitutesFor = c.annotation("olm.substitutesFor")
		}
	}

	// APIs. Below level 6 the api tables are keyed by channel_entry_id and
	// opm wrote rows only for the entries of the replaces walk, so bundles
	// that are only skipped (or stranded) have none; below level 9 the
	// properties are derived from these APIs. In those cases a bundle with
	// no rows gets its APIs from the CRDs in its objects and its CSV.
	b.ProvidedAPIs = db.provided[name]
	if len(b.ProvidedAPIs) == 0 && (!s.has("api_provider") || db.apiKeyedByEntry() || !s.has("properties")) {
		c, err := getCSV()
		if err != nil {
			return b, err
		}
		if c != nil || b.Objects != nil {
			if b.ProvidedAPIs = c.providedAPIs(b.Objects); len(b.ProvidedAPIs) > 0 {
				rep.derive("provided APIs")
			}
		}
	}
	b.RequiredAPIs = db.required[name]
	if len(b.RequiredAPIs) == 0 && (!s.has("api_requirer") || db.apiKeyedByEntry() || !s.has("dependencies")) {
		c, err := getCSV()
		if err != nil {
			return b, err
		}
		if c != nil {
			if b.RequiredAPIs = c.requiredAPIs(); len(b.RequiredAPIs) > 0 {
				rep.derive("required APIs")
			}
		}
	}

	// Properties.
	if s.has("properties") {
		rows := db.props[name]
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
		if !hasType(b.Properties, "olm.package") {
			b.Properties = append([]Property{{Type: "olm.package", Value: packageValue(pkg, b.Version)}}, b.Properties...)
			rep.derive("olm.package property (none stored)")
		}
	} else {
		b.Properties = append(b.Properties, Property{Type: "olm.package", Value: packageValue(pkg, b.Version)})
		for _, a := range b.ProvidedAPIs {
			b.Properties = append(b.Properties, Property{Type: "olm.gvk", Value: gvkValue(a)})
		}
		c, err := getCSV()
		if err != nil {
			return b, err
		}
		if c != nil {
			extra, err := c.annotationProperties()
			if err != nil {
				return b, err
			}
			b.Properties = append(b.Properties, extra...)
		}
		b.Properties = dedupProperties(b.Properties)
		rep.derive("properties")
	}

	// Dependencies.
	if s.has("dependencies") {
		seen := map[Dependency]bool{}
		typeKey := false
		for _, r := range db.deps[name] {
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
		if typeKey {
			rep.derive(`olm.gvk dependency values without migration 8's "type" key`)
		}
		if db.depsCorrupt {
			if err := db.repairDependencies(&b, getCSV, rep); err != nil {
				return b, err
			}
		}
	} else {
		for _, a := range b.RequiredAPIs {
			b.Dependencies = append(b.Dependencies, Dependency{Type: "olm.gvk", Value: gvkValue(a)})
		}
		rep.derive("dependencies")
	}

	// Related images.
	if s.has("related_image") {
		b.RelatedImages = db.related[name]
	} else {
		c, err := getCSV()
		if err != nil {
			return b, err
		}
		if c != nil {
			b.RelatedImages = c.images()
		}
		rep.derive("related images")
	}

	b.Deprecated = db.deprecated[name] || hasType(b.Properties, "olm.deprecated")
	if db.opts.skipManifests {
		b.CSV, b.Objects = nil, nil
	}
	return b, nil
}

// repairDependencies replaces migration-9-corrupted olm.gvk dependency rows
// of b with the APIs api_requirer (else the CSV) says b requires.
func (db *DB) repairDependencies(b *Bundle, getCSV func() (*csvDoc, error), rep *pkgReport) error {
	if len(b.Dependencies) == 0 {
		return nil
	}
	truth, src := db.required[b.Name], "api_requirer"
	if len(truth) == 0 {
		c, err := getCSV()
		if err != nil {
			return err
		}
		if c != nil {
			truth, src = c.requiredAPIs(), "the CSV"
		} else {
			truth, src = nil, ""
		}
	}
	var gvks []string
	for _, d := range b.Dependencies {
		if d.Type == "olm.gvk" {
			gvks = append(gvks, d.Value)
		}
	}
	if len(truth) == 0 {
		if db.depsCorrupt {
			what := "api_requirer and the CSV list no required API"
			if src == "" {
				what = "neither api_requirer rows nor a CSV are available"
			}
			rep.add(RepairCorruptDependencies, "dependencies", b.Name, fmt.Sprintf(
				"dependencies may hold migration 9's corrupted value %s but %s to re-derive them from; kept as stored", db.depsValue, what))
		}
		return nil
	}
	if sameGVKs(truth, gvks) {
		return nil
	}
	var kept []Dependency
	for _, d := range b.Dependencies {
		if d.Type != "olm.gvk" && d.Value != db.depsValue {
			kept = append(kept, d)
		}
	}
	var fixed []Dependency
	for _, a := range truth {
		fixed = append(fixed, Dependency{Type: "olm.gvk", Value: gvkValue(a)})
	}
	b.Dependencies = append(fixed, kept...)
	vals := make([]string, len(fixed))
	for i, d := range fixed {
		vals[i] = d.Value
	}
	rep.add(RepairCorruptDependencies, "dependencies", b.Name, fmt.Sprintf(
		"dependencies hold migration 9's corrupted value %s; olm.gvk dependencies re-derived from %s: %s", db.depsValue, src, strings.Join(vals, ", ")))
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
