package bundle

import (
	"os"
	"sort"
	"sync"
)

// Temporary outputs being built, so that an interrupted process (Ctrl-C,
// SIGTERM) can remove them instead of leaving up to a model's size of
// hidden files next to the output. The CLI calls RemovePending from its
// signal handler; normal paths remove their own temporaries.
var pending = struct {
	sync.Mutex
	paths map[string]bool
}{paths: map[string]bool{}}

func trackTemp(path string) {
	pending.Lock()
	pending.paths[path] = true
	pending.Unlock()
}

func untrackTemp(path string) {
	pending.Lock()
	delete(pending.paths, path)
	pending.Unlock()
}

// RemovePending deletes every temporary output still being built and
// returns the paths it removed. A previous output is never touched: it is
// replaced only by a rename after the new one is complete.
func RemovePending() []string {
	pending.Lock()
	defer pending.Unlock()
	var out []string
	for p := range pending.paths {
		if os.RemoveAll(p) == nil {
			out = append(out, p)
		}
		delete(pending.paths, p)
	}
	sort.Strings(out)
	return out
}
