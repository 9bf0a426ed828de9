package unpack

import (
	"context"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BundleLookup condition types and reasons, as in OLM's InstallPlan
// status.bundleLookups.
const (
	ConditionPending = "BundleLookupPending"
	ConditionFailed  = "BundleLookupFailed"

	ReasonCatalogSourceMissing = "CatalogSourceMissing"
	ReasonJobNotStarted        = "JobNotStarted"
	ReasonJobIncomplete        = "JobIncomplete"
	// ReasonInvalidBundle fails a lookup whose Job completed but whose
	// ConfigMap does not load (OLM calls this ErrorPreventedUnpacking).
	ReasonInvalidBundle = "ErrorPreventedUnpacking"
)

// Condition is one BundleLookup condition.
type Condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// BundleLookup is the unpack state of one bundle image. No conditions means
// unpacked: Manifest holds the bundle.
type BundleLookup struct {
	Image      string      `json:"path"`
	Namespace  string      `json:"namespace"`
	Name       string      `json:"name"`
	Conditions []Condition `json:"conditions,omitempty"`
	// ManagedByOLM is set when the unpack Job is OLM's catalog operator's
	// (IsOLMJob): its result is reported, and only OLM replaces it.
	ManagedByOLM bool      `json:"managedByOLM,omitempty"`
	Manifest     *Manifest `json:"-"`
}

// Pending reports whether the lookup waits for something.
func (l *BundleLookup) Pending() bool { return l.condition(ConditionPending) != nil }

// Failed returns the failure condition, or nil.
func (l *BundleLookup) Failed() *Condition { return l.condition(ConditionFailed) }

func (l *BundleLookup) condition(t string) *Condition {
	for i := range l.Conditions {
		if l.Conditions[i].Type == t {
			return &l.Conditions[i]
		}
	}
	return nil
}

func newLookup(image, namespace, name string, conds ...Condition) *BundleLookup {
	return &BundleLookup{Image: image, Namespace: namespace, Name: name, Conditions: conds}
}

func pending(reason, message string) Condition {
	return Condition{Type: ConditionPending, Status: "True", Reason: reason, Message: message}
}

// Lookup reads the unpack state of image in namespace without changing
// anything: CatalogSourceMissing when the catalog (WithCatalogSource) does
// not exist; the bundle when the ConfigMap holds one, whatever Job there
// is (the Job is deleted some time after it finished); JobNotStarted
// without a Job or with one being deleted; BundleLookupFailed with the
// Job's failure reason and message (DeadlineExceeded,
// BackoffLimitExceeded); JobIncomplete (with the containers of pending
// unpack pods) until the Job completes; and a failure when the completed
// Job left a ConfigMap that does not load. The Job may be OLM's catalog
// operator's (ManagedByOLM).
func Lookup(ctx context.Context, c Clients, image, namespace string, opts ...LaunchOption) (*BundleLookup, error) {
	o := newLaunchOptions(opts)
	if err := o.validate(image, namespace); err != nil {
		return nil, err
	}
	name := Name(image)
	if ref := o.catalogSource; ref != nil {
		if _, err := c.getCatalogSource(ctx, *ref); apierrors.IsNotFound(err) {
			return newLookup(image, namespace, name, pending(ReasonCatalogSourceMissing, "referenced catalogsource not found")), nil
		} else if err != nil {
			return nil, fmt.Errorf("get catalogsource %s: %w", ref, err)
		}
	}
	job, err := c.jobs(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("get job %s/%s: %w", namespace, name, err)
	}
	olm := err == nil && IsOLMJob(job)
	// OLM's catalog operator decides while it has a Job (a retry of its
	// own carries a generated name).
	if newest, lerr := newestOLMJob(ctx, c, namespace, name); lerr != nil {
		return nil, lerr
	} else if newest != nil {
		job, err, olm = newest, nil, true
	}
	if m := loadUnpacked(ctx, c, namespace, name); m != nil {
		l := newLookup(image, namespace, name)
		l.Manifest, l.ManagedByOLM = m, olm
		return l, nil
	}
	if apierrors.IsNotFound(err) {
		return newLookup(image, namespace, name, pending(ReasonJobNotStarted, "unpack job not yet started")), nil
	}
	l, err := jobLookup(ctx, c, image, job)
	if err != nil {
		return nil, err
	}
	l.ManagedByOLM = olm
	return l, nil
}

// jobLookup is the state of an unpack whose ConfigMap holds no bundle yet,
// from its Job.
func jobLookup(ctx context.Context, c Clients, image string, job *batchv1.Job) (*BundleLookup, error) {
	namespace, name := job.Namespace, job.Name
	if job.DeletionTimestamp != nil {
		return newLookup(image, namespace, name, pending(ReasonJobNotStarted,
			fmt.Sprintf("unpack job %s/%s is being deleted; unpacking starts again once it is gone", namespace, name))), nil
	}
	if cond := jobCondition(job, batchv1.JobFailed); cond != nil {
		return newLookup(image, namespace, name, Condition{
			Type: ConditionFailed, Status: "True", Reason: cond.Reason, Message: cond.Message,
		}), nil
	}
	if jobCondition(job, batchv1.JobComplete) == nil {
		msg, err := pendingPods(ctx, c, job)
		if err != nil {
			return nil, err
		}
		return newLookup(image, namespace, name, pending(ReasonJobIncomplete, msg)), nil
	}
	cm, err := c.configMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get configmap %s/%s: %w", namespace, name, err)
	}
	m, err := Load(cm)
	if err != nil {
		return newLookup(image, namespace, name, Condition{
			Type: ConditionFailed, Status: "True", Reason: ReasonInvalidBundle, Message: err.Error(),
		}), nil
	}
	// Written since loadUnpacked looked.
	l := newLookup(image, namespace, name)
	l.Manifest = m
	return l, nil
}

