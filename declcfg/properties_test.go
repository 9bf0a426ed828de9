package declcfg

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func pkgProperty(value string) Property {
	return Property{Type: PropertyPackage, Value: json.RawMessage(value)}
}

// TestPackageLookups: the one rule for a bundle's olm.package (PackageOf:
// exactly one, every one decodes) and the lenient lookup (FirstPackageOf:
// the first that decodes), on valid, missing, duplicate, malformed and
// wrongly typed olm.package properties.
func TestPackageLookups(t *testing.T) {
	a := pkgProperty(`{"packageName":"a","version":"1.0.0","release":"r1"}`)
	b := pkgProperty(`{"packageName":"a","version":"2.0.0"}`)
	noVersion := pkgProperty(`{"packageName":"a"}`)
	malformed := pkgProperty(`{"packageName":`)
	wrongType := pkgProperty(`{"packageName":"a","version":1}`)
	notObject := pkgProperty(`["a"]`)
	other := Property{Type: PropertyGVK, Value: json.RawMessage(`{"group":"g","kind":"K","version":"v1"}`)}
	va := PackageValue{PackageName: "a", Version: "1.0.0", Release: "r1"}
	vb := PackageValue{PackageName: "a", Version: "2.0.0"}
	for _, tc := range []struct {
		name      string
		props     []Property
		strict    PackageValue
		strictErr string // "" when PackageOf succeeds
		count     bool   // the error is a *PackageCountError
		n         int    // its N
		first     PackageValue
		firstOK   bool
		yields    int
	}{
		{name: "one", props: []Property{other, a}, strict: va, first: va, firstOK: true, yields: 1},
		{name: "one without version", props: []Property{noVersion}, strict: PackageValue{PackageName: "a"}, first: PackageValue{PackageName: "a"}, firstOK: true, yields: 1},
		{name: "missing", props: []Property{other}, strictErr: `0 "olm.package" properties, expected exactly 1`, count: true},
		{name: "no properties", strictErr: `0 "olm.package" properties, expected exactly 1`, count: true},
		{name: "duplicate", props: []Property{a, other, b}, strictErr: `2 "olm.package" properties, expected exactly 1`, count: true, n: 2, first: va, firstOK: true, yields: 2},
		{name: "malformed JSON", props: []Property{malformed}, strictErr: `parse olm.package property value {"packageName":: unexpected end of JSON input`, yields: 1},
		{name: "wrong type", props: []Property{wrongType}, strictErr: "parse olm.package property value " + string(wrongType.Value) + ": json: cannot unmarshal number into Go struct field PackageValue.version of type string", yields: 1},
		{name: "not an object", props: []Property{notObject}, strictErr: "parse olm.package property value [\"a\"]: json: cannot unmarshal array into Go value of type declcfg.PackageValue", yields: 1},
		{name: "malformed, then valid", props: []Property{malformed, b}, strictErr: "parse olm.package property value", first: vb, firstOK: true, yields: 2},
		{name: "valid, then malformed", props: []Property{b, wrongType}, strictErr: "parse olm.package property value " + string(wrongType.Value), first: vb, firstOK: true, yields: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PackageOf(tc.props)
			var countErr *PackageCountError
			switch {
			case tc.strictErr == "":
				require.NoError(t, err)
				assert.Equal(t, tc.strict, got)
			case tc.count:
				require.ErrorAs(t, err, &countErr)
				assert.Equal(t, tc.n, countErr.N)
				assert.EqualError(t, err, tc.strictErr)
			default:
				require.Error(t, err)
				assert.NotErrorAs(t, err, &countErr)
				assert.True(t, strings.HasPrefix(err.Error(), tc.strictErr), "%q starts with %q", err, tc.strictErr)
			}
			first, ok := FirstPackageOf(tc.props)
			assert.Equal(t, tc.firstOK, ok)
			assert.Equal(t, tc.first, first)
			n := 0
			for range PackageValues(tc.props) {
				n++
			}
			assert.Equal(t, tc.yields, n)
		})
	}
}

