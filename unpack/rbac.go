package unpack

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ensureRBAC gives the unpack Job's ServiceAccount the right to write its
// ConfigMap and nothing else: a Role with one rule on that ConfigMap by
// name, bound to the ServiceAccount. RBAC cannot limit create by name, so
// the effective rights are get and update, which is all Extract needs.
func ensureRBAC(ctx context.Context, c Clients, namespace, name string, owner metav1.OwnerReference, u *undo) error {
	meta := func() metav1.ObjectMeta {
		return metav1.ObjectMeta{
			Name: name, Namespace: namespace,
			Labels:          map[string]string{LabelManaged: "true"},
			OwnerReferences: []metav1.OwnerReference{owner},
		}
	}
	if err := ensureServiceAccount(ctx, c, u, &corev1.ServiceAccount{ObjectMeta: meta()}); err != nil {
		return err
	}
	if err := ensureRole(ctx, c, u, &rbacv1.Role{ObjectMeta: meta(), Rules: []rbacv1.PolicyRule{configMapRule(name)}}); err != nil {
		return err
	}
	return ensureRoleBinding(ctx, c, u, &rbacv1.RoleBinding{
		ObjectMeta: meta(),
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: namespace}},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name},
	})
}

func configMapRule(name string) rbacv1.PolicyRule {
	return rbacv1.PolicyRule{
		APIGroups:     []string{""},
		Resources:     []string{"configmaps"},
		ResourceNames: []string{name},
		Verbs:         []string{"create", "get", "update"},
	}
}

// ensureServiceAccount creates want, or points an existing one at want's
// owner.
func ensureServiceAccount(ctx context.Context, c Clients, u *undo, want *corev1.ServiceAccount) error {
	sas := c.serviceAccounts(want.Namespace)
	sa, err := sas.Create(ctx, want, metav1.CreateOptions{})
	if err == nil {
		u.created(sas, sa)
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create serviceaccount %s/%s: %w", want.Namespace, want.Name, err)
	}
	have, err := sas.Get(ctx, want.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get serviceaccount %s/%s: %w", want.Namespace, want.Name, err)
	}
	if !reown(&have.ObjectMeta, want.OwnerReferences[0]) {
		return nil
	}
	if _, err := sas.Update(ctx, have, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update owner of serviceaccount %s/%s: %w", want.Namespace, want.Name, err)
	}
	return nil
}

// reown makes owner, the unpack ConfigMap, an owner of obj in place of any
// earlier ConfigMap of that name (one deleted and created again: the
// garbage collector would delete obj under the new Job). It reports
// whether obj changed.
func reown(obj *metav1.ObjectMeta, owner metav1.OwnerReference) bool {
	refs := obj.OwnerReferences[:0:0]
	found := false
	for _, r := range obj.OwnerReferences {
		switch {
		case r.UID == owner.UID:
			found = true
			refs = append(refs, r)
		case r.APIVersion == owner.APIVersion && r.Kind == owner.Kind && r.Name == owner.Name:
			// a ConfigMap of the same name that no longer exists
		default:
			refs = append(refs, r)
		}
	}
	if found && len(refs) == len(obj.OwnerReferences) {
		return false
	}
	if !found {
		refs = append(refs, owner)
	}
	obj.OwnerReferences = refs
	return true
}

// ensureRole creates want, or appends its rule to an existing Role that
// lacks it and points it at want's owner.
func ensureRole(ctx context.Context, c Clients, u *undo, want *rbacv1.Role) error {
	roles := c.roles(want.Namespace)
	role, err := roles.Create(ctx, want, metav1.CreateOptions{})
	if err == nil {
		u.created(roles, role)
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create role %s/%s: %w", want.Namespace, want.Name, err)
	}
	have, err := roles.Get(ctx, want.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get role %s/%s: %w", want.Namespace, want.Name, err)
	}
	changed := reown(&have.ObjectMeta, want.OwnerReferences[0])
	if !slices.ContainsFunc(have.Rules, func(r rbacv1.PolicyRule) bool { return equality.Semantic.DeepEqual(r, want.Rules[0]) }) {
		have.Rules = append(have.Rules, want.Rules[0])
		changed = true
	}
	if !changed {
		return nil
	}
	if _, err := roles.Update(ctx, have, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update role %s/%s: %w", want.Namespace, want.Name, err)
	}
	return nil
}

// ensureRoleBinding creates want, or replaces an existing RoleBinding whose
// subjects or role differ (roleRef is immutable, so it is deleted and
// created again), or points one that matches at want's owner.
func ensureRoleBinding(ctx context.Context, c Clients, u *undo, want *rbacv1.RoleBinding) error {
	rbs := c.roleBindings(want.Namespace)
	for attempt := 0; attempt < 2; attempt++ {
		rb, err := rbs.Create(ctx, want, metav1.CreateOptions{})
		if err == nil {
			u.created(rbs, rb)
			return nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create rolebinding %s/%s: %w", want.Namespace, want.Name, err)
		}
		have, err := rbs.Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("get rolebinding %s/%s: %w", want.Namespace, want.Name, err)
		}
		if equality.Semantic.DeepEqual(have.Subjects, want.Subjects) && have.RoleRef == want.RoleRef {
			if !reown(&have.ObjectMeta, want.OwnerReferences[0]) {
				return nil
			}
			if _, err := rbs.Update(ctx, have, metav1.UpdateOptions{}); err != nil {
				return fmt.Errorf("update owner of rolebinding %s/%s: %w", want.Namespace, want.Name, err)
			}
			return nil
		}
		if err := rbs.Delete(ctx, want.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete drifted rolebinding %s/%s: %w", want.Namespace, want.Name, err)
		}
	}
	return fmt.Errorf("rolebinding %s/%s: replaced concurrently", want.Namespace, want.Name)
}
