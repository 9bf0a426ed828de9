package main

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/image"
)

// The flags raising image.DefaultLimits, by the limit they raise.
var limitFlags = map[image.LimitKind]string{
	image.LimitBytes:     "max-image-bytes",
	image.LimitFileBytes: "max-image-file-bytes",
	image.LimitFiles:     "max-image-files",
	image.LimitRatio:     "max-image-ratio",
	image.LimitTime:      "image-timeout",
}

// addLimitFlags registers the flags of the image limits, defaulting to
// image.DefaultLimits.
func addLimitFlags(fs *pflag.FlagSet, l *image.Limits) {
	d := image.DefaultLimits
	*l = d
	fs.Var(&sizeValue{&l.MaxBytes}, limitFlags[image.LimitBytes], "most bytes an image input may write, `SIZE` with an optional KiB/MiB/GiB/TiB unit")
	fs.Var(&sizeValue{&l.MaxFileBytes}, limitFlags[image.LimitFileBytes], "most bytes one file of an image input may hold (`SIZE`)")
	fs.Int64Var(&l.MaxFiles, limitFlags[image.LimitFiles], d.MaxFiles, "most files an image input may write")
	fs.Int64Var(&l.MaxRatio, limitFlags[image.LimitRatio], d.MaxRatio, "most times a layer may expand over its compressed size (checked past 64 MiB)")
	fs.DurationVar(&l.Timeout, limitFlags[image.LimitTime], d.Timeout, "longest time to pull and extract an image input")
}

// sizeValue is a byte count flag: a number with an optional binary unit.
type sizeValue struct{ n *int64 }

func (v *sizeValue) Type() string { return "size" }

func (v *sizeValue) String() string {
	if v.n == nil {
		return "0"
	}
	return image.FormatSize(*v.n)
}

func (v *sizeValue) Set(s string) error {
	n, err := image.ParseSize(s)
	if err != nil {
		return err
	}
	*v.n = n
	return nil
}

// imageError adds to an image error the flag that changes the outcome:
// the limit's flag, or --use-http for a plain HTTP registry.
func imageError(err error) error {
	var le *image.LimitError
	switch {
	case errors.As(err, &le):
		return fmt.Errorf("%w (raise it with --%s)", err, limitFlags[le.Kind])
	case errors.Is(err, image.ErrPlainHTTP):
		return fmt.Errorf("%w; if that registry is meant to be reached in plain HTTP, add --use-http", err)
	}
	return err
}
