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

// Opened is one fresh copy of the input.
type Opened struct {
	Module *graph.Module
	ld     *modelio.Loaded
}

// Open loads a fresh copy.
func (s Source) Open() (*Opened, error) {
	ld, err := modelio.Load(s.Path, modelio.LoadOptions{IgnoreHash: s.IgnoreHash, Warn: func(string) {}})
	if err != nil {
		return nil, err
	}
	return &Opened{Module: ld.Module, ld: ld}, nil
}

// Loader adapts Open to a Loader.
func (s Source) Loader() Loader {
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
func (o *Opened) Save(path string) error {
	if err := graph.Verify(o.Module); err != nil {
		return fmt.Errorf("candidate is not a valid model (a bug in anefix; please report it with the input): %w", err)
	}
	_, err := modelio.Save(path, o.Module, o.ld, modelio.SaveOptions{})
	return err
}

// SaveForce writes the module at path as the user's output: --force
// replaces an existing one (bundle.Write's rules), else it must not exist.
func (o *Opened) SaveForce(path string, force bool) error {
	if err := graph.Verify(o.Module); err != nil {
		return fmt.Errorf("the result is not a valid model (a bug in anefix; please report it with the input): %w", err)
	}
	_, err := modelio.Save(path, o.Module, o.ld, modelio.SaveOptions{Force: force})
	return err
}

// Close releases the input file.
func (o *Opened) Close() { o.ld.Close() }

// Workdir is a temporary directory for candidates, removed by Close and,
// on a signal, by the CLI's handler (bundle.RemovePending).
type Workdir struct {
	dir  string
	base string
	n    int
}

// NewWorkdir makes the directory; candidates are named after in's base
// name, so they keep its extension and kind.
func NewWorkdir(in string) (*Workdir, error) {
	d, err := bundle.MkdirTemp("", "anefix-search-*")
	if err != nil {
		return nil, fmt.Errorf("temporary directory for candidates: %w", err)
	}
	base := filepath.Base(strings.TrimRight(in, "/"))
	return &Workdir{dir: d, base: base}, nil
}

// Next returns a fresh candidate path.
func (w *Workdir) Next() string {
	w.n++
	return filepath.Join(w.dir, fmt.Sprintf("c%d-%s", w.n, w.base))
}

// Dir is the directory.
func (w *Workdir) Dir() string { return w.dir }

// Remove deletes one candidate.
func (w *Workdir) Remove(path string) { os.RemoveAll(path) }

// Close removes the directory.
func (w *Workdir) Close() error { return bundle.RemoveTemp(w.dir) }

// Loaded is the opened input (for its description in a report).
func (o *Opened) Loaded() *modelio.Loaded { return o.ld }
