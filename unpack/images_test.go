package unpack

// testImages are the role images of the launch tests (never pulled: the
// test API server runs no kubelet).
var testImages = []LaunchOption{WithUtilImage("olmcat:test"), WithOpmImage("olmcat:test")}

// launchOpts returns testImages followed by opts.
func launchOpts(opts ...LaunchOption) []LaunchOption {
	return append(append([]LaunchOption{}, testImages...), opts...)
}
