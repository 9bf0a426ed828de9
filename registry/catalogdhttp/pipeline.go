package catalogdhttp

import (
	"bytes"
	"context"
	"fmt"
	"sync"
)

// encodeAll runs src and hands write each blob's encoding (Encode) and
// keys from one goroutine, in src's order. The decode and re-encode of
// every blob is most of a load's cost, so up to workers goroutines
// encode blobs ahead while write takes them in order; a few blobs are
// held at a time. The first error stops src: a blob that does not
// encode is named by where src said it is.
func encodeAll(ctx context.Context, src Source, workers int, write func(line []byte, k Keys) error) error {
	type result struct {
		line []byte
		k    Keys
		err  error
	}
	type job struct {
		blob  []byte
		file  string
		index int
		out   chan<- result
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make(chan job, workers)
	pending := make(chan (<-chan result), 4*workers)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for j := range jobs {
				line, k, err := Encode(j.blob)
				if err != nil {
					err = fmt.Errorf("load %s: blob #%d: %w", j.file, j.index, err)
				}
				j.out <- result{line, k, err}
			}
		})
	}
	written := make(chan error, 1)
	go func() {
		var err error
		for out := range pending {
			r := <-out // in order: a blob ahead may be done first
			if err != nil {
				continue
			}
			if err = r.err; err == nil {
				err = write(r.line, r.k)
			}
			if err != nil {
				cancel(err)
			}
		}
		written <- err
	}()
	err := src(ctx, func(blob []byte, file string, index int) error {
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		out := make(chan result, 1)
		pending <- out
		jobs <- job{blob: bytes.Clone(blob), file: file, index: index, out: out}
		return nil
	})
	close(jobs)
	wg.Wait()
	close(pending)
	if werr := <-written; werr != nil {
		return werr
	}
	return err
}
