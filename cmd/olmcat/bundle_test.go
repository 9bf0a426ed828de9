package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
	"github.com/operator-catalog/olmcat/unpack"
)

// The bundle command tests share one API server (started on first use).
func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

func createEmptyConfigMap(t *testing.T, c *kubetest.Cluster, ns, name string) {
	t.Helper()
	_, err := c.Admin(t).CoreV1().ConfigMaps(ns).Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
}

// TestBundleExtractLoadMatchesOPMRender: every real bundle dir, extracted
// into a ConfigMap on the API server (plain and gzipped) and printed by
// bundle load, is the olm.bundle blob opm renders for its image.
func TestBundleExtractLoadMatchesOPMRender(t *testing.T) {
	c := kubetest.Get(t)
	ns := c.Namespace(t)
	kubeconfig := c.Kubeconfig(t, c.AdminConfig())
	for i, dir := range realBundleDirs(t) {
		name := strings.TrimPrefix(dir, "../../fixtures/bundles/")
		image := "example/" + strings.ToLower(strings.NewReplacer("/", "-", "+", "-").Replace(name)) + ":v1"
		for _, gzip := range []bool{false, true} {
			cm := "b" + string(rune('a'+i%26)) + strings.ToLower(strings.NewReplacer("/", "-", "+", "-", "_", "-").Replace(name))
			args := []string{"bundle", "extract", "-m", dir, "-n", ns, "--kubeconfig", kubeconfig}
			if gzip {
				cm += "-z"
				args = append(args, "-z")
			}
			t.Run(name+map[bool]string{false: "/plain", true: "/gzip"}[gzip], func(t *testing.T) {
				createEmptyConfigMap(t, c, ns, cm)
				t.Setenv("CONTAINER_IMAGE", image)
				_, stderr, code := runCLI(t, append(args, "-c", cm)...)
				require.Equal(t, 0, code, stderr)
				got, stderr, code := runCLI(t, "bundle", "load", ns+"/"+cm, "--kubeconfig", kubeconfig)
				require.Equal(t, 0, code, stderr)
				require.Equal(t, opmImageRender(t, dir, image), got)
			})
		}
	}
}

// readManifests returns the files of dir by name, as ConfigMap data.
func readManifests(t *testing.T, dir string) map[string]string {
	t.Helper()
	data := map[string]string{}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		content, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		data[e.Name()] = string(content)
	}
	return data
}

// remap rewrites the Job's container paths to test directories.
func remap(args []string, dirs map[string]string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		for from, to := range dirs {
			if a == from || strings.HasPrefix(a, from+"/") {
				out[i] = to + strings.TrimPrefix(a, from)
			}
		}
	}
	return out
}

