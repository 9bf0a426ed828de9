package parity

import (
	"bytes"
	"strings"

	"github.com/operator-catalog/olmcat/input"
)

// A blob check between a catalog as catalogd serves it and one rebuilt
// from the registry gRPC API (GRPCSide) sees what OLM v1 reads that OLM
// v0 does not: the fields the API has no room for, and, when the gRPC
// side is a legacy sqlite index, what its migration to a declarative
// config changed on purpose (the rules Check applies between the sqlite
// and declarative config servers). The functions here name those
// differences; anything else stays a loss.

// grpcCarriesNot lists, by schema and top-level field (or property
// type), what the registry gRPC API has no field for, or serves only as
// manifests: a catalog rebuilt from a gRPC server cannot have them.
var grpcCarriesNot = map[string]bool{
	"olm.package description":                  true,
	"olm.package icon":                         true,
	"olm.bundle relatedImages":                 true,
	"olm.bundle properties[olm.bundle.object]": true,
	"olm.bundle properties[olm.csv.metadata]":  true,
}

// rebuiltSide is the side rebuilt from the gRPC API, or -1.
func (bc *blobCheck) rebuiltSide() int {
	for s := range 2 {
		if bc.sides[s].Rebuilt {
			return s
		}
	}
	return -1
}

// fromSQLite tells whether side s is rebuilt from a legacy sqlite
// index's server: the other side is then (catalogd's copy of) its
// migration.
func (bc *blobCheck) fromSQLite(s int) bool {
	return s >= 0 && bc.sides[s].Rebuilt && bc.sides[s].Backend == input.KindSQLite
}

// explainMissing is the rule of a blob side lacks does not serve.
func (bc *blobCheck) explainMissing(k blobKey, lacks int, dropped map[string]bool) Rule {
	switch {
	case !bc.fromSQLite(bc.rebuiltSide()):
	case bc.fromSQLite(lacks) && k.schema == BlobDeprecations:
		return RuleDeprecationFBCOnly
	case !bc.fromSQLite(lacks) && k.schema == BlobBundle && dropped[k.name]:
		return RuleDeprecatedBundleDropped
	}
	return RuleBlobMissing
}

// explain is the rule of a difference f inside blob k.
func (bc *blobCheck) explain(k blobKey, f valueDiff, dropped map[string]bool) Rule {
	r := bc.rebuiltSide()
	if f.rule != RuleFieldDiffers || r < 0 {
		return f.rule
	}
	vals := [2]string{f.left, f.right}
	lacks, only := vals[r] == notServed, vals[1-r] == notServed
	head := strings.TrimPrefix(f.path, ".")
	if i := strings.IndexByte(head, ']'); i >= 0 {
		head = head[:i+1]
	}
	switch {
	case lacks && (grpcCarriesNot[k.schema+" "+f.field] || grpcCarriesNot[k.schema+" "+head]):
		return RuleNotCarriedByGRPC
	case k.schema == BlobBundle && f.path == ".image" && vals[r] == `""`:
		return RuleNotCarriedByGRPC // an empty bundlePath is all the API has for no image
	case !bc.fromSQLite(r):
	case lacks && (head == "properties[olm.gvk.required]" || head == "properties[olm.package.required]"):
		return RuleRequiredPropertiesFBCOnly
	case lacks && (head == "properties[olm.label.required]" || head == "properties[olm.constraint]"):
		return RuleLabelConstraintAsProperty
	case lacks && head == "properties[olm.package]":
		return RulePackagePropertySynthesized
	case only && head == "properties[olm.deprecated]":
		return RuleDeprecatedPropertyAsDeprecation
	case only && k.schema == BlobChannel && dropped[strings.TrimSuffix(strings.TrimPrefix(head, "entries["), "]")]:
		return RuleDeprecatedBundleDropped
	}
	return f.rule
}

// droppedDeprecated names the bundles of a group that only a side
// rebuilt from a sqlite index serves and that carry olm.deprecated: the
// migration drops them (RuleDeprecatedBundleDropped), with their
// channel entries.
func (bc *blobCheck) droppedDeprecated(pairs []blobPair) (map[string]bool, error) {
	r := bc.rebuiltSide()
	if !bc.fromSQLite(r) {
		return nil, nil
	}
	out := map[string]bool{}
	for _, p := range pairs {
		if p.key.schema != BlobBundle || p.ids[r] < 0 || p.ids[1-r] >= 0 {
			continue
		}
		k := p.key
		b, err := bc.snaps[r].Blob(int(p.ids[r]))
		if err != nil {
			return nil, err
		}
		if bytes.Contains(b, []byte(`{"type":"olm.deprecated"`)) {
			out[k.name] = true
		}
	}
	return out, nil
}
