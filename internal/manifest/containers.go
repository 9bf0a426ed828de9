package manifest

import "github.com/operator-catalog/olmcat/internal/jsonscan"

// Containers lists the containers of the deployments of the CSV's install
// strategy (spec.install.spec.deployments[].spec.template.spec): per
// deployment its init containers, then its containers. Only the path to
// them is walked; a name or image that is not a string reads as "".
func (c *CSV) Containers() ([]Container, error) {
	install := c.spec[specInstall]
	if install == nil {
		return nil, nil
	}
	var out []Container
	deps := jsonscan.Field(jsonscan.Field(install, "spec"), "deployments")
	err := jsonscan.ArrayElems(deps, func(d []byte) error {
		pod := jsonscan.Field(jsonscan.Field(jsonscan.Field(d, "spec"), "template"), "spec")
		for _, key := range [...]string{"initContainers", "containers"} {
			err := jsonscan.ArrayElems(jsonscan.Field(pod, key), func(ct []byte) error {
				out = append(out, container(ct, key == "initContainers"))
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func container(ct []byte, init bool) Container {
	out := Container{Init: init}
	_ = jsonscan.ObjectFields(ct, func(k, v []byte) error {
		switch string(k) {
		case "name":
			out.Name = str(v)
		case "image":
			out.Image = str(v)
		}
		return nil
	})
	return out
}
