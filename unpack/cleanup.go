package unpack

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrManagedByOLM is Cleanup's refusal to delete unpack objects that OLM's
// catalog operator uses: its own Job, or a ConfigMap a CatalogSource owns
// (OLM reads the bundle from it and would unpack it again).
var ErrManagedByOLM = errors.New("managed by OLM's catalog operator")

// Cleanup deletes the unpack objects of image in namespace once the
// bundle has been read: the Job (its pods are left to the garbage
// collector), RoleBinding, Role, ServiceAccount and last the ConfigMap, the
// owner of the rest (so an interrupted Cleanup leaves the garbage
// collector to finish). Objects already gone are no error. It deletes
// nothing, returning ErrManagedByOLM, when OLM has a Job for the bundle
// or a CatalogSource owns the ConfigMap.
func Cleanup(ctx context.Context, c Clients, image, namespace string) error {
	name := Name(image)
	cm, err := c.configMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("get configmap %s/%s: %w", namespace, name, err)
	default:
		for _, ref := range cm.OwnerReferences {
			if ref.Kind == "CatalogSource" {
				return fmt.Errorf("configmap %s/%s is owned by catalogsource %s: %w", namespace, name, ref.Name, ErrManagedByOLM)
			}
		}
	}
	job, err := c.jobs(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("get job %s/%s: %w", namespace, name, err)
	}
	if err != nil || !IsOLMJob(job) {
		if job, err = newestOLMJob(ctx, c, namespace, name); err != nil {
			return err
		}
	}
	if job != nil {
		return fmt.Errorf("job %s/%s is OLM's: %w", namespace, job.Name, ErrManagedByOLM)
	}
	background := metav1.DeletePropagationBackground
	steps := []struct {
		kind string
		d    deleter
		opts metav1.DeleteOptions
	}{
		{"job", c.jobs(namespace), metav1.DeleteOptions{PropagationPolicy: &background}},
		{"rolebinding", c.roleBindings(namespace), metav1.DeleteOptions{}},
		{"role", c.roles(namespace), metav1.DeleteOptions{}},
		{"serviceaccount", c.serviceAccounts(namespace), metav1.DeleteOptions{}},
		{"configmap", c.configMaps(namespace), metav1.DeleteOptions{}},
	}
	var errs []string
	for _, s := range steps {
		if err := s.d.Delete(ctx, name, s.opts); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Sprintf("delete %s %s/%s: %v", s.kind, namespace, name, err))
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}