// playUnpackJob launches an unpack of image with the CLI (with flags),
// then plays the stored Job's three containers with this binary (paths
// remapped to temp dirs, the bundle image's root being bundleRoot), the
// extract container authenticated as the Job's ServiceAccount with a token
// from the API server. It returns the extract command and that account's
// kubeconfig.
func playUnpackJob(t *testing.T, c *kubetest.Cluster, ns, image, bundleRoot string, flags ...string) (extract []string, sa string) {
	t.Helper()
	admin := c.Kubeconfig(t, c.AdminConfig())
	name := unpack.Name(image)
	out, stderr, code := runCLI(t, append([]string{"bundle", "unpack", image, "-n", ns, "--kubeconfig", admin, "--tool-image", "olmcat:test"}, flags...)...)
	require.Equal(t, 0, code, stderr)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Equal(t, ns+"/"+name, res["configMap"])
	require.Contains(t, out, `"reason": "JobIncomplete"`)

	job, err := c.Admin(t).BatchV1().Jobs(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	tmp := t.TempDir()
	dirs := map[string]string{"/util": filepath.Join(tmp, "util"), "/bundle": filepath.Join(tmp, "bundle")}
	for _, d := range dirs {
		require.NoError(t, os.Mkdir(d, 0o755))
	}
	pod := job.Spec.Template.Spec
	containers := append(append([]corev1.Container{}, pod.InitContainers...), pod.Containers...)
	require.Len(t, containers, 3)

	// util: copy this binary into the shared volume.
	util := remap(containers[0].Command, dirs)
	_, stderr, code = runCLI(t, util[1:]...)
	require.Equal(t, 0, code, stderr)
	st, err := os.Stat(filepath.Join(tmp, "util", "olmcat"))
	require.NoError(t, err)
	require.NotZero(t, st.Mode()&0o100, "copied binary is not executable")

	// pull: inside the bundle image, whose root is the fixture bundle.
	pull := remap(containers[1].Command, dirs)
	_, stderr, code = runCLI(t, append(pull[1:], "--from", bundleRoot)...)
	require.Equal(t, 0, code, stderr)

	// extract, as the Job's service account.
	sa = c.Kubeconfig(t, c.TokenConfig(c.ServiceAccountToken(t, ns, name)))
	extract = remap(containers[2].Command, dirs)
	for _, e := range containers[2].Env {
		t.Setenv(e.Name, e.Value)
	}
	_, stderr, code = runCLI(t, append(extract[1:], "--kubeconfig", sa)...)
	require.Equal(t, 0, code, stderr)
	return extract, sa
}

// TestBundleUnpackJobCommands plays the Job of an unpack with
// --extra-metadata: its ServiceAccount can write its ConfigMap and no
// other. Then the Job's status moves to Complete and unpack --wait reports
// the bundle, which bundle load prints as opm renders it (dependencies.yaml
// included).
func TestBundleUnpackJobCommands(t *testing.T) {
	c := kubetest.Get(t)
	ns := c.Namespace(t)
	admin := c.Kubeconfig(t, c.AdminConfig())
	image := "example/etcd-bundle:v0.9.2"
	bundleRoot := "../../fixtures/bundles/opm-bundles/etcd.0.9.2"
	name := unpack.Name(image)
	extract, sa := playUnpackJob(t, c, ns, image, bundleRoot, "--extra-metadata")

	createEmptyConfigMap(t, c, ns, "other")
	other := append(extract[1:], "--kubeconfig", sa)
	for i := range other {
		if other[i] == "-c" {
			other[i+1] = "other"
		}
	}
	_, stderr, code := runCLI(t, other...)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "forbidden")
	require.Contains(t, stderr, "system:serviceaccount:"+ns+":"+name)

	kubetest.CompleteJob(t, c.Admin(t), ns, name)
	out, stderr, code := runCLI(t, "bundle", "unpack", image, "-n", ns, "--kubeconfig", admin, "--tool-image", "olmcat:test", "--extra-metadata", "--wait", "--poll-interval", "50ms")
	require.Equal(t, 0, code, stderr)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	require.Equal(t, "etcdoperator.v0.9.2", res["bundle"])
	require.Nil(t, res["conditions"])

	got, stderr, code := runCLI(t, "bundle", "load", ns+"/"+name, "--kubeconfig", admin)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, opmImageRender(t, bundleRoot, image), got)
}

