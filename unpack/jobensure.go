package unpack

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// ensureJob creates want (unless it is missing and keepMissing), keeps an
// existing Job that matches it (jobMatches), and deletes and recreates one
// whose spec or owners drifted.
func ensureJob(ctx context.Context, c Clients, want *batchv1.Job, keepMissing bool) error {
	jobs := c.jobs(want.Namespace)
	have, err := jobs.Get(ctx, want.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err) && keepMissing:
		return nil
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("get job %s/%s: %w", want.Namespace, want.Name, err)
	case jobMatches(want, have):
		return nil
	default:
		// Background propagation removes the Job at once; its pods are left
		// to the garbage collector.
		policy := metav1.DeletePropagationBackground
		err := jobs.Delete(ctx, want.Name, metav1.DeleteOptions{
			PropagationPolicy: &policy,
			Preconditions:     &metav1.Preconditions{UID: ptr.To(have.UID)},
		})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete drifted job %s/%s: %w", want.Namespace, want.Name, err)
		}
	}
	if _, err := jobs.Create(ctx, want, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create job %s/%s: %w", want.Namespace, want.Name, err)
	}
	return nil
}

// jobMatches reports whether have, the Job the API server stored, still
// is want: every field Launch sets must be equal, including those want
// leaves unset (a deadline or pull secret removed since the Job was made).
// Fields Launch does not set are the API server's (defaults, its labels
// on the pod template) and are not compared.
func jobMatches(want, have *batchv1.Job) bool {
	return equality.Semantic.DeepEqual(ownedJob(want, want), ownedJob(have, want))
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
