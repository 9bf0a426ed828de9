package podrun

import (
	"embed"
	"fmt"
	"os"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// olmPods are the objects OLM v0.46.0's own code creates for catalogs and
// bundle unpacking (the record in the reference's olm-pods), with the
// image names replaced by ${CATALOG_IMAGE}, ${OPM_IMAGE}, ${OLM_IMAGE}
// and ${BUNDLE_IMAGE}.
//
//go:embed olmpods/*.yaml
var olmPods embed.FS

// Images fills the image variables of OLM's objects.
type Images struct {
	// Catalog is the CatalogSource's spec.image.
	Catalog string
	// Opm is OLM's --opmImage (extractContent's server, the unpack Job's
	// extract container).
	Opm string
	// OLM is OLM's own image (copy-content, cpb).
	OLM string
	// Bundle is the bundle image the unpack Job unpacks.
	Bundle string
}

// OLMObject reads one of OLM's objects (the file name in olmpods, e.g.
// "catalog-pod-a-default-legacy.yaml") into out, with the images filled
// in. An image variable the object uses but imgs leaves empty is an
// error.
func OLMObject(file string, imgs Images, out any) error {
	data, err := olmPods.ReadFile("olmpods/" + file)
	if err != nil {
		return err
	}
	vars := map[string]string{"CATALOG_IMAGE": imgs.Catalog, "OPM_IMAGE": imgs.Opm, "OLM_IMAGE": imgs.OLM, "BUNDLE_IMAGE": imgs.Bundle}
	var missing []string
	text := os.Expand(string(data), func(k string) string {
		v := vars[k]
		if v == "" {
			missing = append(missing, k)
		}
		return v
	})
	if len(missing) > 0 {
		return fmt.Errorf("%s: no image for %s", file, strings.Join(missing, ", "))
	}
	if err := yaml.UnmarshalStrict([]byte(text), out); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// OLMPod is one of OLM's catalog pods (OLMObject).
func OLMPod(file string, imgs Images) (*corev1.Pod, error) {
	var pod corev1.Pod
	if err := OLMObject(file, imgs, &pod); err != nil {
		return nil, err
	}
	return &pod, nil
}
