package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// opmIndexCase is one recorded run of opm v1.73's registry/index
// commands on a fixture database (fixtures/opmindex/<name>/). Steps run
// one after the other on the same database; bundle arguments name
// fixture bundle directories, pushed as images to a loopback registry.
type opmIndexCase struct {
	name    string
	fixture string // fixtures/legacy/<fixture>/index.db
	steps   []opmIndexStep
	// index runs the one step as opm index <verb> --generate on an index
	// image holding the database (pushed to the loopback registry)
	// instead of opm registry <verb> on the file.
	index bool
}

// opmIndexStep is one command: verb is add, rm, prune, prune-stranded
// or deprecatetruncate.
type opmIndexStep struct {
	verb    string
	mode    string
	bundles []string // fixture bundle dirs under fixtures/bundles
	pkgs    []string // rm / prune
	alpha   bool     // add with --enable-alpha
	// deprecatetruncate: the bundles deprecated, by name (their images
	// are read from the fixture; a name that is no bundle of it is passed
	// as is), and opm's --allow-package-removal and --permissive.
	deprecate    []string
	allowRemoval bool
	permissive   bool
}

// dtStep is a deprecatetruncate step of the bundles named.
func dtStep(names ...string) opmIndexStep {
	return opmIndexStep{verb: "deprecatetruncate", deprecate: names}
}

func addStep(mode string, bundles ...string) opmIndexStep {
	return opmIndexStep{verb: "add", mode: mode, bundles: bundles}
}

// alphaStep is addStep with --enable-alpha (olm.substitutesFor applied).
func alphaStep(mode string, bundles ...string) opmIndexStep {
	return opmIndexStep{verb: "add", mode: mode, bundles: bundles, alpha: true}
}

const (
	foo030 = "small-fbb/foo-bundle-v0.3.0"
	foo031 = "small-fbb/foo-bundle-v0.3.1"
	foo020 = "small-fbb/foo-bundle-v0.2.0"
	promB  = "opm-bundles/prometheus.0.14.0-beta"
	// substitutes: 0.15.0+1 for 0.15.0, 0.15.0+2 for 0.15.0+1, and three
	// rebuilds of 0.14.0 competing for it.
	promS150  = "opm-bundles/prometheus.0.15.0.substitutesfor"
	promS150b = "opm-bundles/prometheus.0.15.0.substitutesfor2"
	promS140  = "opm-bundles/prometheus.0.14.0.substitutesfor"
	promS140b = "opm-bundles/prometheus.0.14.0.substitutesfor2"
	promS140c = "opm-bundles/prometheus.0.14.0.substitutesfor3"
)

func cockroach() []string {
	var out []string
	for _, v := range []string{"2.0.9", "2.1.1", "2.1.11", "3.0.7", "5.0.3", "5.0.4"} {
		out = append(out, "community/cockroachdb/"+v)
	}
	return out
}

func couchdb() []string {
	var out []string
	for _, v := range []string{"1.0.14", "1.1.0", "1.2.1", "1.3.1", "1.4.2", "1.4.3", "1.4.4"} {
		out = append(out, "community/couchdb-operator/"+v)
	}
	return out
}

