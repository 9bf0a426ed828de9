package action

import (
	"context"
	"errors"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/pathcheck"
)

// GenerateDockerfile writes the Dockerfile opm generate dockerfile
// writes for the catalog directory Dir, beside it, as
// <parent>/<dir>.Dockerfile (image.WriteDockerfile).
type GenerateDockerfile struct {
	Dir     string
	Options image.DockerfileOptions
}

// GenerateDockerfileResult names the Dockerfile written.
type GenerateDockerfileResult struct {
	Path string
}

// Run writes the Dockerfile. An existing one is never replaced: that is
// a usage error no option resolves (it is to be removed first).
func (g GenerateDockerfile) Run(context.Context) (GenerateDockerfileResult, error) {
	p, err := image.WriteDockerfile(g.Dir, g.Options)
	if errors.Is(err, pathcheck.ErrExists) {
		// A new error, not wrapping ErrExists: callers that offer to
		// replace an existing output must not offer it here.
		return GenerateDockerfileResult{}, usage("", errors.New(err.Error()+" (remove it first)"))
	}
	return GenerateDockerfileResult{Path: p}, err
}