// TestBundleUnpackWritesOLMsConfigMap: by default the Job's containers
// write what OLM's unpacker writes, key for key and annotation for
// annotation: the manifests only (the bundle's dependencies.yaml stays
// out), opm's six bundle annotations, the source image and the encoding,
// no paths annotation. bundle load reads it.
func TestBundleUnpackWritesOLMsConfigMap(t *testing.T) {
	c := kubetest.Get(t)
	ns := c.Namespace(t)
	image := "example/etcd-bundle:v0.9.2"
	bundleRoot := "../../fixtures/bundles/opm-bundles/etcd.0.9.2"
	name := unpack.Name(image)
	playUnpackJob(t, c, ns, image, bundleRoot)
	cm, err := c.Admin(t).CoreV1().ConfigMaps(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	var keys []string
	for k := range cm.BinaryData {
		keys = append(keys, k)
	}
	entries, err := os.ReadDir(filepath.Join(bundleRoot, "manifests"))
	require.NoError(t, err)
	var want []string
	for _, e := range entries {
		want = append(want, e.Name())
	}
	require.ElementsMatch(t, want, keys, "configmap keys")
	require.Empty(t, cm.Data)
	require.ElementsMatch(t, []string{
		"olm.contentEncoding", "olm.sourceImage",
		"operators.operatorframework.io.bundle.channel.default.v1",
		"operators.operatorframework.io.bundle.channels.v1",
		"operators.operatorframework.io.bundle.manifests.v1",
		"operators.operatorframework.io.bundle.mediatype.v1",
		"operators.operatorframework.io.bundle.metadata.v1",
		"operators.operatorframework.io.bundle.package.v1",
	}, slices.Collect(maps.Keys(cm.Annotations)), "configmap annotations")
	kubetest.CompleteJob(t, c.Admin(t), ns, name)
	_, stderr, code := runCLI(t, "bundle", "load", ns+"/"+name, "--kubeconfig", c.Kubeconfig(t, c.AdminConfig()))
	require.Equal(t, 0, code, stderr)
}

// TestBundleUnpackFailed: a Job that ran past its deadline fails the
// command with the Job's reason; --wait stops waiting on failure.
func TestBundleUnpackFailed(t *testing.T) {
	c := kubetest.Get(t)
	ns := c.Namespace(t)
	admin := c.Kubeconfig(t, c.AdminConfig())
	image := "example/missing-bundle:v1"
	args := []string{"bundle", "unpack", image, "-n", ns, "--kubeconfig", admin, "--tool-image", "olmcat:test", "--timeout", "30s"}
	_, stderr, code := runCLI(t, args...)
	require.Equal(t, 0, code, stderr)
	job, err := c.Admin(t).BatchV1().Jobs(ns).Get(context.Background(), unpack.Name(image), metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(30), *job.Spec.ActiveDeadlineSeconds)

	kubetest.FailJob(t, c.Admin(t), ns, unpack.Name(image), batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline")
	out, stderr, code := runCLI(t, append(args, "--wait", "--poll-interval", "50ms")...)
	require.Equal(t, 1, code)
	require.Contains(t, out, `"type": "BundleLookupFailed"`)
	require.Contains(t, stderr, "DeadlineExceeded: Job was active longer than specified deadline")
}

// TestBundleLocal stores a ConfigMap of objects as <root>/<name>.tar.gz
// and refuses names that leave the root, entries that are not objects and
// overwriting without --force.
func TestBundleLocal(t *testing.T) {
	c := kubetest.Get(t)
	ns := c.Namespace(t)
	admin := c.Kubeconfig(t, c.AdminConfig())
	data := readManifests(t, "../../fixtures/bundles/small-fbb/foo-bundle-v0.1.0/manifests")
	_, err := c.Admin(t).CoreV1().ConfigMaps(ns).Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "foo"}, Data: data}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = c.Admin(t).CoreV1().ConfigMaps(ns).Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "notes"}, Data: map[string]string{"readme.md": "# not an object\n"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	parent := t.TempDir()
	root := filepath.Join(parent, "bundles")
	out, stderr, code := runCLI(t, "bundle", "local", ns+"/foo", "--root", root, "--kubeconfig", admin)
	require.Equal(t, 0, code, stderr)
	archive := filepath.Join(root, "foo.tar.gz")
	require.Equal(t, archive+"\n", out)
	fsys, err := unpack.ReadLocal(archive)
	require.NoError(t, err)
	got := map[string]string{}
	require.NoError(t, fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		content, err := fs.ReadFile(fsys, p)
		got[p] = string(content)
		return err
	}))
	want := map[string]string{}
	for k, v := range data {
		want["manifests/"+k] = v
	}
	require.Equal(t, want, got)

	_, stderr, code = runCLI(t, "bundle", "local", ns+"/foo", "--root", root, "--kubeconfig", admin)
	require.Equal(t, 2, code, "an existing output is a usage error")
	require.Contains(t, stderr, "exists (use --force")
	_, stderr, code = runCLI(t, "bundle", "local", ns+"/foo", "--root", root, "--kubeconfig", admin, "--force")
	require.Equal(t, 0, code, stderr)

	for _, bad := range []string{"../escaped", "a/b", "/tmp/abs"} {
		_, stderr, code = runCLI(t, "bundle", "local", ns+"/foo", "--root", root, "--name", bad, "--kubeconfig", admin)
		require.Equal(t, 1, code, bad)
		require.Contains(t, stderr, "bundle name")
	}
	_, stderr, code = runCLI(t, "bundle", "local", ns+"/notes", "--root", root, "--kubeconfig", admin)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `key "readme.md"`)
	var files []string
	require.NoError(t, filepath.WalkDir(parent, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	}))
	require.Equal(t, []string{archive}, files, "only the one archive may exist under the parent of --root")
}

func TestBundleUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"bundle", "load", "no-namespace"},
		{"bundle", "local", "ns/cm"},
		{"bundle", "extract", "-n", "ns"},
		{"bundle", "unpack", "example/b:v1"},
		{"bundle", "unpack", "example/b:v1", "-n", "ns", "--catalog-source", "bad"},
	} {
		_, stderr, code := runCLI(t, args...)
		require.Equal(t, 2, code, "%v: %s", args, stderr)
	}
}

// TestBundleLoadPackageManifest: a ConfigMap in the package-manifest layout
// (a PackageManifest beside the objects, no bundle annotations) loads with
// the package and channels its PackageManifest gives, and says so; found
// through $KUBECONFIG.
func TestBundleLoadPackageManifest(t *testing.T) {
	c := kubetest.Get(t)
	ns := c.Namespace(t)
	t.Setenv("KUBECONFIG", c.Kubeconfig(t, c.AdminConfig()))
	data := readManifests(t, "../../fixtures/bundles/small-fbb/foo-bundle-v0.1.0/manifests")
	data["foo.package.yaml"] = "packageName: foo\nchannels:\n- name: beta\n  currentCSV: foo.v0.1.0\n- name: stable\n  currentCSV: foo.v0.2.0\ndefaultChannel: stable\n"
	_, err := c.Admin(t).CoreV1().ConfigMaps(ns).Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "pm"}, Data: data}, metav1.CreateOptions{})
	require.NoError(t, err)
	out, stderr, code := runCLI(t, "bundle", "load", ns+"/pm")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, `package foo, channels "beta" and default channel "stable" taken from its PackageManifest`)
	var blob struct {
		Schema, Name, Package string
	}
	require.NoError(t, json.Unmarshal([]byte(out), &blob))
	require.Equal(t, "olm.bundle", blob.Schema)
	require.Equal(t, "foo", blob.Package)
	require.Equal(t, "foo.v0.1.0", blob.Name)
}

// TestBundleLoadManifestsOnly: a ConfigMap made with kubectl create
// configmap --from-file=<bundle>/manifests has no bundle metadata; bundle
// load says what is missing and how to make it, and each way it names
// works: the metadata directory as entries (--from-file=<bundle>/metadata)
// or the package and channel annotations.
func TestBundleLoadManifestsOnly(t *testing.T) {
	c := kubetest.Get(t)
	ns := c.Namespace(t)
	kubeconfig := c.Kubeconfig(t, c.AdminConfig())
	dir := "../../fixtures/bundles/small-fbb/foo-bundle-v0.1.0"
	image := "example/foo-bundle:v0.1.0"
	cms := c.Admin(t).CoreV1().ConfigMaps(ns)
	ctx := context.Background()
	create := func(name string, data map[string]string) {
		t.Helper()
		_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name,
			Annotations: map[string]string{unpack.AnnotationSourceImage: image}}, Data: data}, metav1.CreateOptions{})
		require.NoError(t, err)
	}

	create("manifests-only", readManifests(t, dir+"/manifests"))
	_, stderr, code := runCLI(t, "bundle", "load", ns+"/manifests-only", "--kubeconfig", kubeconfig)
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "the ConfigMap holds manifests but no bundle metadata: no operators.operatorframework.io.bundle.package.v1 annotation")
	require.Contains(t, stderr, "--from-file=<bundle-dir>/metadata")
	require.Contains(t, stderr, "kubectl annotate configmap manifests-only -n "+ns+" operators.operatorframework.io.bundle.package.v1=<package>")

	withMetadata := readManifests(t, dir+"/manifests")
	maps.Copy(withMetadata, readManifests(t, dir+"/metadata"))
	create("with-metadata", withMetadata)
	got, stderr, code := runCLI(t, "bundle", "load", ns+"/with-metadata", "--kubeconfig", kubeconfig)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, opmImageRender(t, dir, image), got)

	cm, err := cms.Get(ctx, "manifests-only", metav1.GetOptions{})
	require.NoError(t, err)
	cm.Annotations["operators.operatorframework.io.bundle.package.v1"] = "foo"
	cm.Annotations["operators.operatorframework.io.bundle.channels.v1"] = "beta"
	_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	require.NoError(t, err)
	out, stderr, code := runCLI(t, "bundle", "load", ns+"/manifests-only", "--kubeconfig", kubeconfig)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, `"package": "foo"`)
}
