// Package unpack moves operator bundles through a Kubernetes cluster the
// way OLM does: a Job running inside the bundle image extracts its
// manifests and metadata into a ConfigMap, and the ConfigMap is loaded back
// as a bundle.
//
// The pieces, one file each:
//   - jobtool.Extract (package jobtool, what the Job runs, kept free of
//     Kubernetes client libraries) writes a bundle directory into an
//     existing ConfigMap (opm alpha bundle extract): sanitized keys,
//     binaryData for non-UTF-8 content, optional gzip+base64, opm's six
//     bundle annotations, the source image, and the 1 MiB ConfigMap limit
//     checked before anything is written.
//   - Load reads such a ConfigMap back into a Manifest: the CSV, CRDs, other
//     objects, metadata files and an optional PackageManifest.
//   - Launch ensures the ConfigMap, ServiceAccount, Role, RoleBinding and Job
//     that unpack a bundle image on a cluster, all named by Name(image),
//     beside OLM's catalog operator (whose own Job it never deletes);
//     Lookup turns their state into BundleLookup conditions, and Cleanup
//     deletes them.
//   - WriteLocal stores a ConfigMap as <root>/<bundle>.tar.gz, the ConfigMap
//     ("local") bundle source of rukpak.
//   - jobtool.CopyBundle is the copier the Job runs inside the bundle
//     image, which has no shell.
//
// Names, labels, annotations, condition types and reasons are upstream's
// (OLM's bundle unpacker and opm's ConfigMap writer), so tools that know
// them keep working.
//
// The bundle format itself (reading, generating, validating, building)
// is package bundle's. unpack only moves bundles: it names the bundle
// annotations from bundle/annotation, and Bundle.FS hands a loaded
// ConfigMap back as a bundle directory for bundle.FromFS.
package unpack
