package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/anefix/anefix/graph/bundle"
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

// checkSideOutput vets a file a flag writes besides the main output (flag
// names it, e.g. "--report"), before any work is done: it must not be or
// lie inside the input or the output, an existing file is replaced only
// with --force and only when it is a regular file (bundle.CheckReplaceFile,
// checked again when it is written), and its directory must exist.
func checkSideOutput(flag, path, in, out string, force bool) error {
	if in != "" && in != "-" && pathWithin(in, path) {
		return fmt.Errorf("%s %s would write into the input %s; anefix never modifies its input, choose another path", flag, path, in)
	}
	if out != "" && out != "-" && pathWithin(out, path) {
		return fmt.Errorf("%s %s is the output (-o %s) or inside it; choose another path", flag, path, out)
	}
	if err := bundle.CheckReplaceFile(path, force); err != nil {
		return fmt.Errorf("%s %w", flag, err)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("%s %s: its directory %s does not exist", flag, path, dir)
	}
	return nil
}
