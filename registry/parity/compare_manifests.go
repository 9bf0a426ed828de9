package parity

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/registry/api"
)

// manifests compares csvJson and object as parsed JSON.
func (d *differ) manifests(path string, l, r *api.Bundle, mode bundleMode) {
	c := d.cat.canon
	sameCSV := c.same(l.GetCsvJson(), r.GetCsvJson())
	sameObjects := c.sameList(l.GetObject(), r.GetObject())
	if sameCSV && sameObjects || d.csvMetadata(path, l, r) {
		return
	}
	d.csvJSONAt(path, l.GetCsvJson(), r.GetCsvJson(), mode)
	if sameObjects {
		return
	}
	lo, ro := canonList(l.GetObject()), canonList(r.GetObject())
	if reflect.DeepEqual(lo, ro) {
		return
	}
	if mode == modeListBundles && (len(lo) == 0 || len(ro) == 0) {
		d.add(RuleListBundlesManifests, path+".object", fmt.Sprintf("%d objects", len(lo)), fmt.Sprintf("%d objects", len(ro)))
		return
	}
	lm, rm := toSet(lo), toSet(ro)
	for s, m := range []map[string]bool{lm, rm} {
		other := []map[string]bool{lm, rm}[1-s]
		for _, o := range sortedOnly(m, other, strLess) {
			lt, rt := pick(s, objectName(o), "absent")
			d.add(RuleManifestsDiffer, path+".object["+objectName(o)+"]", lt, rt)
		}
	}
	if len(lo) != len(ro) && reflect.DeepEqual(lm, rm) {
		d.add(RuleManifestsDiffer, path+".object", fmt.Sprintf("%d objects", len(lo)), fmt.Sprintf("%d objects", len(ro)))
	}
}

func (d *differ) csvJSON(l, r string, mode bundleMode) { d.csvJSONAt("", l, r, mode) }

func (d *differ) csvJSONAt(path, l, r string, mode bundleMode) {
	if d.cat.canon.same(l, r) {
		return
	}
	lc, rc := canon(l), canon(r)
	if lc == rc {
		return
	}
	if mode == modeListBundles && (lc == "" || rc == "") {
		d.add(RuleListBundlesManifests, path+".csvJson", presence(lc), presence(rc))
		return
	}
	d.add(RuleManifestsDiffer, path+".csvJson", objectName(lc), objectName(rc))
}

func presence(s string) string {
	if s == "" {
		return "empty"
	}
	return objectName(s)
}

// csvMetadata recognises an image bundle whose manifests the declarative
// config side replaced by olm.csv.metadata (a synthesized CSV and nothing
// else), and records it as benign. The synthetic CSV must name the same
// bundle as the other side's CSV.
func (d *differ) csvMetadata(path string, l, r *api.Bundle) bool {
	b := [2]*api.Bundle{l, r}
	for s := range 2 {
		o := 1 - s
		if !d.cat.asym(o) || b[s].GetBundlePath() == "" || b[o].GetCsvJson() == "" {
			continue
		}
		name, ok := syntheticCSV(b[s])
		if !ok {
			continue
		}
		if other, isSynth := syntheticCSV(b[o]); isSynth || csvName(b[o].GetCsvJson()) != name || other != "" {
			continue
		}
		lt, rt := pick(s, "synthetic CSV from olm.csv.metadata", fmt.Sprintf("CSV and %d objects", len(b[o].GetObject())))
		d.add(RuleCSVMetadataManifests, path+".csvJson", lt, rt)
		return true
	}
	return false
}

// syntheticCSV reports whether b's csvJson is the CSV a declarative config
// server synthesizes from olm.csv.metadata (install strategy reduced to
// {"strategy":"deployment"} without deployments) and b serves no other
// object; it returns the CSV's name.
func syntheticCSV(b *api.Bundle) (string, bool) {
	csv, err := manifest.ParseCSV([]byte(b.GetCsvJson()))
	if err != nil || csv.Kind() != manifest.KindCSV {
		return "", false
	}
	if strategy, deployments, err := csv.InstallStrategy(); err != nil || strategy != "deployment" || deployments != 0 {
		return "", false
	}
	objs := b.GetObject()
	if len(objs) > 1 || len(objs) == 1 && canon(objs[0]) != canon(b.GetCsvJson()) {
		return "", false
	}
	return csv.Name(), true
}

func csvName(csvJSON string) string { return manifest.ReadHead([]byte(csvJSON)).Name }

// objectName names a canonical JSON object by kind and name.
func objectName(s string) string {
	if s == "" {
		return "empty"
	}
	h := manifest.ReadHead([]byte(s))
	if h.Kind == "" || !json.Valid([]byte(s)) {
		if len(s) > 80 {
			return s[:77] + "..."
		}
		return s
	}
	return h.Kind + "/" + h.Name + fmt.Sprintf(" (%d bytes)", len(s))
}
