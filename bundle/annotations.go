package bundle

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/internal/atomicfile"
)

// AnnotationsMismatchError is Generate's error, without Overwrite, for an
// existing annotations file that lacks a generated annotation or has
// another value (opm's ValidateAnnotations). The file is kept.
type AnnotationsMismatchError struct {
	// File is the annotations file.
	File string
	// Problems are opm's messages, sorted by key (opm lists them in map
	// order).
	Problems []string
}

func (e *AnnotationsMismatchError) Error() string {
	return fmt.Sprintf("%s: [%s]", e.File, strings.Join(e.Problems, ", "))
}

// writeAnnotations writes the annotations file, or, without overwrite,
// checks an existing one (which is kept).
func writeAnnotations(file string, labels [][2]string, overwrite bool, opts []atomicfile.Option) error {
	ann := make(map[string]string, len(labels))
	for _, kv := range labels {
		ann[kv[0]] = kv[1]
	}
	if !overwrite {
		data, err := os.ReadFile(file)
		if err == nil {
			return checkAnnotations(file, data, ann)
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	data, err := yaml.Marshal(map[string]any{"annotations": ann})
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(file, data, opts...)
}

// checkAnnotations: every generated annotation must be in the existing
// file with the same value.
func checkAnnotations(file string, data []byte, want map[string]string) error {
	var got struct {
		Annotations map[string]string `json:"annotations"`
	}
	if err := yaml.Unmarshal(data, &got); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var errs []string
	for _, k := range keys {
		v, ok := got.Annotations[k]
		switch {
		case !ok:
			errs = append(errs, "Missing field: "+k)
		case v != want[k]:
			errs = append(errs, fmt.Sprintf("Expect field %q to have value %q instead of %q", k, want[k], v))
		}
	}
	if len(errs) > 0 {
		return &AnnotationsMismatchError{File: file, Problems: errs}
	}
	return nil
}
