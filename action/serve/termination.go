package serve

import (
	"fmt"
	"os"
)

// TerminationLog is the file the kubelet reads a container's
// termination message from (its terminationMessagePath): a server
// writes the error it stops with there, and knows from it whether it
// runs as the main process of a Kubernetes container.
type TerminationLog string

// DefaultTerminationLog is where Kubernetes reads a container's
// termination message unless the pod names another file.
const DefaultTerminationLog TerminationLog = "/dev/termination-log"

// Write writes err, the error the server stops with, to the log when
// that file exists (Kubernetes creates it in a container; it is never
// created here, so a run outside a container leaves /dev alone), and
// returns err.
func (t TerminationLog) Write(err error) error {
	if err == nil || t == "" {
		return err
	}
	f, openErr := os.OpenFile(string(t), os.O_WRONLY|os.O_TRUNC, 0)
	if openErr != nil {
		return err
	}
	fmt.Fprintln(f, err)
	f.Close()
	return err
}

// InContainer says whether this process is the main process of a
// Kubernetes container: PID 1, with the kubelet's termination message
// file at t.
func (t TerminationLog) InContainer() bool {
	if t == "" || os.Getpid() != 1 {
		return false
	}
	_, err := os.Stat(string(t))
	return err == nil
}
