// Package bundle owns the registry+v1 bundle format of the operator
// framework: a bundle directory with its Kubernetes manifests in
// manifests/ and its metadata in metadata/ (annotations.yaml, whose keys
// are declared in bundle/annotation, and the optional dependencies and
// properties files).
//
// MediaType detects the format of a manifests directory. FromFS reads a
// bundle directory, from disk or from an unpacked bundle image, into the
// olm.bundle blob opm render gives for it; ReadMetadata reads only
// metadata/, which says where the bundle goes (package, channels, default
// channel).
//
// Generate writes a bundle directory's metadata/annotations.yaml and
// bundle.Dockerfile as opm alpha bundle generate does.
//
// Two subpackages complete it. bundle/bundlecheck is validation, opm's
// bundle validators with their messages: it is as large as the rest
// together, has its own vocabulary (reports, stages, optional
// validators), and keeps its name because Go type names of the package
// show in its messages. bundle/bundleimage builds a bundle image; it is
// the only part that imports package image, so that reading bundles
// (which declcfg's index ops do) never pulls in images.
//
// What moves bundles through a cluster (a Job unpacking a bundle image
// into a ConfigMap) is package unpack; it shares the annotation keys.
package bundle
