package main

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/action/serve"
)

// opmServeFlags are opm serve's and opm registry serve's flags beside
// olmcat's own, so that the CMD lines of images opm built run unchanged.
type opmServeFlags struct {
	terminationLog string
	debug          bool
	// opm serve only.
	cacheOnly       bool
	enforceCache    bool
	pprofAddr       string
	pprofCapture    bool
	serveFlagsAdded bool
}

// addCommonFlags registers the flags both opm servers have.
func (o *opmServeFlags) addCommonFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&o.terminationLog, "termination-log", "t", string(serve.DefaultTerminationLog), "file the error that stops the server is written to, when that file exists (Kubernetes' termination message)")
	fs.BoolVar(&o.debug, "debug", false, "enable debug logging (--log-level debug)")
}

// addOPMFlags registers opm serve's flags.
func (o *opmServeFlags) addOPMFlags(fs *pflag.FlagSet) {
	o.addCommonFlags(fs)
	o.serveFlagsAdded = true
	fs.BoolVar(&o.cacheOnly, "cache-only", false, "load the catalog to write (or check) the --cache-dir cache, then exit without serving")
	fs.BoolVar(&o.enforceCache, "cache-enforce-integrity", false, "fail instead of rebuilding when --cache-dir holds no cache of the catalog as it is (default true when --cache-dir is set and --cache-only is not)")
	fs.StringVar(&o.pprofAddr, "pprof-addr", "localhost:6060", "address of the pprof HTTP endpoint (\"\" disables it)")
	fs.BoolVar(&o.pprofCapture, "pprof-capture-profiles", false, "capture a CPU profile from start-up until the catalog is served, at /debug/pprof/startup/cpu")
}

// enforceIntegrity is opm's --cache-enforce-integrity: given explicitly,
// its value (which needs --cache-dir); else true exactly when --cache-dir
// is set and --cache-only is not.
func (o *opmServeFlags) enforceIntegrity(fs *pflag.FlagSet, cacheDir string) (bool, error) {
	if !o.serveFlagsAdded {
		return false, nil
	}
	if !fs.Changed("cache-enforce-integrity") {
		return cacheDir != "" && !o.cacheOnly, nil
	}
	if o.enforceCache && cacheDir == "" {
		return false, usageError(errors.New("--cache-dir must be specified with --cache-enforce-integrity"))
	}
	return o.enforceCache, nil
}

// holdOnLoadError is whether serve, failing to open or load its
// catalog, stays up reporting NOT_SERVING with the reason (until
// stopped, when it exits with the error) instead of exiting at once:
// only as the main process of a Kubernetes container (PID 1, with the
// kubelet's termination message file at --termination-log), where a
// catalog pod's probes then keep reporting NOT_SERVING and its startup
// probe restarts it. Anywhere else (a command line, a script, docker
// run, a CI step) a catalog that does not load is an error and exit.
// Nothing in an image turns it on, so images stay drop-in for opm's
// (opm, in the same place, exits).
func (o *opmServeFlags) holdOnLoadError() bool {
	return !o.cacheOnly && serve.TerminationLog(o.terminationLog).InContainer()
}
