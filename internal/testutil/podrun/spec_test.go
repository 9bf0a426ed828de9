package podrun

import (
	"os"
	"path/filepath"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	specs "github.com/opencontainers/runtime-spec/specs-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
)

// TestArgv: Kubernetes' rules for command and args over the image's
// ENTRYPOINT and CMD.
func TestArgv(t *testing.T) {
	img := &pulled{config: v1.Config{Entrypoint: []string{"/bin/olmcat"}, Cmd: []string{"serve", "/configs"}}}
	for _, tc := range []struct {
		name          string
		command, args []string
		img           *pulled
		want          []string
		err           string
	}{
		{name: "image's", img: img, want: []string{"/bin/olmcat", "serve", "/configs"}},
		{name: "command drops CMD", command: []string{"/bin/opm"}, img: img, want: []string{"/bin/opm"}},
		{name: "command and args", command: []string{"/bin/opm"}, args: []string{"serve", "/x"}, img: img, want: []string{"/bin/opm", "serve", "/x"}},
		{name: "args replace CMD", args: []string{"version"}, img: img, want: []string{"/bin/olmcat", "version"}},
		{name: "nothing to run", img: &pulled{}, err: "no command specified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := argv(&corev1.Container{Name: "c", Command: tc.command, Args: tc.args}, tc.img)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestEnviron: the image's Env, the runtime's PATH where it has none, the
// pod's additions, the spec's env last.
func TestEnviron(t *testing.T) {
	for _, tc := range []struct {
		name     string
		imageEnv []string
		env      []corev1.EnvVar
		want     []string
	}{
		{name: "default PATH", want: []string{"PATH=" + defaultPath, "HOSTNAME=p"}},
		{name: "image's PATH", imageEnv: []string{"PATH=/bin", "A=1"}, want: []string{"PATH=/bin", "A=1", "HOSTNAME=p"}},
		{name: "spec overrides", imageEnv: []string{"A=1"}, env: []corev1.EnvVar{{Name: "A", Value: "2"}, {Name: "GOMEMLIMIT", Value: "100MiB"}},
			want: []string{"A=2", "PATH=" + defaultPath, "HOSTNAME=p", "GOMEMLIMIT=100MiB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := environ(&corev1.Container{Env: tc.env}, &pulled{config: v1.Config{Env: tc.imageEnv}}, []string{"HOSTNAME=p"})
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestSecurity: OLM's restricted context gives no capabilities and no new
// privileges; the legacy one containerd's defaults.
func TestSecurity(t *testing.T) {
	for _, tc := range []struct {
		file       string
		caps       []string
		noNewPrivs bool
		user       int64
	}{
		{file: "catalog-pod-a-default-legacy.yaml", caps: prefixed(defaultCaps)},
		{file: "catalog-pod-b-restricted.yaml", noNewPrivs: true, user: 1001},
	} {
		t.Run(tc.file, func(t *testing.T) {
			pod, err := OLMPod(tc.file, Images{Catalog: "img"})
			require.NoError(t, err)
			s := effectiveSecurity(pod, &pod.Spec.Containers[0])
			assert.Equal(t, tc.caps, s.caps)
			assert.Equal(t, tc.noNewPrivs, s.noNewPrivs)
			assert.False(t, s.readOnlyRoot)
			u, err := user(s, &pulled{config: v1.Config{User: "1001"}}, t.TempDir())
			require.NoError(t, err)
			assert.Equal(t, specs.User{UID: 1001}, u)
			if tc.user != 0 {
				_, err = user(s, &pulled{}, t.TempDir())
				require.NoError(t, err, "runAsUser overrides the image's root")
			}
		})
	}
}

func prefixed(caps []string) []string {
	out := make([]string, len(caps))
	for i, c := range caps {
		out[i] = "CAP_" + c
	}
	return out
}

// TestUser: the image's User resolved in the rootfs; runAsNonRoot refuses
// root and names it cannot check.
func TestUser(t *testing.T) {
	rootfs := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(rootfs, "etc"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(rootfs, "etc", "passwd"), []byte("root:x:0:0::/:/bin/sh\nopm:x:1001:1002::/:/bin/sh\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(rootfs, "etc", "group"), []byte("root:x:0:\nwheel:x:10:\n"), 0o644))
	for _, tc := range []struct {
		name      string
		imageUser string
		sec       security
		want      specs.User
		err       string
	}{
		{name: "root by default"},
		{name: "numeric", imageUser: "1001", want: specs.User{UID: 1001, GID: 1002}},
		{name: "name and group", imageUser: "opm:wheel", want: specs.User{UID: 1001, GID: 10}},
		{name: "runAsUser and runAsGroup", imageUser: "opm", sec: security{runAsUser: ptr.To[int64](7), runAsGroup: ptr.To[int64](8)}, want: specs.User{UID: 7, GID: 8}},
		{name: "unknown name", imageUser: "nobody", err: "unable to find user nobody"},
		{name: "non-root refuses root", sec: security{runAsNonRoot: ptr.To(true)}, err: "image will run as root"},
		{name: "non-root refuses a name", imageUser: "opm", sec: security{runAsNonRoot: ptr.To(true)}, err: "non-numeric user (opm)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := user(tc.sec, &pulled{config: v1.Config{User: tc.imageUser}}, rootfs)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestOLMObject: every fixture reads with all images given; a missing
// image is an error.
func TestOLMObject(t *testing.T) {
	entries, err := olmPods.ReadDir("olmpods")
	require.NoError(t, err)
	require.Len(t, entries, 14)
	all := Images{Catalog: "c", Opm: "o", OLM: "l", Bundle: "b"}
	for _, e := range entries {
		var obj map[string]any
		require.NoError(t, OLMObject(e.Name(), all, &obj), e.Name())
	}
	_, err = OLMPod("catalog-pod-c-extract-content-cache-restricted.yaml", Images{Catalog: "c"})
	require.ErrorContains(t, err, "no image for OPM_IMAGE, OLM_IMAGE")
}
