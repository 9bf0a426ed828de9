package legacy

import (
	"bytes"
	"errors"
	"fmt"
)

// manifests splits the bundle column and reports NULL manifest columns.
func (bb *bundleBuild) manifests() error {
	b, raw := &bb.b, bb.raw
	if raw.bundle != nil {
		var err error
		if b.Objects, err = SplitObjects(raw.bundle); err != nil {
			b.Objects = nil
			b.Unreadable = append(b.Unreadable, Unreadable{Column: "bundle", Err: err})
		}
	}
	b.CSV = shareCSV(raw, b.Objects)

	what := "a non-head bundle"
	if bb.head {
		what = "a channel head"
	}
	switch {
	case raw.csvNull && raw.bundleNull:
		bb.rep.add(RepairMissingManifests, "operatorbundle", bb.name, fmt.Sprintf(
			"csv and bundle columns are NULL on %s (cleared by opm for image-built indexes); kept with its image, properties and related images, without manifests", what))
	case raw.csvNull:
		if b.Objects != nil {
			b.CSV = findCSV(b.Objects)
		}
		bb.rep.add(RepairMissingManifests, "operatorbundle", bb.name, fmt.Sprintf(
			"csv column is NULL on %s; the CSV is taken from the bundle column's ClusterServiceVersion object", what))
	case raw.bundleNull:
		bb.rep.add(RepairMissingManifests, "operatorbundle", bb.name, fmt.Sprintf(
			"bundle column is NULL on %s; only the CSV remains of its manifests", what))
	}

	return nil
}

// shareCSV is the csv column, as the same bytes of the bundle column when
// they are there at the start of one of its objects: opm wrote the CSV
// object into both columns (the csv column with a newline after it, as
// the bundle column has), and the bundle then keeps the bundle column's
// bytes only. The csv column's copy, about half of an operatorbundle row,
// is garbage once the package is read rather than held while a converter
// holds the package. The shared bytes are capped so that an append to
// them cannot write into the bundle column.
func shareCSV(raw *rawBundle, objects [][]byte) []byte {
	csv := raw.csv
	if len(csv) == 0 || len(objects) == 0 {
		return csv
	}
	i := bytes.Index(raw.bundle, csv)
	if i < 0 {
		return csv
	}
	for _, obj := range objects {
		// Objects split without a copy lie in the bundle column.
		if len(obj) > 0 && &obj[0] == &raw.bundle[i] {
			return raw.bundle[i : i+len(csv) : i+len(csv)]
		}
	}
	return csv
}

// getCSV parses the CSV the first time something has to be derived from
// it: the csv column, else the bundle column's CSV object, else (manifests
// not selected) the row's columns fetched for this bundle only.
func (bb *bundleBuild) getCSV() (*csvDoc, error) {
	if bb.csvTried {
		return bb.csv, nil
	}
	bb.csvTried = true
	raw, b := bb.raw, &bb.b
	data := raw.csv
	// Only for a NULL csv column: the column may be unread (SkipManifests)
	// while the bundle column was read (ReadPackageWithObjects).
	if data == nil && raw.csvNull && b.Objects != nil {
		data = findCSV(b.Objects)
	}
	if data == nil && (!raw.csvNull || (!raw.bundleNull && raw.bundle == nil)) {
		// Not selected (SkipManifests): fetch it for this bundle only.
		doc, err := bb.db.fetchCSV(bb.ctx, bb.name)
		var ue *unreadableError
		if errors.As(err, &ue) {
			bb.unreadable(ue.column, ue.err)
			return nil, nil
		}
		bb.csv = doc
		return bb.csv, err
	}
	if data == nil {
		return nil, nil
	}
	doc, err := parseCSV(data)
	if err != nil {
		column := "csv"
		if raw.csv == nil {
			column = "bundle"
		}
		bb.unreadable(column, err)
		return nil, nil
	}
	bb.csv = doc
	return bb.csv, nil
}

// unreadable records an undecodable column value once per column.
func (bb *bundleBuild) unreadable(column string, err error) {
	for _, u := range bb.b.Unreadable {
		if u.Column == column {
			return
		}
	}
	bb.b.Unreadable = append(bb.b.Unreadable, Unreadable{Column: column, Err: err})
}
