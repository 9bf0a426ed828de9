package declcfg

import (
	"encoding/json"
	"fmt"
	"iter"
)

// The typed reads of bundle properties. Each well-known value has one
// parser, Parse<Type>Value, that gives the same value and error as
// json.Unmarshal into its type (Property.Validate is "the type's parser
// accepts the value"), and a bundle's own olm.package is looked up under
// one rule:
//
// A bundle has exactly one olm.package property. PackageOf enforces that
// rule, with opm's model, which refuses any other count: callers that fail
// where opm fails use it. Readers of catalogs that are not validated
// first (render, graph, index add and export, the validator itself) must
// still get on with a bundle that breaks the rule: FirstPackageOf is their
// lenient lookup, the first olm.package property whose value decodes.
// PackageValues, which both are built on, is for the few readers that
// choose among several olm.package properties otherwise; each says why.

// ParsePackageValue decodes an olm.package value: the same value and
// error as json.Unmarshal into a PackageValue.
func ParsePackageValue(value []byte) (PackageValue, error) {
	var v PackageValue
	err := json.Unmarshal(value, &v)
	return v, err
}

// ParsePackageRequiredValue decodes an olm.package.required value: the
// same value and error as json.Unmarshal into a PackageRequiredValue.
func ParsePackageRequiredValue(value []byte) (PackageRequiredValue, error) {
	var v PackageRequiredValue
	err := json.Unmarshal(value, &v)
	return v, err
}

// ParseLabelValue decodes an olm.label or olm.label.required value: the
// same value and error as json.Unmarshal into a LabelValue.
func ParseLabelValue(value []byte) (LabelValue, error) {
	var v LabelValue
	err := json.Unmarshal(value, &v)
	return v, err
}

// ParseCSVMetadataValue decodes an olm.csv.metadata value: the same value
// and error as json.Unmarshal into a CSVMetadataValue.
func ParseCSVMetadataValue(value []byte) (CSVMetadataValue, error) {
	var v CSVMetadataValue
	err := json.Unmarshal(value, &v)
	return v, err
}

// ParseConstraintValue decodes an olm.constraint value. Its shape is
// OLM's to check (cel, all, any, not, gvk, package: declcfg/bundlecheck
// does it with OLM's strict parser); here the value only has to be a JSON
// object, the error being json.Unmarshal's into a map of members, and is
// kept verbatim in Raw. FailureMessage is the failureMessage member when
// that is a string (anything else is left for the strict check, as a
// catalog that loads today must keep loading).
func ParseConstraintValue(value []byte) (ConstraintValue, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(value, &members); err != nil {
		return ConstraintValue{}, err
	}
	v := ConstraintValue{Raw: json.RawMessage(value)}
	if m, ok := members["failureMessage"]; ok {
		var s string
		if json.Unmarshal(m, &s) == nil {
			v.FailureMessage = s
		}
	}
	return v, nil
}

// IsDeprecated says whether props carry an olm.deprecated property. Its
// value ({} as opm writes it) is not read: the type alone marks the
// bundle, as in opm's sqlite migration.
func IsDeprecated(props []Property) bool {
	for _, p := range props {
		if p.Type == PropertyDeprecated {
			return true
		}
	}
	return false
}

// PackageValues yields every olm.package property of props, in order:
// its decoded value and, when it does not decode, the error (the
// ParseValue error, which names the property) with what json.Unmarshal
// decoded of it.
func PackageValues(props []Property) iter.Seq2[PackageValue, error] {
	return func(yield func(PackageValue, error) bool) {
		for _, p := range props {
			if p.Type != PropertyPackage {
				continue
			}
			v, err := ParsePackageValue(p.Value)
			if err != nil {
				err = p.valueError(err)
			}
			if !yield(v, err) {
				return
			}
		}
	}
}

// PackageCountError is PackageOf's error for props without exactly one
// olm.package property.
type PackageCountError struct {
	// N is the number of olm.package properties.
	N int
}

func (e *PackageCountError) Error() string {
	return fmt.Sprintf("%d %q properties, expected exactly 1", e.N, PropertyPackage)
}

// PackageOf is the value of the one olm.package property of props. Every
// olm.package property must decode (the first that does not is the
// error, a ParseValue error) and there must be exactly one (a
// *PackageCountError otherwise).
func PackageOf(props []Property) (PackageValue, error) {
	var pv PackageValue
	n := 0
	for v, err := range PackageValues(props) {
		if err != nil {
			return v, err
		}
		pv = v
		n++
	}
	if n != 1 {
		return pv, &PackageCountError{N: n}
	}
	return pv, nil
}

// FirstPackageOf is the lenient lookup of a bundle's olm.package: the
// value of the first olm.package property of props that decodes, and
// false (with the zero value) when none does.
func FirstPackageOf(props []Property) (PackageValue, bool) {
	for v, err := range PackageValues(props) {
		if err == nil {
			return v, true
		}
	}
	return PackageValue{}, false
}
