package template

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	fooV010 = "127.0.0.1:5000/test/foo-bundle:v0.1.0"
	fooV020 = "127.0.0.1:5000/test/foo-bundle:v0.2.0"
	barV010 = "127.0.0.1:5000/test/bar-bundle:v0.1.0"
	prom2   = "127.0.0.1:5000/operator-registry/bundles:prometheus.0.14.0.substitutesfor2"
	prom3   = "127.0.0.1:5000/operator-registry/bundles:prometheus.0.14.0.substitutesfor3"
)

// TestRenderErrors: a bad template fails naming the template file, the
// entry and the field, with the cause.
func TestRenderErrors(t *testing.T) {
	basicFoo := "schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: foo\n"
	for _, tc := range []struct {
		name     string
		template string
		typ      Type
		entry    string
		field    string
		cause    string
	}{
		{"unknown schema", "schema: olm.bogus\n", "", "", "schema", `unknown template schema "olm.bogus"`},
		{"no schema", "entries: []\n", "", "", "", "missing required 'schema' field"},
		{"schema of another type", "schema: olm.semver\n", TypeBasic, "", "schema", `template has unknown schema ("olm.semver"), should be "olm.template.basic"`},
		{"basic bundle without image", basicFoo + "- schema: olm.bundle\n", "", "entries[1]", "image", "missing"},
		{"basic bundle with properties", basicFoo + "- schema: olm.bundle\n  image: " + fooV010 + "\n  properties: [{type: x, value: 1}]\n", "", "entries[1]", "properties", "unexpected fields present in basic template bundle"},
		{"basic image that does not render", basicFoo + "- schema: olm.bundle\n  image: 127.0.0.1:5000/test/nosuch:v1\n", "", "entries[1]", "image", `render "127.0.0.1:5000/test/nosuch:v1"`},
		{"basic bundle of another package", basicFoo + "- schema: olm.bundle\n  image: " + barV010 + "\n", "", "entries[1]", "image", `bundle bar.v0.1.0 of package "bar", which the template has no olm.package entry for`},
		{"semver bundle without image", "schema: olm.semver\nstable:\n  bundles:\n  - {}\n", "", "stable.bundles[0]", "image", "missing"},
		{"semver bundle of another package", "schema: olm.semver\ncandidate:\n  bundles:\n  - image: " + fooV010 + "\nstable:\n  bundles:\n  - image: " + barV010 + "\n", "", "stable.bundles[0]", "image", `bundle bar.v0.1.0 of package "bar", but this template is for package "foo" (of candidate.bundles[0])`},
		{"semver bundle listed twice", "schema: olm.semver\ncandidate:\n  bundles:\n  - image: " + fooV010 + "\n  - image: " + fooV020 + "\n  - image: " + fooV010 + "\n", "", "candidate.bundles[2]", "image", `duplicate bundle name "foo.v0.1.0": candidate.bundles[0] lists it too`},
		{"semver version listed twice", "schema: olm.semver\nfast:\n  bundles:\n  - image: " + prom2 + "\n  - image: " + prom3 + "\n", "", "fast.bundles[1]", "image", "which fast.bundles[0] lists already (versions that differ only by build metadata cannot be ordered)"},
		{"semver unknown key", "schema: olm.semver\navoidSkipPatch: true\n", "", "", "avoidSkipPatch", `unknown field "avoidSkipPatch"`},
		{"semver unknown bundle key", "schema: olm.semver\nstable:\n  bundles:\n  - image: " + fooV010 + "\n    name: x\n", "", "stable.bundles[0]", "name", `unknown field "name"`},
		{"semver bad preference", "schema: olm.semver\ndefaultChannelTypePreference: patch\n", "", "", "defaultChannelTypePreference", `unknown DefaultChannelTypePreference: "patch"`},
		{"semver preference without its channels", "schema: olm.semver\ngenerateMinorChannels: true\ndefaultChannelTypePreference: major\n", "", "", "defaultChannelTypePreference", "doesn't make sense if not generating major-version channels"},
		{"semver without bundles", "schema: olm.semver\n", "", "", "", "no bundles specified"},
		{"substitutes base missing", "schema: olm.template.substitutes\nentries: []\nsubstitutions:\n- name: " + fooV020 + "\n  base: foo.v9.9.9\n", "", "substitutions[0]", "", `base bundle "foo.v9.9.9" does not exist in catalog`},
		{"substitutes base reused", "schema: olm.template.substitutes\nentries: []\nsubstitutions:\n- {name: a, base: b}\n- {name: c, base: b}\n", "", "substitutions[1]", "base", `cannot reuse the same substitution base "b"`},
		{"substitutes name empty", "schema: olm.template.substitutes\nentries: []\nsubstitutions:\n- {base: b}\n", "", "substitutions[0]", "name", "substitution name cannot be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := []Option{WithFile("t.yaml"), WithBundleRenderer(fixtureRenderer(false))}
			if tc.typ != "" {
				opts = append(opts, WithType(tc.typ))
			}
			cfg, err := Render(context.Background(), []byte(tc.template), opts...)
			require.Nil(t, cfg)
			var te *Error
			require.True(t, errors.As(err, &te), "%T: %v", err, err)
			require.Equal(t, "t.yaml", te.File)
			require.Equal(t, tc.entry, te.Entry)
			require.Equal(t, tc.field, te.Field)
			require.Contains(t, te.Err.Error(), tc.cause)
			require.True(t, strings.HasPrefix(err.Error(), "t.yaml: "), err.Error())
		})
	}
}

