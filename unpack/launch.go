package unpack

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Defaults of Launch.
const (
	// DefaultToolBinary is the binary's path inside the util and opm role
	// images (olmcat's own image holds it there).
	DefaultToolBinary = "/bin/olmcat"
	// DefaultTimeout is the unpack Job's activeDeadlineSeconds.
	DefaultTimeout = 10 * time.Minute
	// DefaultRunAsUser is the pod's runAsUser, as in OLM's chart.
	DefaultRunAsUser = 1001
)

// LaunchOption configures Launch and Lookup.
type LaunchOption func(*launchOptions)

type launchOptions struct {
	catalogSource *CatalogSourceRef
	utilImage     string
	opmImage      string
	toolBinary    string
	timeout       time.Duration
	runAsUser     int64
	pullSecrets   []string
	retryAfter    time.Duration
	extra         bool
}

// WithCatalogSource makes the CatalogSource ref the owner of the unpack
// ConfigMap (so deleting the catalog removes everything) and the source of
// the Job's image pull secrets. It must be in the unpack namespace.
func WithCatalogSource(ref CatalogSourceRef) LaunchOption {
	return func(o *launchOptions) { o.catalogSource = &ref }
}

// WithUtilImage sets the image of the Job's util role, whose binary is
// copied into the bundle image's pod to copy the bundle out (OLM's util
// image with cpb). There is no default: Launch refuses without one.
func WithUtilImage(image string) LaunchOption {
	return func(o *launchOptions) { o.utilImage = image }
}

// WithOpmImage sets the image of the Job's opm role, which writes the
// bundle into the ConfigMap (OLM's opm image). There is no default:
// Launch refuses without one.
func WithOpmImage(image string) LaunchOption {
	return func(o *launchOptions) { o.opmImage = image }
}

// WithToolBinary sets the binary's path inside the util and opm role
// images (DefaultToolBinary).
func WithToolBinary(p string) LaunchOption {
	return func(o *launchOptions) { o.toolBinary = p }
}

// WithTimeout sets the Job's activeDeadlineSeconds, rounded up to whole
// seconds; 0 means no deadline (DefaultTimeout).
func WithTimeout(d time.Duration) LaunchOption {
	return func(o *launchOptions) { o.timeout = d }
}

// WithRunAsUser sets the pod's runAsUser (with runAsNonRoot); 0 or less
// sets neither, leaving the user to the image and the cluster (OpenShift
// assigns one from the namespace's range), as OLM does when its runAsUser
// is not configured (DefaultRunAsUser).
func WithRunAsUser(uid int64) LaunchOption {
	return func(o *launchOptions) { o.runAsUser = uid }
}

// WithPullSecrets adds pull secrets of the unpack namespace to the Job,
// after those of the CatalogSource.
func WithPullSecrets(names ...string) LaunchOption {
	return func(o *launchOptions) { o.pullSecrets = append(o.pullSecrets, names...) }
}

// WithMinRetryInterval replaces a failed unpack Job by a fresh one once it
// failed at least d ago, the semantics of OLM's
// operatorframework.io/bundle-unpack-min-retry-interval; 0 (the default)
// never retries.
func WithMinRetryInterval(d time.Duration) LaunchOption {
	return func(o *launchOptions) { o.retryAfter = d }
}

// WithExtraMetadata makes the Job copy every metadata file of the bundle
// and keep every bundle annotation and the key-to-file map in the
// ConfigMap (jobtool.WithExtraMetadata). By default the ConfigMap holds
// what OLM's unpacker writes.
func WithExtraMetadata(extra bool) LaunchOption {
	return func(o *launchOptions) { o.extra = extra }
}

