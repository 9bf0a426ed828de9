package unpack

import (
	"context"
	"fmt"

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
func ensureRBAC(ctx context.Context, c Clients, namespace, name string, owner metav1.OwnerReference) error {
	meta := func() metav1.ObjectMeta {
		return metav1.ObjectMeta{
			Name: name, Namespace: namespace,
			Labels:          map[string]string{LabelManaged: "true"},
			OwnerReferences: []metav1.OwnerReference{owner},
		}
	}
	sa := &corev1.ServiceAccount{ObjectMeta: meta()}
	if _, err := c.Kube.CoreV1().ServiceAccounts(namespace).Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create serviceaccount %s/%s: %w", namespace, name, err)
	}
	if err := ensureRole(ctx, c, &rbacv1.Role{ObjectMeta: meta(), Rules: []rbacv1.PolicyRule{configMapRule(name)}}); err != nil {
		return err
	}
	return ensureRoleBinding(ctx, c, &rbacv1.RoleBinding{
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

// ensureRole creates want, or appends its rule to an existing Role that
// lacks it.
func ensureRole(ctx context.Context, c Clients, want *rbacv1.Role) error {
	roles := c.Kube.RbacV1().Roles(want.Namespace)
	_, err := roles.Create(ctx, want, metav1.CreateOptions{})
	if err == nil {
		return nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create role %s/%s: %w", want.Namespace, want.Name, err)
	}
	have, err := roles.Get(ctx, want.Name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get role %s/%s: %w", want.Namespace, want.Name, err)
	}
	for _, r := range have.Rules {
		if equality.Semantic.DeepEqual(r, want.Rules[0]) {
			return nil
		}
	}
	have.Rules = append(have.Rules, want.Rules[0])
	if _, err := roles.Update(ctx, have, metav1.UpdateOptions{}); err != nil {
		return fmt.Errorf("update role %s/%s: %w", want.Namespace, want.Name, err)
	}
	return nil
}

// ensureRoleBinding creates want, or replaces an existing RoleBinding whose
// subjects or role differ (roleRef is immutable, so it is deleted and
// created again).
func ensureRoleBinding(ctx context.Context, c Clients, want *rbacv1.RoleBinding) error {
	rbs := c.Kube.RbacV1().RoleBindings(want.Namespace)
	for attempt := 0; attempt < 2; attempt++ {
		_, err := rbs.Create(ctx, want, metav1.CreateOptions{})
		if err == nil {
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
			return nil
		}
		if err := rbs.Delete(ctx, want.Name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete drifted rolebinding %s/%s: %w", want.Namespace, want.Name, err)
		}
	}
	return fmt.Errorf("rolebinding %s/%s: replaced concurrently", want.Namespace, want.Name)
}