// loadUnpacked returns the bundle the unpack ConfigMap holds, or nil when
// it is missing, empty or does not load.
func loadUnpacked(ctx context.Context, c Clients, namespace, name string) *Manifest {
	cm, err := c.configMaps(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil || len(cm.Data)+len(cm.BinaryData) == 0 {
		return nil
	}
	m, err := Load(cm)
	if err != nil {
		return nil
	}
	return m
}

func jobCondition(job *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range job.Status.Conditions {
		if c := &job.Status.Conditions[i]; c.Type == t && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// pendingPods describes why the Job's pending pods wait (an image that
// cannot be pulled never fails the Job, it only times out), as OLM's
// message does.
func pendingPods(ctx context.Context, c Clients, job *batchv1.Job) (string, error) {
	msg := "unpack job not completed"
	pods, err := c.pods(job.Namespace).List(ctx, metav1.ListOptions{LabelSelector: "job-name=" + job.Name})
	if err != nil {
		return "", fmt.Errorf("list pods of job %s/%s: %w", job.Namespace, job.Name, err)
	}
	var waiting []string
	for _, pod := range pods {
		if pod.Status.Phase != corev1.PodPending {
			continue
		}
		for _, st := range pod.Status.InitContainerStatuses {
			// A terminated init container is done; a running one, or one
			// waiting without a reason, is still pending.
			if st.Ready || st.State.Terminated != nil {
				continue
			}
			msg := fmt.Sprintf("Unpack pod(%s/%s) container(%s) is pending.", pod.Namespace, pod.Name, st.Name)
			if w := st.State.Waiting; w != nil && w.Reason+w.Message != "" {
				msg += fmt.Sprintf(" Reason: %s, Message: %s", w.Reason, w.Message)
			}
			waiting = append(waiting, msg)
		}
	}
	if len(waiting) > 0 {
		msg += ": " + strings.Join(waiting, " | ")
	}
	return msg, nil
}