func newLaunchOptions(opts []LaunchOption) launchOptions {
	o := launchOptions{toolBinary: DefaultToolBinary, timeout: DefaultTimeout, runAsUser: DefaultRunAsUser}
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// MissingImageError is Launch's refusal to build a Job with a role that
// has no image: the pod could never start.
type MissingImageError struct {
	// Roles are the roles without an image: "util", "opm".
	Roles []string
}

func (e *MissingImageError) Error() string {
	return fmt.Sprintf("no image for the unpack Job's %s role: name an image holding olmcat (olmcat's own image, built by make image) for each role",
		strings.Join(e.Roles, " and "))
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
	if err := o.validateImages(); err != nil {
		return nil, err
	}
	if err := checkAccess(ctx, c, namespace, launchPermissions(o.catalogSource != nil)); err != nil {
		return nil, err
	}
	spec := jobSpec{
		name: Name(image), namespace: namespace, image: image,
		utilImage: o.utilImage, opmImage: o.opmImage, toolBinary: o.toolBinary,
		timeoutSeconds: int64((o.timeout + time.Second - 1) / time.Second),
		runAsUser:      o.runAsUser, extra: o.extra,
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
	if err := ensureObjects(ctx, c, spec, owner, o, &u); err != nil {
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
func ensureObjects(ctx context.Context, c Clients, spec jobSpec, owner *metav1.OwnerReference, o launchOptions, u *undo) error {
	cm, err := ensureConfigMap(ctx, c, spec.namespace, spec.name, owner, u)
	if err != nil {
		return err
	}
	if owner == nil {
		// Run without the CatalogSource that owns the ConfigMap: its pull
		// secrets still apply, or the Job would lose them.
		if spec.pullSecrets, err = ownerSecrets(ctx, c, cm); err != nil {
			return err
		}
	}
	spec.pullSecrets = appendNew(spec.pullSecrets, o.pullSecrets...)
	spec.owner = metav1.OwnerReference{
		APIVersion: "v1", Kind: "ConfigMap", Name: cm.Name, UID: cm.UID,
		Controller: ptr.To(false), BlockOwnerDeletion: ptr.To(false),
	}
	if err := ensureRBAC(ctx, c, spec.namespace, spec.name, spec.owner, u); err != nil {
		return err
	}
	// A ConfigMap that holds the bundle is the result, whatever Job there
	// is (one its TTL removed, one an admission webhook changed): the
	// bundle is not unpacked twice.
	if len(cm.Data)+len(cm.BinaryData) > 0 && loadsBundle(cm) {
		return nil
	}
	return ensureJob(ctx, c, spec.build(), o.retryAfter)
}

// ownerSecrets returns the pull secrets of the CatalogSources owning cm.
func ownerSecrets(ctx context.Context, c Clients, cm *corev1.ConfigMap) ([]string, error) {
	var secrets []string
	for _, ref := range cm.OwnerReferences {
		if ref.Kind != "CatalogSource" || ref.APIVersion != CatalogSourceGVR.GroupVersion().String() {
			continue
		}
		cs, err := c.getCatalogSource(ctx, CatalogSourceRef{Namespace: cm.Namespace, Name: ref.Name})
		if apierrors.IsNotFound(err) {
			continue // the garbage collector removes cm soon
		}
		if err != nil {
			return nil, fmt.Errorf("configmap %s/%s is owned by catalogsource %s, whose pull secrets the Job needs: %w", cm.Namespace, cm.Name, ref.Name, err)
		}
		secrets = appendNew(secrets, catalogSecrets(cs.Object)...)
	}
	return secrets, nil
}

// appendNew appends the names not yet in list.
func appendNew(list []string, names ...string) []string {
	for _, n := range names {
		if !slices.Contains(list, n) {
			list = append(list, n)
		}
	}
	return list
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
	case o.retryAfter < 0:
		return fmt.Errorf("negative retry interval %s", o.retryAfter)
	}
	return checkReference("bundle image", image)
}

// validateImages refuses a Job whose pod could never start: a role
// without an image, or a reference the kubelet cannot pull.
func (o launchOptions) validateImages() error {
	var missing []string
	for _, r := range []struct{ role, image string }{{"util", o.utilImage}, {"opm", o.opmImage}} {
		if r.image == "" {
			missing = append(missing, r.role)
		} else if err := checkReference(r.role+" image", r.image); err != nil {
			return err
		}
	}
	if missing != nil {
		return &MissingImageError{Roles: missing}
	}
	return nil
}

func checkReference(what, image string) error {
	if _, err := name.ParseReference(image); err != nil {
		return fmt.Errorf("%s %q is not an image reference ([registry/]repository[:tag][@digest])", what, image)
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