// TestPackageValuesStops: PackageValues stops when its consumer does.
func TestPackageValuesStops(t *testing.T) {
	props := []Property{pkgProperty(`{"version":"1.0.0"}`), pkgProperty(`{"version":"2.0.0"}`)}
	var got []string
	for v := range PackageValues(props) {
		got = append(got, v.Version)
		break
	}
	assert.Equal(t, []string{"1.0.0"}, got)
}

// TestParseValues: each value parser gives json.Unmarshal's value and
// error for its type, and Property.Validate accepts exactly what the
// type's parser accepts.
func TestParseValues(t *testing.T) {
	type parsed struct {
		value any
		err   error
	}
	parsers := map[string]func([]byte) parsed{
		PropertyPackage: func(b []byte) parsed { v, err := ParsePackageValue(b); return parsed{v, err} },
		PropertyPackageRequired: func(b []byte) parsed {
			v, err := ParsePackageRequiredValue(b)
			return parsed{v, err}
		},
		PropertyLabel:       func(b []byte) parsed { v, err := ParseLabelValue(b); return parsed{v, err} },
		PropertyCSVMetadata: func(b []byte) parsed { v, err := ParseCSVMetadataValue(b); return parsed{v, err} },
		PropertyConstraint:  func(b []byte) parsed { v, err := ParseConstraintValue(b); return parsed{v, err} },
	}
	for _, tc := range []struct {
		typ, value string
		want       any
		err        string // "" for none
	}{
		{PropertyPackage, `{"packageName":"p","version":"1.0.0"}`, PackageValue{PackageName: "p", Version: "1.0.0"}, ""},
		{PropertyPackage, `{"packageName":"p","extra":[1]}`, PackageValue{PackageName: "p"}, ""},
		{PropertyPackage, `{"packageName":"p","version":1}`, PackageValue{PackageName: "p"}, "json: cannot unmarshal number into Go struct field PackageValue.version of type string"},
		{PropertyPackage, `{"packageName":"p"`, PackageValue{}, "unexpected end of JSON input"},
		{PropertyPackageRequired, `{"packageName":"p","versionRange":">=1.0.0"}`, PackageRequiredValue{PackageName: "p", VersionRange: ">=1.0.0"}, ""},
		{PropertyPackageRequired, `{"packageName":true}`, PackageRequiredValue{}, "json: cannot unmarshal bool into Go struct field PackageRequiredValue.packageName of type string"},
		{PropertyLabel, `{"label":"l"}`, LabelValue{Label: "l"}, ""},
		{PropertyLabel, `"l"`, LabelValue{}, "json: cannot unmarshal string into Go value of type declcfg.LabelValue"},
		{PropertyCSVMetadata, `{"displayName":"D","keywords":["k"]}`, CSVMetadataValue{DisplayName: "D", Keywords: []string{"k"}}, ""},
		{PropertyCSVMetadata, `{"keywords":"k"}`, CSVMetadataValue{}, "json: cannot unmarshal string into Go struct field CSVMetadata.keywords of type []string"},
		{PropertyConstraint, `{"failureMessage":"m","cel":{"rule":"true"}}`, ConstraintValue{FailureMessage: "m", Raw: json.RawMessage(`{"failureMessage":"m","cel":{"rule":"true"}}`)}, ""},
		{PropertyConstraint, `{"failureMessage":5,"cel":{"rule":"true"}}`, ConstraintValue{Raw: json.RawMessage(`{"failureMessage":5,"cel":{"rule":"true"}}`)}, ""},
		{PropertyConstraint, `{"all":{"constraints":[]}}`, ConstraintValue{Raw: json.RawMessage(`{"all":{"constraints":[]}}`)}, ""},
		{PropertyConstraint, `["cel"]`, ConstraintValue{}, "json: cannot unmarshal array into Go value of type map[string]json.RawMessage"},
		{PropertyConstraint, `{"cel":`, ConstraintValue{}, "unexpected end of JSON input"},
	} {
		t.Run(tc.typ+" "+tc.value, func(t *testing.T) {
			got := parsers[tc.typ]([]byte(tc.value))
			assert.Equal(t, tc.want, got.value)
			verr := Property{Type: tc.typ, Value: json.RawMessage(tc.value)}.Validate()
			if tc.err == "" {
				assert.NoError(t, got.err)
				assert.NoError(t, verr)
				return
			}
			assert.EqualError(t, got.err, tc.err)
			assert.Error(t, verr)
		})
	}
}

