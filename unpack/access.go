package unpack

import (
	"context"
	"fmt"
	"strings"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// permission is one kind of request Launch makes.
type permission struct {
	group, resource string
	verbs           []string
}

// launchPermissions are the requests Launch may make in its namespace.
// The Role it creates grants create, get and update on the unpack
// ConfigMap, which RBAC only lets a caller holding those rights create.
func launchPermissions(catalogSource bool) []permission {
	perms := []permission{
		{"", "configmaps", []string{"create", "get", "update"}},
		{"", "serviceaccounts", []string{"create", "get", "update"}},
		{"rbac.authorization.k8s.io", "roles", []string{"create", "get", "update"}},
		{"rbac.authorization.k8s.io", "rolebindings", []string{"create", "get", "update", "delete"}},
		{"batch", "jobs", []string{"create", "get", "list", "delete"}},
		{"", "pods", []string{"list"}},
	}
	if catalogSource {
		perms = append(perms, permission{CatalogSourceGVR.Group, CatalogSourceGVR.Resource, []string{"get"}})
	}
	return perms
}

// AccessError lists the requests the caller may not make in Namespace,
// found before Launch created anything.
type AccessError struct {
	Namespace string
	// Denied holds "verb resource[.group]" entries.
	Denied []string
}

func (e *AccessError) Error() string {
	return fmt.Sprintf("not allowed in namespace %s: %s (ask for a Role granting them)", e.Namespace, strings.Join(e.Denied, ", "))
}

// checkAccess asks the API server whether the caller may make every
// request of perms in namespace (SelfSubjectAccessReview), so that a
// caller lacking one learns all that are missing and nothing is created.
func checkAccess(ctx context.Context, c Clients, namespace string, perms []permission) error {
	reviews := c.accessReviews()
	var denied []string
	for _, p := range perms {
		for _, verb := range p.verbs {
			review, err := reviews.Create(ctx, &authorizationv1.SelfSubjectAccessReview{
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
					Namespace: namespace, Verb: verb, Group: p.group, Resource: p.resource,
				}},
			}, metav1.CreateOptions{})
			if err != nil {
				return fmt.Errorf("check access to %s in namespace %s: %w", p.resource, namespace, err)
			}
			if !review.Status.Allowed {
				what := verb + " " + p.resource
				if p.group != "" {
					what += "." + p.group
				}
				denied = append(denied, what)
			}
		}
	}
	if len(denied) > 0 {
		return &AccessError{Namespace: namespace, Denied: denied}
	}
	return nil
}

// undo deletes what one Launch created when a later step fails, so that a
// failed run leaves nothing behind (objects that existed before are kept).
type undo struct {
	steps []func(context.Context) error
}

// deleter deletes objects of one resource by name.
type deleter interface {
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// created records obj, which this run created through d, for deletion;
// its UID is the precondition, so that only that object goes.
func (u *undo) created(d deleter, obj metav1.Object) {
	name, uid := obj.GetName(), obj.GetUID()
	u.steps = append(u.steps, func(ctx context.Context) error {
		return d.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	})
}

// run deletes the recorded objects, newest first, and returns why it
// could not delete any.
func (u *undo) run(ctx context.Context) error {
	var errs []string
	for i := len(u.steps) - 1; i >= 0; i-- {
		if err := u.steps[i](ctx); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err.Error())
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("left behind: %s", strings.Join(errs, "; "))
	}
	return nil
}
