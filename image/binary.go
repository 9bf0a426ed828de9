package image

import (
	"debug/elf"
	"fmt"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// elfMachines maps GOARCH names to ELF machine types.
var elfMachines = map[string]elf.Machine{
	"amd64":   elf.EM_X86_64,
	"arm64":   elf.EM_AARCH64,
	"ppc64le": elf.EM_PPC64,
	"s390x":   elf.EM_S390,
	"386":     elf.EM_386,
	"arm":     elf.EM_ARM,
}

// CheckBinary verifies that path is a static Linux ELF executable for p:
// the image has no dynamic loader or libc to run anything else.
func CheckBinary(path string, p v1.Platform) error {
	if p.OS != "linux" {
		return fmt.Errorf("binary for %s: only linux images can be built", platformString(p))
	}
	want, ok := elfMachines[p.Architecture]
	if !ok {
		return fmt.Errorf("binary for %s: unknown architecture", platformString(p))
	}
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("binary %s for %s: not an ELF executable: %w", path, platformString(p), err)
	}
	defer f.Close()
	if f.Machine != want {
		return fmt.Errorf("binary %s is built for %s, not %s", path, f.Machine, platformString(p))
	}
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP {
			return fmt.Errorf("binary %s is dynamically linked, and the image has no C library to run it: build it static with CGO_ENABLED=0 (CGO_ENABLED=0 go install ./cmd/olmcat, or make build)", path)
		}
	}
	return nil
}
