package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// The JUnit XML writer: the common format Jenkins and GitLab read
// (testdata/junit.xsd), written one <testsuite> at a time so that a
// check's report streams package by package. <testsuites> carries no
// totals (they are optional, and known only at the end); every suite
// carries its own.

// junitSuite is one <testsuite>.
type junitSuite struct {
	XMLName   xml.Name    `xml:"testsuite"`
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Skipped   int         `xml:"skipped,attr"`
	Time      string      `xml:"time,attr"`
	Cases     []junitCase `xml:"testcase"`
	SystemOut *junitText  `xml:"system-out"`
}

// junitText is an element's text, written as CDATA: readable, and kept
// as is by the parsers.
type junitText struct {
	Text string `xml:",cdata"`
}

// text returns s as element text, nil (no element) when empty.
func text(s string) *junitText {
	if s == "" {
		return nil
	}
	return &junitText{Text: xmlSafe(s)}
}

// xmlSafe replaces what XML 1.0 cannot hold, even as CDATA (control
// characters a catalog string may carry, invalid UTF-8), with U+FFFD;
// encoding/xml does so for attributes and plain text, not for CDATA.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r',
			r >= 0x20 && r <= 0xD7FF && r != utf8.RuneError,
			r >= 0xE000 && r <= 0xFFFD,
			r >= 0x10000 && r <= 0x10FFFF:
			return r
		}
		return '\uFFFD'
	}, s)
}

// junitCase is one <testcase>. Assertions counts the calls or blobs the
// case covers (nil: not counted).
type junitCase struct {
	Name       string        `xml:"name,attr"`
	Classname  string        `xml:"classname,attr"`
	Assertions *int          `xml:"assertions,attr"`
	Time       string        `xml:"time,attr"`
	Error      *junitFailure `xml:"error"`
	Failure    *junitFailure `xml:"failure"`
	SystemOut  *junitText    `xml:"system-out"`
}

// junitFailure is a failed case (or one that could not run, as
// <error>): a one-line message, a type and the first findings, one a
// line.
type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",cdata"`
}

// junitWriter writes a <testsuites> document; the first error sticks and
// is returned by end.
type junitWriter struct {
	w            io.Writer
	err          error
	begun, ended bool
}

func (j *junitWriter) begin(name string) {
	j.begun = true
	var b strings.Builder
	b.WriteString(xml.Header)
	b.WriteString("<testsuites name=\"")
	j.keep(xml.EscapeText(&b, []byte(name)))
	b.WriteString("\">\n")
	j.write(b.String())
}

// suite writes s, counting its tests and failures.
func (j *junitWriter) suite(s *junitSuite) {
	s.Tests, s.Failures, s.Errors, s.Time = len(s.Cases), 0, 0, "0"
	for i := range s.Cases {
		s.Cases[i].Time = "0"
		if s.Cases[i].Failure != nil {
			s.Failures++
		}
		if s.Cases[i].Error != nil {
			s.Errors++
		}
	}
	out, err := xml.MarshalIndent(s, "  ", "  ")
	j.keep(err)
	if j.err == nil {
		j.write(string(out) + "\n")
	}
}

func (j *junitWriter) end() error {
	j.ended = true
	j.write("</testsuites>\n")
	return j.err
}

func (j *junitWriter) write(s string) {
	if j.err == nil {
		_, j.err = io.WriteString(j.w, s)
	}
}

func (j *junitWriter) keep(err error) {
	if j.err == nil && err != nil {
		j.err = fmt.Errorf("write JUnit report: %w", err)
	}
}

// count returns a pointer to n, for junitCase.Assertions.
func count(n int) *int { return &n }
