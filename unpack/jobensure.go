package unpack

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// ensureJob creates want (unless it is missing and keepMissing), keeps an
// existing Job that is a semantic derivative of it (fields the API server
// defaulted are ignored), and deletes and recreates one whose spec or
// owners drifted.
func ensureJob(ctx context.Context, c Clients, want *batchv1.Job, keepMissing bool) error {
	jobs := c.Kube.BatchV1().Jobs(want.Namespace)
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

// jobMatches reports whether have is want as the API server stored it.
func jobMatches(want, have *batchv1.Job) bool {
	return equality.Semantic.DeepDerivative(want.OwnerReferences, have.OwnerReferences) &&
		equality.Semantic.DeepDerivative(want.Spec, have.Spec)
}
