// Package input owns "what is this argument": it tells what a command's
// catalog or bundle argument names (a declarative config directory or
// file, a legacy sqlite index, a bundle directory, a container image
// given as a registry reference or an oci:/oci-archive: layout, or a live
// grpc:// server or an http(s):// catalogd URL) with its one Kind enum,
// and makes it local: an image is
// pulled and only its catalog (or bundle) extracted through package image,
// which reads its labels to tell a catalog image from a bundle image.
//
// Every command resolves its arguments with Resolve (Classify when it must
// decide before anything is pulled), so a new input kind is added here
// once. The package prints nothing: what it noticed (Input.Note,
// Input.Finished) is returned for the caller to print, and a bundle where
// a catalog is wanted is a *BundleError the caller words. Serving a
// resolved catalog is registry/source's.
package input