// TestIsDeprecated: the olm.deprecated type marks a bundle, whatever its
// value.
func TestIsDeprecated(t *testing.T) {
	pkg := pkgProperty(`{"packageName":"p","version":"1.0.0"}`)
	assert.False(t, IsDeprecated(nil))
	assert.False(t, IsDeprecated([]Property{pkg}))
	assert.True(t, IsDeprecated([]Property{pkg, {Type: PropertyDeprecated, Value: json.RawMessage(`{}`)}}))
	assert.True(t, IsDeprecated([]Property{{Type: PropertyDeprecated, Value: json.RawMessage(`null`)}}))
}

var packageLookupSeeds = []string{
	`{"packageName":"a","version":"1.0.0"}`,
	"{\"packageName\":\"a\",\"version\":\"1.0.0\"}\n{\"packageName\":\"a\",\"version\":\"2.0.0\"}",
	"{\"packageName\":\n{\"version\":\"1\"}", `{"version":2}`, `null`, `[]`, ``,
	`{"failureMessage":"m","cel":{"rule":"true"}}`, `{"failureMessage":null}`, `{"FailureMessage":"m"}`,
	"{\"failureMessage\":\"a\",\"failureMessage\":\"b\"}",
}

// FuzzPackageLookups checks the lookups against their definitions over
// json.Unmarshal: the values (one per line) become olm.package
// properties, between other properties; each is also read as an
// olm.constraint value.
func FuzzPackageLookups(f *testing.F) {
	for _, s := range packageLookupSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var props []Property
		var want []PackageValue
		var wantErr []bool
		for _, line := range strings.Split(in, "\n") {
			props = append(props, Property{Type: PropertyLabel, Value: json.RawMessage(`{"label":"x"}`)}, pkgProperty(line))
			var v PackageValue
			err := json.Unmarshal([]byte(line), &v)
			want, wantErr = append(want, v), append(wantErr, err != nil)
			checkConstraint(t, line)
		}
		i := 0
		for v, err := range PackageValues(props) {
			require.Equal(t, want[i], v, "value %d", i)
			require.Equal(t, wantErr[i], err != nil, "error %d: %v", i, err)
			require.Equal(t, err != nil, props[2*i+1].Validate() != nil, "Validate agrees with the parser on %d", i)
			i++
		}
		require.Equal(t, len(want), i)
		first, ok := FirstPackageOf(props)
		j := 0
		for j < len(want) && wantErr[j] {
			j++
		}
		require.Equal(t, j < len(want), ok)
		if ok {
			require.Equal(t, want[j], first)
		}
		strict, err := PackageOf(props)
		if len(want) == 1 && !wantErr[0] {
			require.NoError(t, err)
			require.Equal(t, want[0], strict)
		} else {
			require.Error(t, err)
		}
	})
}

// checkConstraint: ParseConstraintValue fails where Validate always
// did (json.Unmarshal into a map of members), keeps the value, and its
// FailureMessage is the failureMessage member when that is a string.
func checkConstraint(t *testing.T, value string) {
	t.Helper()
	var members map[string]any
	werr := json.Unmarshal([]byte(value), &members)
	got, err := ParseConstraintValue([]byte(value))
	require.Equal(t, werr == nil, err == nil, "ParseConstraintValue(%q): %v; json.Unmarshal: %v", value, err, werr)
	if err != nil {
		return
	}
	require.Equal(t, value, string(got.Raw))
	s, _ := members["failureMessage"].(string)
	require.Equal(t, s, got.FailureMessage)
}
