// Package manifest is the project's one partial view of a bundle's
// Kubernetes objects: which object is what, which one is the
// ClusterServiceVersion, and the CSV fields the readers, converters and
// servers use. Code that identifies objects, finds the CSV or reads its
// fields goes through here; no other package declares CSV types.
//
// Identifying objects:
//
//	tm, err := manifest.Identify(data)     // apiVersion and kind, JSON or YAML
//	kind, err := manifest.Kind(obj)        // kind of a JSON object, fast
//	i := manifest.FindCSV(objects)         // index of the CSV, -1 if none
//
// Reading a CSV: ParseCSV checks the JSON once and splits the object; the
// fields are decoded when asked for, so a caller pays for what it reads
// (the install strategy, usually most of a CSV, is walked, not decoded):
//
//	csv, err := manifest.ParseCSV(obj)
//	csv.Name(); csv.Version(); csv.Annotation("olm.skipRange")
//	imgs, err := csv.RelatedImages()       // spec.relatedImages
//	cts, err := csv.Containers()           // deployment (init) containers
//	req, err := csv.RequiredAPIs()         // required CRDs and API services
//	meta, err := csv.Metadata()            // the olm.csv.metadata value
//
// Decoding follows encoding/json (keys match case-insensitively, the last
// duplicate wins) and the operator-framework API types' JSON shape, so
// that values re-encoded from this view (olm.csv.metadata, the CSV served
// for a bundle known only by its metadata) are byte for byte what opm
// wrote. GVK is the one group/version/kind type; API adds the resource
// plural the registry's api table keeps.
//
// The package imports no other package of the project except
// internal/jsonscan; it prints nothing and reads no environment.
package manifest