// opmIndexCases are the recorded cases (see opmindex_record_test.go).
var opmIndexCases = []opmIndexCase{
	{"foo-replaces-0.3.0", "opreg-foo-index", []opmIndexStep{addStep("replaces", foo030)}, false},
	{"foo-replaces-0.3.1", "opreg-foo-index", []opmIndexStep{addStep("replaces", foo031)}, false},
	{"foo-replaces-0.3.0-then-0.3.1", "opreg-foo-index", []opmIndexStep{addStep("replaces", foo030), addStep("replaces", foo031)}, false},
	{"foo-replaces-both", "opreg-foo-index", []opmIndexStep{addStep("replaces", foo030, foo031)}, false},
	{"foo-replaces-same-csv", "opreg-foo-index", []opmIndexStep{addStep("replaces", foo020)}, false},
	{"foo-replaces-same-image", "opreg-foo-index", []opmIndexStep{addStep("replaces", foo030), addStep("replaces", foo030)}, false},
	{"foo-semver-0.3.0", "opreg-foo-index", []opmIndexStep{addStep("semver", foo030)}, false},
	{"foo-semver-0.3.1", "opreg-foo-index", []opmIndexStep{addStep("semver", foo031)}, false},
	{"foo-semver-0.3.0-then-0.3.1", "opreg-foo-index", []opmIndexStep{addStep("semver", foo030), addStep("semver", foo031)}, false},
	{"foo-skippatch-0.3.0", "opreg-foo-index", []opmIndexStep{addStep("semver-skippatch", foo030)}, false},
	{"foo-skippatch-0.3.0-then-0.3.1", "opreg-foo-index", []opmIndexStep{addStep("semver-skippatch", foo030), addStep("semver-skippatch", foo031)}, false},
	{"prometheus-replaces-beta", "edge-before-substitutes", []opmIndexStep{addStep("replaces", promB)}, false},
	{"prometheus-semver-beta", "edge-before-substitutes", []opmIndexStep{addStep("semver", promB)}, false},
	{"cockroachdb-replaces-readd", "community-bundles", []opmIndexStep{{verb: "rm", pkgs: []string{"cockroachdb"}}, addStep("replaces", cockroach()...)}, false},
	{"couchdb-replaces-readd", "community-bundles", []opmIndexStep{{verb: "rm", pkgs: []string{"couchdb-operator"}}, addStep("replaces", couchdb()...)}, false},
	{"couchdb-semver-readd", "community-bundles", []opmIndexStep{{verb: "rm", pkgs: []string{"couchdb-operator"}}, addStep("semver", couchdb()...)}, false},
	{"small-fbb-rm-foo", "small-fbb", []opmIndexStep{{verb: "rm", pkgs: []string{"foo"}}}, false},
	{"small-fbb-rm-nosuch", "small-fbb", []opmIndexStep{{verb: "rm", pkgs: []string{"nosuch"}}}, false},
	{"small-fbb-prune-foo", "small-fbb", []opmIndexStep{{verb: "prune", pkgs: []string{"foo", "nosuch"}}}, false},
	{"observability-prune-stranded", "observability-operator", []opmIndexStep{{verb: "prune-stranded"}}, false},
	{"prometheus-substitutes-noalpha", "edge-before-substitutes", []opmIndexStep{addStep("replaces", promS150)}, false},
	{"prometheus-substitutes-0.15.0", "edge-before-substitutes", []opmIndexStep{alphaStep("replaces", promS150)}, false},
	{"prometheus-substitutes-chain", "edge-before-substitutes", []opmIndexStep{alphaStep("replaces", promS150), alphaStep("replaces", promS150b)}, false},
	{"prometheus-substitutes-competing", "edge-before-substitutes", []opmIndexStep{alphaStep("replaces", promS140), alphaStep("replaces", promS140c), alphaStep("replaces", promS140b)}, false},
	{"prometheus-substitutes-newest-first", "edge-before-substitutes", []opmIndexStep{alphaStep("replaces", promS140c), alphaStep("replaces", promS140)}, false},
	{"prometheus-substitutes-one-call", "edge-before-substitutes", []opmIndexStep{alphaStep("replaces", promS140, promS140c, promS140b)}, false},
	{"prometheus-substitutes-chain-one-call", "edge-before-substitutes", []opmIndexStep{alphaStep("replaces", promS150b, promS150)}, false},
	{"prometheus-substitutes-semver", "edge-before-substitutes", []opmIndexStep{alphaStep("semver", promS150)}, false},
	{"edge-substitutes-add-0.14.0", "edge-substitutes", []opmIndexStep{alphaStep("replaces", promS140)}, false},
	{"index-add-foo-0.3.1", "opreg-foo-index", []opmIndexStep{addStep("replaces", foo031)}, true},
	{"index-add-foo-semver-0.3.0", "opreg-foo-index", []opmIndexStep{addStep("semver", foo030)}, true},
	{"index-add-prometheus-substitutes", "edge-before-substitutes", []opmIndexStep{alphaStep("replaces", promS150)}, true},
	{"index-rm-foo", "small-fbb", []opmIndexStep{{verb: "rm", pkgs: []string{"foo"}}}, true},
	{"small-fbb-dt-foo-0.2.0", "small-fbb", []opmIndexStep{dtStep("foo.v0.2.0")}, false},
	{"small-fbb-dt-foo-0.3.0", "small-fbb", []opmIndexStep{dtStep("foo.v0.3.0")}, false},
	{"small-fbb-dt-bar-0.2.0", "small-fbb", []opmIndexStep{dtStep("bar.v0.2.0")}, false},
	{"small-fbb-dt-two", "small-fbb", []opmIndexStep{dtStep("foo.v0.2.0", "baz.v1.0.1")}, false},
	{"small-fbb-dt-default-head", "small-fbb", []opmIndexStep{dtStep("bar.v1.0.0")}, false},
	{"small-fbb-dt-default-head-permissive", "small-fbb", []opmIndexStep{{verb: "deprecatetruncate", deprecate: []string{"bar.v1.0.0", "baz.v1.0.1"}, permissive: true}}, false},
	{"small-fbb-dt-package-removal", "small-fbb", []opmIndexStep{{verb: "deprecatetruncate", deprecate: []string{"bar.v1.0.0", "bar.v0.2.0", "foo.v0.2.0"}, allowRemoval: true}}, false},
	{"small-fbb-dt-package-removal-head-missing", "small-fbb", []opmIndexStep{{verb: "deprecatetruncate", deprecate: []string{"bar.v1.0.0"}, allowRemoval: true}}, false},
	{"small-fbb-dt-missing", "small-fbb", []opmIndexStep{dtStep("nosuch-bundle:v1", "baz.v1.0.1")}, false},
	{"small-fbb-dt-missing-permissive", "small-fbb", []opmIndexStep{{verb: "deprecatetruncate", deprecate: []string{"nosuch-bundle:v1", "baz.v1.0.1"}, permissive: true}}, false},
	{"community-dt-couchdb-1.4.2", "community-bundles", []opmIndexStep{dtStep("couchdb-operator.v1.4.2")}, false},
	{"community-dt-kiali-tackle", "community-bundles", []opmIndexStep{dtStep("kiali-operator.v1.22.0", "tackle-operator.v0.0.4")}, false},
	{"index-dt-foo-0.2.0", "small-fbb", []opmIndexStep{dtStep("foo.v0.2.0")}, true},
}

