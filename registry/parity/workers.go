package parity

import "sync"

// workers runs the check's calls on goroutines that live for the whole
// check, a goroutine per call in flight at most. A call goes deep (a
// server's handler, a sqlite query, a blob decode), and a fresh goroutine
// would grow its stack to that depth again for each of the catalog's
// tens of thousands of calls, copying it at every doubling; a worker
// keeps the stack it grew (BenchmarkParity).
type workers struct {
	jobs chan func()
	wg   sync.WaitGroup
}

// newWorkers starts n workers.
func newWorkers(n int) *workers {
	w := &workers{jobs: make(chan func())}
	w.wg.Add(n)
	for range n {
		go func() {
			defer w.wg.Done()
			for job := range w.jobs {
				job()
			}
		}()
	}
	return w
}

// run hands job to a worker, waiting until one is free. The caller
// bounds the jobs in flight to the number of workers (checkRun.sem), so
// the wait is never longer than a worker takes to come back for more.
func (w *workers) run(job func()) { w.jobs <- job }

// stop ends the workers once their jobs are done. No job may be handed
// over after it.
func (w *workers) stop() {
	close(w.jobs)
	w.wg.Wait()
}
