// Package podrun runs Kubernetes pod specs on Debian's runc, doing what a
// kubelet does for them and nothing more, so that tests run the images
// olmcat builds the way OLM runs them. It is a test tool: no command of
// olmcat uses it (cmd/olmcat's depcheck forbids it).
//
// For a corev1.Pod it pulls each container's image with olmcat's image
// code and unpacks a fresh rootfs per container start (the layers applied
// in order with whiteouts, by go-containerregistry's mutate.Extract); runs
// the init containers in order, each until it succeeds, then the
// containers; runs command and args, or else the image's entrypoint and
// cmd (Kubernetes' rules); gives the image's Env (PATH defaulted to the
// runtime's) plus the spec's env; runs as runAsUser, or else the image's
// User, refusing root under runAsNonRoot; applies readOnlyRootFilesystem,
// allowPrivilegeEscalation: false (no new privileges) and capability
// drops and adds over containerd's default set; mounts emptyDir volumes
// as host directories, and each container attempt's termination message
// file (world-writable, as the kubelet's) at its terminationMessagePath
// (TerminationMessage). Exec probes run with runc exec on the kubelet's
// schedule: startup, then liveness and readiness, with their delays,
// periods, thresholds and timeouts; a failed startup or liveness probe
// restarts the container with the kubelet's back-off. Container output is
// kept per attempt (Logs).
//
// Every pod has its own network namespace holding only loopback, pinned
// by a bind mount as a sandbox's pause container pins it; all its
// containers join it by path. The test reaches a pod's port through
// Forward (a port-forward whose connections are dialed from a thread
// inside the namespace), so no pod shares the host's network.
//
// Faults are injected where a test asks: KillInCopy SIGKILLs a
// container in the middle of a file copy, holding the copy (seccomp's
// user notification of copy_file_range, through runc's listenerPath)
// while it kills, so that the kill never comes after the copy ended.
//
// Not emulated: seccomp profiles (KillInCopy's hold is the only filter),
// resource requests (memory limits are applied), DNS, image pull
// policies (each image is pulled once per Runtime), and every volume
// type but emptyDir.
//
// OLM's objects are kept in olmpods as YAML (OLMObject, OLMPod). OLM's
// own image, whose copy-content (extractContent's copier), cp and cpb its
// pods run, is OLMImage: olmtools under those names. Image builds other
// small images, such as an opm image of a real opm binary.
package podrun