// TestSubstitutesNotNewer: the substitute must be newer than its base.
func TestSubstitutesNotNewer(t *testing.T) {
	tmpl := []byte(`{"schema": "olm.template.substitutes", "entries": [` +
		`{"schema": "olm.package", "name": "foo", "defaultChannel": "beta"},` +
		`{"schema": "olm.channel", "name": "beta", "package": "foo", "entries": [{"name": "foo.v0.2.0"}]},` +
		`{"schema": "olm.bundle", "name": "foo.v0.2.0", "package": "foo", "image": "x", "properties": [{"type": "olm.package", "value": {"packageName": "foo", "version": "0.2.0"}}]}],` +
		`"substitutions": [{"name": "` + fooV010 + `", "base": "foo.v0.2.0"}]}`)
	_, err := Render(context.Background(), tmpl, WithFile("s.json"), WithBundleRenderer(fixtureRenderer(false)))
	require.ErrorContains(t, err, `s.json: substitutions[0]: error processing substitution "foo.v0.2.0" -> "`+fooV010+`": base bundle "foo.v0.2.0" is not less than substitute bundle "`+fooV010+`"`)
}

// The entries of a basic template load as they decode, yet decode as a
// list would: a non-list fails with encoding/json's error, null and no
// key are no entries, and of two "entries" keys the last counts.
func TestEntriesDecodeAsAList(t *testing.T) {
	for doc, want := range map[string]int{
		`{"schema": "olm.template.basic"}`:                  0,
		`{"schema": "olm.template.basic", "entries": null}`: 0,
		`{"schema": "olm.template.basic", "entries": [{"schema": "olm.package", "name": "a"}], "entries": [{"schema": "olm.package", "name": "b"}, {"schema": "olm.package", "name": "c"}]}`: 2,
	} {
		cfg, err := Render(context.Background(), []byte(doc))
		require.NoError(t, err, doc)
		assert.Len(t, cfg.Packages, want, doc)
	}
	_, err := Render(context.Background(), []byte(`{"schema": "olm.template.basic", "entries": {"a": 1}}`))
	require.EqualError(t, err, "<stdin>: decode template: json: cannot unmarshal object into Go struct field basicTemplate.entries of type []json.RawMessage")
}
