package main

import (
	"path/filepath"
	"strings"
)

// resolvePath makes p absolute with symbolic links resolved as far as the
// path exists, so that two spellings of one place compare equal even when
// the last components do not exist yet.
func resolvePath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	cur, rest := abs, ""
	for {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// pathWithin reports whether p is root or lies below it, after resolving
// both (see resolvePath).
func pathWithin(root, p string) bool {
	rel, err := filepath.Rel(resolvePath(root), resolvePath(p))
	if err != nil {
		return false
	}
	return rel == "." || rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
