package probe

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/anefix/anefix/graph/bundle"
)

// A cache entry is one small file, <dir>/<key[:2]>/<key>, holding
// "anefix-probe-2 <key> <outcome> <exit> <seconds>\n". Only answers a test
// gave by running to its end on its own are written (uncacheable), each
// through a temporary and a rename so a reader never sees half of one.
// On read an entry is trusted only when it is a regular file (not
// followed if it is a link) of at most maxEntrySize bytes whose fields
// name its own key and an outcome that fits its exit status and could
// have been written; anything else is a miss, reported once through
// Config.Warn. A power loss can leave an empty or partial entry (there is
// no fsync): that too reads as a miss.
const maxEntrySize = 256

// cacheWrites is held (shared) by every entry being written and
// (exclusive) by KillAll, so that a signal's exit never leaves a
// temporary half written and nothing is written after it.
var cacheWrites sync.RWMutex

func (r *Runner) cachePath(key string) string {
	return filepath.Join(r.cfg.CacheDir, key[:2], key)
}

// uncacheable says why an answer must not be cached ("" when it may be):
// anything a signal from anefix or from outside ended (SIGHUP, SIGINT,
// SIGKILL, SIGTERM: an interrupted search, the OOM killer), and a command
// the shell could not find or run (126, 127), which says nothing about the
// candidate. Exit 4 (compiler unavailable) is never cached either. A crash
// of the test's own program (SIGSEGV, 139; SIGABRT, 134) is an answer.
func uncacheable(code int, signalled bool) string {
	switch {
	case signalled:
		return "stopped by anefix"
	case code == exitNoCompiler:
		return "compiler unavailable"
	case code == 126 || code == 127:
		return fmt.Sprintf("exit %d: the shell could not run a command", code)
	case code == 129 || code == 130 || code == 137 || code == 143:
		return fmt.Sprintf("exit %d: ended by signal %d, which the test did not send itself", code, code-128)
	}
	return ""
}

// lookup reads key's entry; a missing one is a quiet miss, any other
// failure a miss reported once.
func (r *Runner) lookup(key string) (Result, bool) {
	if r.cfg.CacheDir == "" {
		return Result{}, false
	}
	p := r.cachePath(key)
	b, err := bundle.ReadSmallFileNoFollow(p, p, maxEntrySize)
	if errors.Is(err, fs.ErrNotExist) {
		return Result{}, false
	}
	if err != nil {
		r.warn("cache:"+key, fmt.Sprintf("cache entry ignored (treated as absent; delete it): %v", err))
		return Result{}, false
	}
	res, ok := parseEntry(b, key)
	if !ok {
		r.warn("cache:"+key, fmt.Sprintf("cache entry ignored (treated as absent; delete it): %s does not hold an answer anefix writes", p))
		return Result{}, false
	}
	return res, true
}

// formatEntry is what store writes for res.
func formatEntry(res Result) string {
	return fmt.Sprintf("%s %s %s %d %.3f\n", keyVersion, res.Key, res.Outcome, res.ExitCode, res.Duration.Seconds())
}

// parseEntry reads an entry written for key; anything but what
// formatEntry writes for a cacheable answer is a miss.
func parseEntry(b []byte, key string) (Result, bool) {
	if len(b) > maxEntrySize || len(b) == 0 || b[len(b)-1] != '\n' {
		return Result{}, false
	}
	f := strings.Split(string(b[:len(b)-1]), " ")
	if len(f) != 5 || f[0] != keyVersion || f[1] != key {
		return Result{}, false
	}
	code, err1 := strconv.Atoi(f[3])
	secs, err2 := strconv.ParseFloat(f[4], 64)
	o := classify(code)
	if err1 != nil || err2 != nil || o.String() != f[2] || uncacheable(code, false) != "" || code < 0 || code > 255 || !(secs >= 0 && secs < 1e9) {
		return Result{}, false
	}
	return Result{Outcome: o, ExitCode: code, Duration: time.Duration(secs * float64(time.Second)), Cached: true, Key: key}, true
}

// store writes the answer as every file anefix writes beside an output is
// written (bundle.WriteFile): through a tracked temporary and a rename,
// replacing only a regular file, so a link or a FIFO at the entry's name is
// left alone (and the answer not cached), never written through. It
// returns false when KillAll has run. A failure to cache is not an error
// of the search; it is reported once.
func (r *Runner) store(res Result) bool {
	cacheWrites.RLock()
	defer cacheWrites.RUnlock()
	if stopping() {
		return false
	}
	if r.cfg.CacheDir == "" || uncacheable(res.ExitCode, false) != "" || res.Outcome == Timeout {
		return true
	}
	if err := r.write(res); err != nil {
		r.warn("cache-write", fmt.Sprintf("answers are not cached: %v", err))
	}
	return true
}

func (r *Runner) write(res Result) error {
	p := r.cachePath(res.Key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return bundle.WriteFile(p, []byte(formatEntry(res)), true, func(msg string) { r.warn("cache-stale", msg) })
}
