// Package image reads and writes operator catalog and bundle images without
// a container daemon, using google/go-containerregistry.
//
// It owns everything between an image reference and files on disk:
// reading the names of local images (oci:DIR[:REF], oci-archive:FILE[:REF]:
// ParseLayout; telling an image from a local path is package input's),
// resolving where to pull from (registries.conf v2 mirrors, blocked
// registries, insecure registries: RegistriesConf), authentication (the
// default keychain: docker config, REGISTRY_AUTH_FILE, podman auth.json,
// credential helpers), TLS (--use-http, --skip-tls-verify, --ca-file),
// platform selection in image indexes, a layer cache by digest in an OCI
// layout, finding the catalog an image carries from its labels
// (FindCatalog), and extracting only that catalog into a temporary
// directory that nothing in the image can escape (ExtractCatalog,
// Extract). It also builds catalog images (Build) and writes the
// Dockerfile opm generates (Dockerfile).
//
// The package prints nothing and reads no OLMCAT_* variables: callers pass
// options, and the CLI prints.
package image
