package bisect

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/modelio"
)

// Source is the input model of a search, opened afresh for every candidate
// (a candidate's passes rewrite the module in place, and its blobs point
// into the input file, which is never written).
type Source struct {
	Path       string
	IgnoreHash bool
}

// opened is one fresh copy of the input.
type opened struct {
	Module *graph.Module
	ld     *modelio.Loaded
}

// Open loads a fresh copy.
func (s Source) Open() (*opened, error) {
	ld, err := modelio.Load(s.Path, modelio.LoadOptions{IgnoreHash: s.IgnoreHash, Warn: func(string) {}})
	if err != nil {
		return nil, err
	}
	return &opened{Module: ld.Module, ld: ld}, nil
}

// Loader adapts Open to a Loader.
func (s Source) Loader() loader {
	return func() (*graph.Module, func(), error) {
		o, err := s.Open()
		if err != nil {
			return nil, nil, err
		}
		return o.Module, o.Close, nil
	}
}

// Save writes the (rewritten) module as a model of the input's kind at
// path, which must not exist, after checking it with graph.Verify.
func (o *opened) Save(path string) error {
	if err := graph.Verify(o.Module); err != nil {
		return fmt.Errorf("candidate is not a valid model (a bug in anefix; please report it with the input): %w", err)
	}
	_, err := modelio.Save(path, o.Module, o.ld, modelio.SaveOptions{})
	return err
}

// SaveForce writes the module at path as the user's output: --force
// replaces an existing one (bundle.Write's rules), else it must not exist.
func (o *opened) SaveForce(path string, force bool) error {
	if err := graph.Verify(o.Module); err != nil {
		return fmt.Errorf("the result is not a valid model (a bug in anefix; please report it with the input): %w", err)
	}
	_, err := modelio.Save(path, o.Module, o.ld, modelio.SaveOptions{Force: force})
	return err
}

// Close releases the input file.
func (o *opened) Close() { o.ld.Close() }

// workdir is a temporary directory for candidates, removed by Close and,
// on a signal, by the CLI's handler (bundle.RemovePending).
type workdir struct {
	dir  string
	base string
	n    int
}

// NewWorkdir makes the directory; candidates are named after in's base
// name, so they keep its extension and kind.
func NewWorkdir(in string) (*workdir, error) {
	d, err := bundle.MkdirTemp("", "anefix-search-*")
	if err != nil {
		return nil, fmt.Errorf("temporary directory for candidates: %w", err)
	}
	base := filepath.Base(strings.TrimRight(in, "/"))
	return &workdir{dir: d, base: base}, nil
}

// Next returns a fresh candidate path.
func (w *workdir) Next() string {
	w.n++
	return filepath.Join(w.dir, fmt.Sprintf("c%d-%s", w.n, w.base))
}

// Dir is the directory.
func (w *workdir) Dir() string { return w.dir }

// Remove deletes one candidate.
func (w *workdir) Remove(path string) { os.RemoveAll(path) }

// Close removes the directory.
func (w *workdir) Close() error { return bundle.RemoveTemp(w.dir) }

// Loaded is the opened input (for its description in a report).
func (o *opened) Loaded() *modelio.Loaded { return o.ld }
