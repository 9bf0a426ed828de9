package unpack

import (
	"maps"
	"path"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Job shape constants, as in OLM's unpacker.
const (
	jobBackoffLimit = 3
	jobTTLSeconds   = 300

	bundleVolume = "bundle"
	utilVolume   = "util"
	bundleMount  = "/bundle"
	utilMount    = "/util"
)

// jobSpec describes one unpack Job.
type jobSpec struct {
	name, namespace string
	image           string // bundle image
	utilImage       string // util role: holds the binary copied into the bundle image's pod
	opmImage        string // opm role: runs extract
	toolBinary      string // path of the binary in both role images
	timeoutSeconds  int64  // 0: no deadline
	runAsUser       int64  // 0 or less: not set
	extra           bool   // copy all metadata, extract with --extra-metadata
	pullSecrets     []string
	owner           metav1.OwnerReference
}

// build returns the Job: init container util copies the static binary out
// of the util image into a shared volume; init container pull runs that
// copy inside the bundle image (which has no shell) to copy the bundle's
// manifests and annotations into a second volume; container extract runs
// the binary of the opm image to write them into the ConfigMap, gzipped.
func (s jobSpec) build() *batchv1.Job {
	labels := map[string]string{LabelManaged: "true", LabelUnpackRef: s.name}
	copied := path.Join(utilMount, path.Base(s.toolBinary))
	copyCmd := []string{copied, "bundle", "copy", bundleMount}
	extractCmd := []string{s.toolBinary, "bundle", "extract", "-m", bundleMount, "-n", s.namespace, "-c", s.name, "-z"}
	if s.extra {
		copyCmd = append(copyCmd, "--all-metadata")
		extractCmd = append(extractCmd, "--extra-metadata")
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:            s.name,
			Namespace:       s.namespace,
			Labels:          labels,
			OwnerReferences: []metav1.OwnerReference{s.owner},
		},
		Spec: batchv1.JobSpec{
			BackoffLimit:            ptr.To[int32](jobBackoffLimit),
			TTLSecondsAfterFinished: ptr.To[int32](jobTTLSeconds),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Name: s.name, Labels: maps.Clone(labels)},
				Spec: corev1.PodSpec{
					RestartPolicy:      corev1.RestartPolicyNever,
					ServiceAccountName: s.name,
					ImagePullSecrets:   pullSecrets(s.pullSecrets),
					SecurityContext:    s.podSecurityContext(),
					NodeSelector:       map[string]string{"kubernetes.io/os": "linux"},
					Tolerations:        tolerations(),
					Volumes: []corev1.Volume{
						{Name: bundleVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
						{Name: utilVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
					},
					InitContainers: []corev1.Container{
						hardened(corev1.Container{
							Name:         "util",
							Image:        s.utilImage,
							Command:      []string{s.toolBinary, "bundle", "copy", "--self", copied},
							VolumeMounts: []corev1.VolumeMount{{Name: utilVolume, MountPath: utilMount}},
						}),
						hardened(corev1.Container{
							Name:            "pull",
							Image:           s.image,
							ImagePullPolicy: pullPolicy(s.image),
							Command:         copyCmd,
							VolumeMounts: []corev1.VolumeMount{
								{Name: bundleVolume, MountPath: bundleMount},
								{Name: utilVolume, MountPath: utilMount},
							},
						}),
					},
					Containers: []corev1.Container{hardened(corev1.Container{
						Name:         "extract",
						Image:        s.opmImage,
						Command:      extractCmd,
						Env:          []corev1.EnvVar{{Name: "CONTAINER_IMAGE", Value: s.image}},
						VolumeMounts: []corev1.VolumeMount{{Name: bundleVolume, MountPath: bundleMount}},
					})},
				},
			},
		},
	}
	if s.timeoutSeconds > 0 {
		job.Spec.ActiveDeadlineSeconds = ptr.To(s.timeoutSeconds)
	}
	return job
}

// podSecurityContext is OLM's: the RuntimeDefault seccomp profile, and
// runAsUser with runAsNonRoot only when a user is configured (> 0).
func (s jobSpec) podSecurityContext() *corev1.PodSecurityContext {
	sc := &corev1.PodSecurityContext{SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
	if s.runAsUser > 0 {
		sc.RunAsNonRoot = ptr.To(true)
		sc.RunAsUser = ptr.To(s.runAsUser)
	}
	return sc
}

// hardened adds the resources and restricted security context every
// unpack container gets.
func hardened(c corev1.Container) corev1.Container {
	c.Resources = corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("10m"),
		corev1.ResourceMemory: resource.MustParse("50Mi"),
	}}
	c.SecurityContext = &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr.To(false),
		ReadOnlyRootFilesystem:   ptr.To(true),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
	c.TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError
	return c
}

// pullPolicy pulls tags every time (a tag may move) and digests once.
func pullPolicy(image string) corev1.PullPolicy {
	if strings.Contains(image, "@") {
		return corev1.PullIfNotPresent
	}
	return corev1.PullAlways
}

func tolerations() []corev1.Toleration {
	var ts []corev1.Toleration
	for _, arch := range []string{"amd64", "arm64", "ppc64le", "s390x"} {
		ts = append(ts, corev1.Toleration{Key: "kubernetes.io/arch", Operator: corev1.TolerationOpEqual, Value: arch})
	}
	ts = append(ts,
		corev1.Toleration{Key: "node-role.kubernetes.io/master", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		corev1.Toleration{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](120)},
		corev1.Toleration{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](120)},
	)
	return ts
}

func pullSecrets(names []string) []corev1.LocalObjectReference {
	var refs []corev1.LocalObjectReference
	for _, n := range names {
		refs = append(refs, corev1.LocalObjectReference{Name: n})
	}
	return refs
}
