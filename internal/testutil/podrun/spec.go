package podrun

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	corev1 "k8s.io/api/core/v1"
)

// defaultPath is the runtime's PATH when the image's Env sets none.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// defaultCaps are the capabilities containerd's CRI plugin grants a
// container that adds and drops none.
var defaultCaps = []string{"CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW", "SETGID",
	"SETUID", "SETFCAP", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL", "AUDIT_WRITE"}

// argv is what a container runs, by Kubernetes' rules: command replaces
// the image's ENTRYPOINT and drops its CMD; args alone replace CMD.
func argv(c *corev1.Container, img *pulled) ([]string, error) {
	var out []string
	switch {
	case len(c.Command) > 0:
		out = append(append(out, c.Command...), c.Args...)
	case len(c.Args) > 0:
		out = append(append(out, img.config.Entrypoint...), c.Args...)
	default:
		out = append(append(out, img.config.Entrypoint...), img.config.Cmd...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("container %s: no command specified (neither the pod nor the image names one)", c.Name)
	}
	return out, nil
}

// environ is the image's Env, then the runtime's PATH if it has none,
// then what the pod adds: the spec's env (a later name replaces an
// earlier one) and extra.
func environ(c *corev1.Container, img *pulled, extra []string) ([]string, error) {
	var order []string
	vals := map[string]string{}
	set := func(kv string) {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := vals[k]; !ok {
			order = append(order, k)
		}
		vals[k] = kv
	}
	for _, kv := range img.config.Env {
		set(kv)
	}
	if _, ok := vals["PATH"]; !ok {
		set("PATH=" + defaultPath)
	}
	for _, kv := range extra {
		set(kv)
	}
	for _, e := range c.Env {
		if e.ValueFrom != nil {
			return nil, fmt.Errorf("container %s: env %s: valueFrom is not supported by the harness", c.Name, e.Name)
		}
		set(e.Name + "=" + e.Value)
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, vals[k])
	}
	return out, nil
}

// security is the container's effective securityContext fields: the
// container's own, else the pod's.
type security struct {
	runAsUser, runAsGroup *int64
	runAsNonRoot          *bool
	readOnlyRoot          bool
	noNewPrivs            bool
	caps                  []string
}

func effectiveSecurity(pod *corev1.Pod, c *corev1.Container) security {
	var s security
	if psc := pod.Spec.SecurityContext; psc != nil {
		s.runAsUser, s.runAsGroup, s.runAsNonRoot = psc.RunAsUser, psc.RunAsGroup, psc.RunAsNonRoot
	}
	caps := map[string]bool{}
	for _, c := range defaultCaps {
		caps[c] = true
	}
	if sc := c.SecurityContext; sc != nil {
		if sc.RunAsUser != nil {
			s.runAsUser = sc.RunAsUser
		}
		if sc.RunAsGroup != nil {
			s.runAsGroup = sc.RunAsGroup
		}
		if sc.RunAsNonRoot != nil {
			s.runAsNonRoot = sc.RunAsNonRoot
		}
		s.readOnlyRoot = sc.ReadOnlyRootFilesystem != nil && *sc.ReadOnlyRootFilesystem
		s.noNewPrivs = sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation
		if sc.Capabilities != nil {
			for _, d := range sc.Capabilities.Drop {
				if d == "ALL" {
					caps = map[string]bool{}
				}
				delete(caps, string(d))
			}
			for _, a := range sc.Capabilities.Add {
				caps[string(a)] = true
			}
		}
	}
	for _, c := range defaultCaps {
		if caps[c] {
			s.caps = append(s.caps, "CAP_"+c)
			delete(caps, c)
		}
	}
	for c := range caps {
		s.caps = append(s.caps, "CAP_"+c)
	}
	return s
}

// user resolves who the process runs as: runAsUser/runAsGroup, else the
// image's User (uid, uid:gid or names looked up in the rootfs's
// /etc/passwd and /etc/group), the group defaulting to the user's
// primary group, else 0. runAsNonRoot refuses uid 0 and a user name it
// cannot check, as the kubelet does.
func user(s security, img *pulled, rootfs string) (specs.User, error) {
	var u specs.User
	name, group, _ := strings.Cut(img.config.User, ":")
	gidSet := false
	switch {
	case s.runAsUser != nil:
		u.UID = uint32(*s.runAsUser)
	case name != "":
		id, err := lookupID(rootfs, "passwd", name)
		if err != nil {
			return u, err
		}
		u.UID = id
	}
	if s.runAsUser == nil && group != "" {
		id, err := lookupID(rootfs, "group", group)
		if err != nil {
			return u, err
		}
		u.GID, gidSet = id, true
	}
	if s.runAsGroup != nil {
		u.GID, gidSet = uint32(*s.runAsGroup), true
	}
	if !gidSet {
		u.GID = primaryGroup(rootfs, u.UID)
	}
	if s.runAsNonRoot != nil && *s.runAsNonRoot {
		if s.runAsUser == nil && name != "" {
			if _, err := strconv.ParseUint(name, 10, 32); err != nil {
				return u, fmt.Errorf("container has runAsNonRoot and image has non-numeric user (%s), cannot verify user is non-root", name)
			}
		}
		if u.UID == 0 {
			return u, fmt.Errorf("container has runAsNonRoot and image will run as root")
		}
	}
	return u, nil
}

// lookupID is name as a number, else its id in the rootfs's /etc/<db>.
func lookupID(rootfs, db, name string) (uint32, error) {
	if n, err := strconv.ParseUint(name, 10, 32); err == nil {
		return uint32(n), nil
	}
	for _, f := range etcEntries(rootfs, db) {
		if f[0] == name {
			if n, err := strconv.ParseUint(f[2], 10, 32); err == nil {
				return uint32(n), nil
			}
		}
	}
	return 0, fmt.Errorf("unable to find %s %s in the image's /etc/%s", map[string]string{"passwd": "user", "group": "group"}[db], name, db)
}

// primaryGroup is uid's group in the rootfs's /etc/passwd, else 0.
func primaryGroup(rootfs string, uid uint32) uint32 {
	for _, f := range etcEntries(rootfs, "passwd") {
		if f[2] == strconv.FormatUint(uint64(uid), 10) && len(f) > 3 {
			if n, err := strconv.ParseUint(f[3], 10, 32); err == nil {
				return uint32(n)
			}
		}
	}
	return 0
}

// etcEntries reads /etc/<db> of the rootfs as colon-separated fields
// (lines with at least three); a missing file has none.
func etcEntries(rootfs, db string) [][]string {
	f, err := os.Open(filepath.Join(rootfs, "etc", db))
	if err != nil {
		return nil
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Split(sc.Text(), ":"); len(fields) >= 3 {
			out = append(out, fields)
		}
	}
	return out
}

// baseMounts are the filesystems every container gets from the runtime.
func baseMounts() []specs.Mount {
	return []specs.Mount{
		{Destination: "/proc", Type: "proc", Source: "proc"},
		{Destination: "/dev", Type: "tmpfs", Source: "tmpfs", Options: []string{"nosuid", "strictatime", "mode=755", "size=65536k"}},
		{Destination: "/dev/pts", Type: "devpts", Source: "devpts", Options: []string{"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620", "gid=5"}},
		{Destination: "/dev/shm", Type: "tmpfs", Source: "shm", Options: []string{"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}},
		{Destination: "/dev/mqueue", Type: "mqueue", Source: "mqueue", Options: []string{"nosuid", "noexec", "nodev"}},
		{Destination: "/sys", Type: "sysfs", Source: "sysfs", Options: []string{"nosuid", "noexec", "nodev", "ro"}},
	}
}

// bind is a bind mount of a host path.
func bind(src, dst string, ro bool) specs.Mount {
	opts := []string{"rbind", "rprivate", "nosuid", "nodev"}
	if ro {
		opts = append(opts, "ro")
	} else {
		opts = append(opts, "rw")
	}
	return specs.Mount{Destination: dst, Type: "bind", Source: src, Options: opts}
}

// ociSpec is the runtime spec of one container process.
type ociSpec struct {
	args, env []string
	cwd       string
	user      specs.User
	sec       security
	hostname  string
	netns     string
	mounts    []specs.Mount
	memLimit  int64
	seccomp   *specs.LinuxSeccomp // KillInCopy's hold on copies
}

func (o ociSpec) spec() *specs.Spec {
	caps := &specs.LinuxCapabilities{Bounding: o.sec.caps, Effective: o.sec.caps, Permitted: o.sec.caps}
	if o.user.UID == 0 {
		caps.Inheritable = nil
	}
	s := &specs.Spec{
		Version: "1.0.2",
		Process: &specs.Process{
			Args: o.args, Env: o.env, Cwd: o.cwd, User: o.user,
			Capabilities: caps, NoNewPrivileges: o.sec.noNewPrivs,
		},
		Root:     &specs.Root{Path: "rootfs", Readonly: o.sec.readOnlyRoot},
		Hostname: o.hostname,
		Mounts:   append(baseMounts(), o.mounts...),
		Linux: &specs.Linux{
			Namespaces: []specs.LinuxNamespace{
				{Type: specs.PIDNamespace}, {Type: specs.IPCNamespace}, {Type: specs.UTSNamespace},
				{Type: specs.MountNamespace}, {Type: specs.NetworkNamespace, Path: o.netns},
			},
			MaskedPaths: []string{"/proc/acpi", "/proc/asound", "/proc/kcore", "/proc/keys", "/proc/latency_stats",
				"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/sys/firmware", "/proc/scsi"},
			ReadonlyPaths: []string{"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"},
			Seccomp:       o.seccomp,
		},
	}
	if o.memLimit > 0 {
		s.Linux.Resources = &specs.LinuxResources{Memory: &specs.LinuxMemory{Limit: &o.memLimit}}
	}
	return s
}
