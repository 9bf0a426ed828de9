package unpack

import (
	"context"
	"fmt"
	"slices"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// ensureJob creates want, or decides about the Job of that name: while
// OLM's catalog operator has a Job for the bundle (newestOLMJob) nothing
// is touched or created (Lookup reports that Job's result); a
// terminating Job is waited for, then replaced; a failed Job is replaced
// once it failed at least retryAfter ago (never when 0); one that matches
// want (jobMatches) is kept, one whose spec or owners drifted is replaced.
func ensureJob(ctx context.Context, c Clients, want *batchv1.Job, retryAfter time.Duration) error {
	jobs := c.jobs(want.Namespace)
	if olm, err := newestOLMJob(ctx, c, want.Namespace, want.Name); err != nil || olm != nil {
		return err
	}
	have, err := jobs.Get(ctx, want.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("get job %s/%s: %w", want.Namespace, want.Name, err)
	case IsOLMJob(have):
		return nil
	case have.DeletionTimestamp != nil:
		if gone, err := waitJobGone(ctx, c, have); err != nil || !gone {
			return err
		}
	case jobCondition(have, batchv1.JobFailed) != nil && !jobMatches(want, have):
		if err := replaceJob(ctx, c, have, "drifted"); err != nil {
			return err
		}
	case jobCondition(have, batchv1.JobFailed) != nil:
		if retryAfter <= 0 || time.Since(failedAt(have)) < retryAfter {
			return nil
		}
		if err := replaceJob(ctx, c, have, "failed"); err != nil {
			return err
		}
	case jobMatches(want, have):
		return nil
	default:
		if err := replaceJob(ctx, c, have, "drifted"); err != nil {
			return err
		}
	}
	if _, err := jobs.Create(ctx, want, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create job %s/%s: %w", want.Namespace, want.Name, err)
	}
	return nil
}

// replaceJob deletes have and waits until it is gone, so that a Job of the
// same name can be created.
func replaceJob(ctx context.Context, c Clients, have *batchv1.Job, why string) error {
	// Background propagation removes the Job at once; its pods are left
	// to the garbage collector.
	policy := metav1.DeletePropagationBackground
	err := c.jobs(have.Namespace).Delete(ctx, have.Name, metav1.DeleteOptions{
		PropagationPolicy: &policy,
		Preconditions:     &metav1.Preconditions{UID: ptr.To(have.UID)},
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete %s job %s/%s: %w", why, have.Namespace, have.Name, err)
	}
	gone, err := waitJobGone(ctx, c, have)
	if err == nil && !gone {
		err = fmt.Errorf("job %s/%s still terminating after %s (a finalizer holds it)", have.Namespace, have.Name, jobGoneWait)
	}
	return err
}

// jobGoneWait is how long Launch waits for a terminating Job (its
// finalizers, foreground deletion of its pods) before leaving it to a
// later run.
var jobGoneWait = 30 * time.Second

// waitJobGone waits up to jobGoneWait until the Job have is deleted,
// and reports whether it is.
func waitJobGone(ctx context.Context, c Clients, have *batchv1.Job) (bool, error) {
	deadline := time.Now().Add(jobGoneWait)
	for {
		cur, err := c.jobs(have.Namespace).Get(ctx, have.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && cur.UID != have.UID) {
			return true, nil
		}
		if err != nil {
			return false, fmt.Errorf("get job %s/%s: %w", have.Namespace, have.Name, err)
		}
		if time.Now().After(deadline) {
			return false, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// failedAt is when the Job failed: its Failed condition's transition time.
func failedAt(job *batchv1.Job) time.Time {
	if c := jobCondition(job, batchv1.JobFailed); c != nil && !c.LastTransitionTime.IsZero() {
		return c.LastTransitionTime.Time
	}
	return job.CreationTimestamp.Time
}

// olmUtilCommand and olmExtractCommand are the commands of OLM's unpack
// Job (ConfigMapUnpacker.job): cp of cpb from OLM's util image, and opm's
// extract.
var (
	olmUtilCommand    = []string{"/bin/cp", "-Rv", "/bin/cpb", "/util/cpb"}
	olmExtractCommand = []string{"opm", "alpha", "bundle", "extract"}
)

// IsOLMJob reports whether job is the unpack Job of OLM's catalog
// operator, told by its spec: the util container copying cpb, or the
// extract container running opm alpha bundle extract. The two share names
// in a namespace; olmcat never deletes OLM's Job, which OLM would answer
// by deleting olmcat's.
func IsOLMJob(job *batchv1.Job) bool {
	p := job.Spec.Template.Spec
	for _, c := range p.InitContainers {
		if c.Name == "util" && slices.Equal(c.Command, olmUtilCommand) {
			return true
		}
	}
	for _, c := range p.Containers {
		if c.Name == "extract" && len(c.Command) >= len(olmExtractCommand) && slices.Equal(c.Command[:len(olmExtractCommand)], olmExtractCommand) {
			return true
		}
	}
	return false
}

// newestOLMJob returns the newest of OLM's unpack Jobs of the bundle
// name: the one named name and OLM's retries, which carry generated names
// and the bundle-unpack-ref label. Nil when there is none.
func newestOLMJob(ctx context.Context, c Clients, namespace, name string) (*batchv1.Job, error) {
	list, err := c.jobs(namespace).List(ctx, metav1.ListOptions{LabelSelector: LabelUnpackRef + "=" + name})
	if err != nil {
		return nil, fmt.Errorf("list jobs of %s/%s: %w", namespace, name, err)
	}
	var newest *batchv1.Job
	for i := range list {
		j := &list[i]
		if IsOLMJob(j) && (newest == nil || newest.CreationTimestamp.Before(&j.CreationTimestamp)) {
			newest = j
		}
	}
	return newest, nil
}

// jobMatches reports whether have, the Job the API server stored, still
// is want, as OLM decides (equality.Semantic.DeepDerivative): only the
// fields Launch sets are compared, so what admission adds (a webhook's
// resources.limits, defaults) is no drift. The fields Launch may leave
// unset are compared exactly, so that removing them is drift too: the
// deadline (--timeout 0), the pull secrets, and runAsUser/runAsNonRoot.
func jobMatches(want, have *batchv1.Job) bool {
	w, h := ownedJob(want, want), ownedJob(have, want)
	if !equality.Semantic.DeepDerivative(w, h) {
		return false
	}
	ws, hs := w.Spec.Template.Spec, h.Spec.Template.Spec
	var wsc, hsc corev1.PodSecurityContext
	if ws.SecurityContext != nil {
		wsc = *ws.SecurityContext
	}
	if hs.SecurityContext != nil {
		hsc = *hs.SecurityContext
	}
	return equality.Semantic.DeepEqual(w.Spec.ActiveDeadlineSeconds, h.Spec.ActiveDeadlineSeconds) &&
		equality.Semantic.DeepEqual(ws.ImagePullSecrets, hs.ImagePullSecrets) &&
		equality.Semantic.DeepEqual(wsc.RunAsUser, hsc.RunAsUser) &&
		equality.Semantic.DeepEqual(wsc.RunAsNonRoot, hsc.RunAsNonRoot)
}

// ownedJob returns the fields of job that Launch sets for want: labels
// limited to want's keys, and a container's pull policy only where want
// sets one (elsewhere the API server defaults it).
func ownedJob(job, want *batchv1.Job) *batchv1.Job {
	s, p := job.Spec, job.Spec.Template.Spec
	wp := want.Spec.Template.Spec
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Labels: pick(job.Labels, want.Labels), OwnerReferences: job.OwnerReferences},
		Spec: batchv1.JobSpec{
			BackoffLimit:            s.BackoffLimit,
			ActiveDeadlineSeconds:   s.ActiveDeadlineSeconds,
			TTLSecondsAfterFinished: s.TTLSecondsAfterFinished,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Name: s.Template.Name, Labels: pick(s.Template.Labels, want.Spec.Template.Labels)},
				Spec: corev1.PodSpec{
					RestartPolicy:      p.RestartPolicy,
					ServiceAccountName: p.ServiceAccountName,
					ImagePullSecrets:   p.ImagePullSecrets,
					SecurityContext:    p.SecurityContext,
					NodeSelector:       p.NodeSelector,
					Tolerations:        p.Tolerations,
					Volumes:            p.Volumes,
					InitContainers:     ownedContainers(p.InitContainers, wp.InitContainers),
					Containers:         ownedContainers(p.Containers, wp.Containers),
				},
			},
		},
	}
}

func ownedContainers(cs, want []corev1.Container) []corev1.Container {
	out := make([]corev1.Container, len(cs))
	for i, c := range cs {
		out[i] = corev1.Container{
			Name: c.Name, Image: c.Image, Command: c.Command, Args: c.Args, Env: c.Env,
			VolumeMounts: c.VolumeMounts, Resources: c.Resources, SecurityContext: c.SecurityContext,
			TerminationMessagePolicy: c.TerminationMessagePolicy,
		}
		if i < len(want) && want[i].ImagePullPolicy != "" {
			out[i].ImagePullPolicy = c.ImagePullPolicy
		}
	}
	return out
}

// pick returns the entries of m under the keys of want.
func pick(m, want map[string]string) map[string]string {
	out := make(map[string]string, len(want))
	for k := range want {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}
