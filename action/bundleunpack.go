package action

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/operator-catalog/olmcat/unpack"
)

// BundleUnpack unpacks a bundle image on a cluster as OLM's catalog
// operator does (package unpack): it ensures the ConfigMap, the
// ServiceAccount, Role and RoleBinding and the Job that writes the bundle
// into the ConfigMap, then, with Wait, polls until the lookup is no
// longer pending, telling each new state through the log. A failed
// lookup is a result, not an error: the caller words how to retry.
type BundleUnpack struct {
	Env
	Clients unpack.Clients
	// Image is the bundle image, Namespace that of the unpack objects.
	Image, Namespace string
	// UtilImage and OpmImage are the images of the Job's two roles, both
	// holding olmcat at ToolBinary ("": unpack.DefaultToolBinary).
	UtilImage, OpmImage, ToolBinary string
	// CatalogSource, if set, owns the ConfigMap and gives its pull
	// secrets; PullSecrets are the namespace's, after those.
	CatalogSource *unpack.CatalogSourceRef
	PullSecrets   []string
	// RunAsUser is the pods' user (0 or less: none; unpack's default is
	// unpack.DefaultRunAsUser), Timeout the Job's deadline (0: none;
	// unpack's default is unpack.DefaultTimeout).
	RunAsUser int64
	Timeout   time.Duration
	// MinRetryInterval, if set, replaces a Job that failed at least that
	// long ago; ExtraMetadata stores the bundle's other metadata files.
	MinRetryInterval time.Duration
	ExtraMetadata    bool
	// Wait polls every Poll (0: 2s) until the lookup is no longer
	// pending, for at most WaitTimeout (0: Timeout plus one minute).
	Wait              bool
	WaitTimeout, Poll time.Duration
	// Cleanup deletes every unpack object once the bundle loaded.
	Cleanup bool
}

// BundleUnpackResult is the state of the unpack (what OLM's
// BundleLookup says) and whether the objects were deleted.
type BundleUnpackResult struct {
	Lookup    *unpack.BundleLookup
	CleanedUp bool
}

// Run launches (or finds) the unpack, waits for it with Wait, and with
// Cleanup deletes its objects once the bundle loaded. A lookup got
// before an error is in the result.
func (u BundleUnpack) Run(ctx context.Context) (BundleUnpackResult, error) {
	if u.Cleanup && u.CatalogSource != nil {
		return BundleUnpackResult{}, usagef("BundleUnpack.Cleanup", "cleanup deletes the ConfigMap OLM reads for the catalog source")
	}
	opts := u.options()
	lookup, err := unpack.Launch(ctx, u.Clients, u.Image, u.Namespace, opts...)
	var missing *unpack.MissingImageError
	if errors.As(err, &missing) {
		return BundleUnpackResult{}, usage("", fmt.Errorf("bundle unpack %s: %w", u.Image, err))
	}
	if err != nil {
		return BundleUnpackResult{}, fmt.Errorf("bundle unpack %s: %w", u.Image, err)
	}
	if u.Wait && lookup.Pending() {
		if lookup, err = u.wait(ctx, opts); err != nil {
			return BundleUnpackResult{}, fmt.Errorf("bundle unpack %s: %w", u.Image, err)
		}
	}
	res := BundleUnpackResult{Lookup: lookup}
	if !u.Cleanup || lookup.Manifest == nil || lookup.Failed() != nil {
		return res, nil
	}
	if err := unpack.Cleanup(ctx, u.Clients, u.Image, u.Namespace); err != nil {
		return res, fmt.Errorf("bundle unpack %s: cleanup: %w", u.Image, err)
	}
	res.CleanedUp = true
	return res, nil
}

// options are the Launch options of u.
func (u BundleUnpack) options() []unpack.LaunchOption {
	opts := []unpack.LaunchOption{
		unpack.WithUtilImage(u.UtilImage), unpack.WithOpmImage(u.OpmImage),
		unpack.WithToolBinary(cmp.Or(u.ToolBinary, unpack.DefaultToolBinary)),
		unpack.WithTimeout(u.Timeout), unpack.WithRunAsUser(u.RunAsUser), unpack.WithPullSecrets(u.PullSecrets...),
		unpack.WithMinRetryInterval(u.MinRetryInterval), unpack.WithExtraMetadata(u.ExtraMetadata),
	}
	if u.CatalogSource != nil {
		opts = append(opts, unpack.WithCatalogSource(*u.CatalogSource))
	}
	return opts
}

// wait polls the lookup until it is no longer pending, telling each new
// state.
func (u BundleUnpack) wait(ctx context.Context, opts []unpack.LaunchOption) (*unpack.BundleLookup, error) {
	limit := cmp.Or(u.WaitTimeout, u.Timeout+time.Minute)
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	last := ""
	for {
		lookup, err := unpack.Lookup(ctx, u.Clients, u.Image, u.Namespace, opts...)
		if err == nil && lookup.Pending() && lookup.Conditions[0].Reason == unpack.ReasonJobNotStarted {
			// The Job is gone or being deleted (its TTL, a cleanup):
			// Launch waits for it and starts a fresh one.
			lookup, err = unpack.Launch(ctx, u.Clients, u.Image, u.Namespace, opts...)
		}
		if err != nil {
			return nil, err
		}
		if !lookup.Pending() {
			return lookup, nil
		}
		if c := lookup.Conditions[0]; c.Reason+c.Message != last {
			last = c.Reason + c.Message
			u.logf("waiting: %s: %s", c.Reason, c.Message)
		}
		select {
		case <-ctx.Done():
			c := lookup.Conditions[0]
			return nil, fmt.Errorf("still pending after %s (%s: %s); run again to keep waiting (the Job keeps running until its deadline)", limit, c.Reason, c.Message)
		case <-time.After(cmp.Or(u.Poll, 2*time.Second)):
		}
	}
}
