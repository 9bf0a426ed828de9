package unpack

import (
	"context"
	"fmt"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Defaults of Launch.
const (
	// DefaultToolImage is the image holding this toolkit's static binary.
	DefaultToolImage = "olmcat:latest"
	// DefaultToolBinary is the binary's path inside DefaultToolImage.
	DefaultToolBinary = "/bin/olmcat"
	// DefaultTimeout is the unpack Job's activeDeadlineSeconds.
	DefaultTimeout = 10 * time.Minute
)

// LaunchOption configures Launch and Lookup.
type LaunchOption func(*launchOptions)

type launchOptions struct {
	catalogSource *CatalogSourceRef
	toolImage     string
	toolBinary    string
	timeout       time.Duration
}

// WithCatalogSource makes the CatalogSource ref the owner of the unpack
// ConfigMap (so deleting the catalog removes everything) and the source of
// the Job's image pull secrets. It must be in the unpack namespace.
func WithCatalogSource(ref CatalogSourceRef) LaunchOption {
	return func(o *launchOptions) { o.catalogSource = &ref }
}

// WithToolImage sets the image whose static binary plays the copier and
// the extractor (DefaultToolImage).
func WithToolImage(image string) LaunchOption {
	return func(o *launchOptions) { o.toolImage = image }
}

// WithToolBinary sets the binary's path inside the tool image
// (DefaultToolBinary).
func WithToolBinary(p string) LaunchOption {
	return func(o *launchOptions) { o.toolBinary = p }
}

// WithTimeout sets the Job's activeDeadlineSeconds; 0 means no deadline
// (DefaultTimeout).
func WithTimeout(d time.Duration) LaunchOption {
	return func(o *launchOptions) { o.timeout = d }
}

func newLaunchOptions(opts []LaunchOption) launchOptions {
	o := launchOptions{toolImage: DefaultToolImage, toolBinary: DefaultToolBinary, timeout: DefaultTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// Launch ensures the objects that unpack image into namespace, all named
// Name(image) and labelled olm.managed=true: the ConfigMap (owned by the
// CatalogSource when one is given), and, owned by the ConfigMap, a
// ServiceAccount, a Role allowing create/get/update on that ConfigMap only,
// a RoleBinding of the one to the other, and the Job. It is idempotent:
// existing objects are reused, a Role missing the rule gets it, a drifted
// RoleBinding is recreated and a Job whose spec drifted from the one Launch
// builds is deleted and recreated; a missing Job is not recreated when the
// ConfigMap already holds a bundle that loads. It returns the state as Lookup does;
// with a CatalogSource that does not exist it creates nothing and reports
// CatalogSourceMissing.
//
// Before anything is created it checks that the caller may make every
// request it needs (an *AccessError lists the missing rights), and when a
// step fails anyway (admission: a quota, a webhook) it deletes what this
// run created.
func Launch(ctx context.Context, c Clients, image, namespace string, opts ...LaunchOption) (*BundleLookup, error) {
	o := newLaunchOptions(opts)
	if err := o.validate(image, namespace); err != nil {
		return nil, err
	}
	if err := checkAccess(ctx, c, namespace, launchPermissions(o.catalogSource != nil)); err != nil {
		return nil, err
	}
	spec := jobSpec{
		name: Name(image), namespace: namespace, image: image,
		toolImage: o.toolImage, toolBinary: o.toolBinary,
		timeoutSeconds: int64(o.timeout / time.Second),
	}
	var owner *metav1.OwnerReference
	if ref := o.catalogSource; ref != nil {
		cs, err := c.getCatalogSource(ctx, *ref)
		if apierrors.IsNotFound(err) {
			return newLookup(image, namespace, spec.name, pending(ReasonCatalogSourceMissing, "referenced catalogsource not found")), nil
		}
		if err != nil {
			return nil, fmt.Errorf("get catalogsource %s: %w", ref, err)
		}
		owner = &metav1.OwnerReference{
			APIVersion: cs.GetAPIVersion(), Kind: cs.GetKind(), Name: cs.GetName(), UID: cs.GetUID(),
			Controller: ptr.To(false), BlockOwnerDeletion: ptr.To(false),
		}
		spec.pullSecrets = catalogSecrets(cs.Object)
	}
	var u undo
	if err := ensureObjects(ctx, c, spec, owner, &u); err != nil {
		// Remove what this run created, even when ctx was cancelled.
		if uerr := u.run(context.WithoutCancel(ctx)); uerr != nil {
			return nil, fmt.Errorf("%w (%v)", err, uerr)
		}
		return nil, err
	}
	return Lookup(ctx, c, image, namespace, opts...)
}

// ensureObjects ensures the ConfigMap, its RBAC and the Job of spec,
// recording in u what it creates.
func ensureObjects(ctx context.Context, c Clients, spec jobSpec, owner *metav1.OwnerReference, u *undo) error {
	cm, err := ensureConfigMap(ctx, c, spec.namespace, spec.name, owner, u)
	if err != nil {
		return err
	}
	spec.owner = metav1.OwnerReference{
		APIVersion: "v1", Kind: "ConfigMap", Name: cm.Name, UID: cm.UID,
		Controller: ptr.To(false), BlockOwnerDeletion: ptr.To(false),
	}
	if err := ensureRBAC(ctx, c, spec.namespace, spec.name, spec.owner, u); err != nil {
		return err
	}
	// The ConfigMap may already hold the bundle of a Job its TTL removed:
	// no new Job then, the bundle is not unpacked twice.
	unpacked := len(cm.Data)+len(cm.BinaryData) > 0 && loadsBundle(cm)
	return ensureJob(ctx, c, spec.build(), unpacked)
}

func loadsBundle(cm *corev1.ConfigMap) bool {
	_, err := Load(cm)
	return err == nil
}

func (o launchOptions) validate(image, namespace string) error {
	switch {
	case image == "":
		return fmt.Errorf("no bundle image")
	case namespace == "":
		return fmt.Errorf("no namespace")
	case o.catalogSource != nil && o.catalogSource.Namespace != namespace:
		return fmt.Errorf("catalogsource %s must be in the unpack namespace %s (owner references cannot cross namespaces)", o.catalogSource, namespace)
	case o.timeout < 0:
		return fmt.Errorf("negative timeout %s", o.timeout)
	}
	// A reference the kubelet cannot pull would make a Job whose pod never
	// starts: refuse it before anything is created.
	for _, ref := range []struct{ what, image string }{{"bundle image", image}, {"tool image", o.toolImage}} {
		if _, err := name.ParseReference(ref.image); err != nil {
			return fmt.Errorf("%s %q is not an image reference ([registry/]repository[:tag][@digest])", ref.what, ref.image)
		}
	}
	return nil
}

// catalogSecrets returns the CatalogSource's spec.secrets, the pull
// secrets of its bundle images.
func catalogSecrets(obj map[string]any) []string {
	spec, _ := obj["spec"].(map[string]any)
	list, _ := spec["secrets"].([]any)
	var out []string
	for _, s := range list {
		if name, ok := s.(string); ok && name != "" {
			out = append(out, name)
		}
	}
	return out
}

// ensureConfigMap creates the empty unpack ConfigMap, or makes sure an
// existing one carries the managed label; its owners and data are left as
// they are (a ConfigMap shared by two catalogs keeps its first owner).
func ensureConfigMap(ctx context.Context, c Clients, namespace, name string, owner *metav1.OwnerReference, u *undo) (*corev1.ConfigMap, error) {
	cms := c.configMaps(namespace)
	want := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: name, Namespace: namespace, Labels: map[string]string{LabelManaged: "true"},
	}}
	if owner != nil {
		want.OwnerReferences = []metav1.OwnerReference{*owner}
	}
	cm, err := cms.Create(ctx, want, metav1.CreateOptions{})
	if err == nil {
		u.created(cms, cm)
		return cm, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, fmt.Errorf("create configmap %s/%s: %w", namespace, name, err)
	}
	cm, err = cms.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get configmap %s/%s: %w", namespace, name, err)
	}
	if cm.Labels[LabelManaged] == "true" {
		return cm, nil
	}
	if cm.Labels == nil {
		cm.Labels = map[string]string{}
	}
	cm.Labels[LabelManaged] = "true"
	cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("label configmap %s/%s: %w", namespace, name, err)
	}
	return cm, nil
}
