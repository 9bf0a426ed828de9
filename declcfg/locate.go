package declcfg

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/operator-catalog/olmcat/internal/jsonscan"
)

// Place is where one blob of a declarative config directory is written.
type Place struct {
	Meta
	// File is the catalog file, slash-separated and relative to the root;
	// Index the blob's position in it (0-based, as in Origin).
	File  string
	Index int
	// Line is the line the blob starts on (1-based).
	Line int
}

// Locator finds where the blobs of a package are written, for messages
// that point at a file and line. NewLocator only lists the packages each
// file names (as ValidateDir's first pass does); Package reads the files
// of one package when asked, so a caller that locates a few packages
// reads only their files, and nothing is held but the file list.
type Locator struct {
	root     string
	files    []string
	pkgFiles map[string][]int
}

// NewLocator lists the catalog files of root and the packages each names.
func NewLocator(ctx context.Context, root string) (*Locator, error) {
	r, err := openRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	files, err := listCatalogFiles(r)
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", root, err)
	}
	filePkgs, err := scanFilePackages(ctx, r, files, newLoadOptions(nil))
	if err != nil {
		return nil, err
	}
	l := &Locator{root: root, files: files, pkgFiles: map[string][]int{}}
	for i, names := range filePkgs {
		for _, n := range names {
			l.pkgFiles[n] = append(l.pkgFiles[n], i)
		}
	}
	return l, nil
}

// Package returns the places of the blobs of package pkg (its olm.package
// blob and every blob whose package it is), in file and blob order.
func (l *Locator) Package(pkg string) ([]Place, error) {
	r, err := openRoot(l.root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var out []Place
	for _, i := range l.pkgFiles[pkg] {
		places, err := filePlaces(r, l.files[i])
		if err != nil {
			return nil, err
		}
		for _, p := range places {
			if p.Package == pkg || p.Schema == SchemaPackage && p.Name == pkg {
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// FilePlaces returns the place of every blob of the catalog file rel
// (slash-separated, relative to root), in blob order.
func FilePlaces(root, rel string) ([]Place, error) {
	r, err := openRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return filePlaces(r, rel)
}

// filePlaces reads one file whole: a file of JSON objects is walked key by
// key, as quickScanPackages does; a YAML file is split into documents as
// DecodeStream splits it (empty documents skipped).
func filePlaces(r *os.Root, rel string) ([]Place, error) {
	f, err := r.Open(rel)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", rel, err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", rel, err)
	}
	if i := jsonscan.SkipSpace(data, 0); i < len(data) && data[i] == '{' {
		return jsonPlaces(data, rel)
	}
	return yamlPlaces(data, rel)
}

func jsonPlaces(data []byte, rel string) ([]Place, error) {
	var out []Place
	line, counted := 1, 0
	for i := jsonscan.SkipSpace(data, 0); i < len(data); i = jsonscan.SkipSpace(data, i) {
		if data[i] != '{' {
			return nil, fmt.Errorf("load %s: blob #%d: not an object", rel, len(out))
		}
		m, end, err := metaKeysAt(data, i)
		if err != nil {
			return nil, fmt.Errorf("load %s: blob #%d: %w", rel, len(out), err)
		}
		line += bytes.Count(data[counted:i], []byte{'\n'})
		counted = i
		out = append(out, Place{Meta: m, File: rel, Index: len(out), Line: line})
		i = end
	}
	return out, nil
}

// yamlPlaces splits data at the lines utilyaml's reader splits at ("---"
// followed by nothing but spaces or a comment); a document starts on its
// first line that is neither blank nor a comment.
func yamlPlaces(data []byte, rel string) ([]Place, error) {
	var out []Place
	var doc []byte
	start := 0
	flush := func() error {
		if start == 0 {
			return nil
		}
		js, err := yamlToJSON(doc)
		if err != nil || len(js) == 0 || string(js) == "null" {
			return err
		}
		m, err := metaKeys(js)
		if err != nil {
			return fmt.Errorf("load %s: blob #%d: %w", rel, len(out), err)
		}
		out = append(out, Place{Meta: m, File: rel, Index: len(out), Line: start})
		return nil
	}
	for n, line := range bytes.SplitAfter(data, []byte{'\n'}) {
		if rest, ok := bytes.CutPrefix(line, []byte("---")); ok {
			if t := strings.TrimSpace(string(rest)); t == "" || t[0] == '#' {
				if err := flush(); err != nil {
					return nil, fmt.Errorf("load %s: %w", rel, err)
				}
				doc, start = nil, 0
				continue
			}
		}
		doc = append(doc, line...)
		if t := bytes.TrimSpace(line); start == 0 && len(t) > 0 && t[0] != '#' {
			start = n + 1
		}
	}
	if err := flush(); err != nil {
		return nil, fmt.Errorf("load %s: %w", rel, err)
	}
	return out, nil
}
