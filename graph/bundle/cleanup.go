package bundle

import (
	"errors"
	"os"
	"sort"
	"sync"
)

// Temporary outputs being built, so that an interrupted process (Ctrl-C,
// SIGTERM) can remove them instead of leaving up to a model's size of
// hidden files next to the output. The CLI calls RemovePending from its
// signal handler; normal paths remove their own temporaries.
//
// The same lock guards the commit (the renames that put a finished output
// in place and the removal of the previous one), so the handler runs either
// wholly before a commit (the previous output is untouched and the
// temporary goes) or wholly after it (the new output is in place and
// nothing hidden is left): never in the middle of a swap. Once the handler
// has run, stopped makes every later temporary or commit fail.
var pending = struct {
	sync.Mutex
	paths   map[string]bool
	stopped bool
}{paths: map[string]bool{}}

// errStopped is what a write sees after the signal handler has run; the
// process is about to exit.
var errStopped = errors.New("interrupted")

// makeTemp runs create (which makes a temporary and returns its path) and
// tracks the result, under the lock so that a signal cannot fall between
// the two.
func makeTemp(create func() (string, error)) (string, error) {
	pending.Lock()
	defer pending.Unlock()
	if pending.stopped {
		return "", errStopped
	}
	p, err := create()
	if err != nil {
		return "", err
	}
	pending.paths[p] = true
	return p, nil
}

func untrackTemp(path string) {
	pending.Lock()
	delete(pending.paths, path)
	pending.Unlock()
}

// RemovePending deletes every temporary output still being built and
// returns the paths it removed. A previous output is never touched: it is
// replaced only by a rename after the new one is complete. After it, no
// write can create a temporary or commit.
func RemovePending() []string {
	pending.Lock()
	defer pending.Unlock()
	pending.stopped = true
	var out []string
	for p := range pending.paths {
		// The writing goroutine may still be creating files in p (it
		// cannot recreate p itself, see mkdirIn), which makes one
		// RemoveAll fail with "directory not empty"; it fails on its
		// next file, so a few more attempts finish the job.
		var err error
		for range 100 {
			if err = os.RemoveAll(p); err == nil {
				break
			}
		}
		if err == nil {
			out = append(out, p)
		}
		delete(pending.paths, p)
	}
	sort.Strings(out)
	return out
}

// Stopped reports whether RemovePending has run: the process is being
// stopped by a signal, and a write that failed since did so for that
// reason (the CLI then waits for its handler to exit 128+signal).
func Stopped() bool {
	pending.Lock()
	defer pending.Unlock()
	return pending.stopped
}

// WriteFile writes a small file (a report) at path through a hidden
// temporary sibling, named, tracked and committed as outputs are, so that a
// signal leaves either the previous file or the new one and no temporary.
// It replaces only what CheckReplaceFile allows (an existing regular file,
// with force), checked again at the commit. Stale temporaries of killed
// runs beside path are handled as by Write (warn nil prints to stderr).
func WriteFile(path string, data []byte, force bool, warn func(string)) error {
	s, err := stageSide(SideFile{Path: path, Data: data, Force: force}, warn)
	if err != nil {
		return err
	}
	if err := commitAll([]*staged{s}); err != nil {
		s.abort()
		return err
	}
	return nil
}

// MkdirTemp makes a temporary directory (os.MkdirTemp) that RemovePending
// deletes on a signal, for work files such as bisect's candidates. Remove
// it with RemoveTemp.
func MkdirTemp(dir, pattern string) (string, error) {
	return makeTemp(func() (string, error) { return os.MkdirTemp(dir, pattern) })
}

// RemoveTemp deletes a directory made by MkdirTemp and stops tracking it.
func RemoveTemp(path string) error {
	err := os.RemoveAll(path)
	untrackTemp(path)
	return err
}
