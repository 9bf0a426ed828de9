package declcfg

// PathElement is the file or directory name the writers give a package
// name: path separators, '%' and control bytes percent-encoded, "." and
// ".." and "" spelled out.
func PathElement(name string) string { return safePathElement(name) }

// Format is the blob format the writer writes.
func (w *DirWriter) Format() Format { return w.opts.format }