// opmIndexDBCases are the cases whose recording also keeps opm's
// resulting database (index.db) and the loopback registry's host:port its
// bundle paths name (registry): the smallest successful case of each
// family, for TestOPMIndexParity.
var opmIndexDBCases = []string{
	"foo-replaces-0.3.1",            // replaces add
	"foo-semver-0.3.1",              // semver add
	"foo-skippatch-0.3.0",           // semver-skippatch add
	"index-add-foo-0.3.1",           // index add --generate
	"small-fbb-rm-foo",              // rm
	"small-fbb-prune-foo",           // prune
	"observability-prune-stranded",  // prune-stranded
	"prometheus-substitutes-0.15.0", // add --enable-alpha (substitutes)
}

// pushIndexImage pushes the fixture's database as a sqlite index image
// (one layer with database/index.db and opm's database label).
func pushIndexImage(t *testing.T, reg *imagetest.Registry, fixture string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../../fixtures/legacy", fixture, "index.db"))
	require.NoError(t, err)
	labels := map[string]string{image.LabelDatabase: "/database/index.db"}
	return reg.Push(t, "index/"+fixture+":v1", imagetest.Image(t, labels, nil,
		imagetest.Layer(t, imagetest.Entry{Name: "database/index.db", Body: string(data)})))
}

// bundleRepo is the repository a fixture bundle dir is pushed to.
func bundleRepo(dir string) string {
	return "bundles/" + strings.NewReplacer("/", "-", ".", "-").Replace(strings.ToLower(dir)) + ":latest"
}

// pushCaseBundles pushes every bundle of c and maps dir -> image ref.
func pushCaseBundles(t *testing.T, reg *imagetest.Registry, c opmIndexCase) map[string]string {
	t.Helper()
	refs := map[string]string{}
	for _, s := range c.steps {
		for _, b := range s.bundles {
			if refs[b] == "" {
				refs[b] = pushBundleImage(t, reg, bundleRepo(b), filepath.Join(fixtureBundles, b))
			}
		}
		for _, n := range s.deprecate {
			if img, ok := fixtureImages(t, c.fixture)[n]; ok {
				refs[n] = img
			} else {
				refs[n] = n
			}
		}
	}
	return refs
}

// opmIndexGoldens is the recordings' root.
const opmIndexGoldens = "../../fixtures/opmindex"

// registryPlaceholder stands for the loopback registry's host:port in
// the recordings.
const registryPlaceholder = "REGISTRY"

// opmVerbArgs are the arguments of a step's verb (rm's flag is -o).
func opmVerbArgs(s opmIndexStep, refs map[string]string, rmFlag string) []string {
	switch s.verb {
	case "add":
		var imgs []string
		for _, b := range s.bundles {
			imgs = append(imgs, refs[b])
		}
		args := []string{"-b", strings.Join(imgs, ","), "--mode", s.mode}
		if s.alpha {
			args = append(args, "--enable-alpha")
		}
		return args
	case "rm":
		return []string{rmFlag, strings.Join(s.pkgs, ",")}
	case "prune":
		return []string{"-p", strings.Join(s.pkgs, ",")}
	case "deprecatetruncate":
		var imgs []string
		for _, n := range s.deprecate {
			imgs = append(imgs, refs[n])
		}
		args := []string{"-b", strings.Join(imgs, ",")}
		if s.allowRemoval {
			args = append(args, "--allow-package-removal")
		}
		if s.permissive {
			args = append(args, "--permissive")
		}
		return args
	}
	return nil
}

// fixtureImages maps the bundles of fixture's opm migrate output to
// their images (deprecatetruncate names bundles by image).
func fixtureImages(t *testing.T, fixture string) map[string]string {
	t.Helper()
	out := map[string]string{}
	dir := filepath.Join("../../fixtures/legacy", fixture, "opm-migrate")
	require.NoError(t, declcfg.EachPackage(context.Background(), dir, func(_ string, cfg *declcfg.DeclarativeConfig) error {
		for _, b := range cfg.Bundles {
			out[b.Name] = b.Image
		}
		return nil
	}))
	return out
}
