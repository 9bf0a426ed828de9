package report

import (
	"path"
	"strconv"
	"strings"
)

// GitHub Actions workflow commands: "::error file=F,line=L,title=T::M".
// The runner turns each into an annotation on the file and line; the
// escapes are those the runner undoes.

var (
	ghData     = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	ghProperty = strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
)

// ghWhere is where an annotation points: a catalog file (slash-separated
// path as the runner sees it) and line, both optional.
type ghWhere struct {
	file string
	line int
}

// ghCommand renders one workflow command line: level is error, warning
// or notice.
func ghCommand(level string, at ghWhere, title, msg string) string {
	var props []string
	if at.file != "" {
		props = append(props, "file="+ghProperty.Replace(at.file))
		if at.line > 0 {
			props = append(props, "line="+strconv.Itoa(at.line))
		}
	}
	if title != "" {
		props = append(props, "title="+ghProperty.Replace(title))
	}
	p := ""
	if len(props) > 0 {
		p = " " + strings.Join(props, ",")
	}
	return "::" + level + p + "::" + ghData.Replace(msg) + "\n"
}

// ghPath joins a catalog directory as given on the command line and a
// catalog file relative to it.
func ghPath(dir, rel string) string {
	return path.Join(strings.ReplaceAll(dir, "\\", "/"), rel)
}
