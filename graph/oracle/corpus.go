package oracle

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// corpusInstall says where the corpus goes; it is never copied into the
// repository (README "For contributors").
const corpusInstall = "put Apple's files at ../shared/corpus beside the repository (read-only)"

// CorpusDir is the real corpus, files written by Apple's toolchain kept
// beside the repository (../shared/corpus from the directory holding
// go.mod), found from the working directory (a test's is its package's).
func CorpusDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return filepath.Join("..", "shared", "corpus")
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(d), "shared", "corpus")
		}
		if filepath.Dir(d) == d {
			return filepath.Join("..", "shared", "corpus")
		}
	}
}

// CorpusFiles returns the corpus files whose names end in one of exts,
// sorted. With none it skips the test, or fails it when Required.
func CorpusFiles(t T, exts ...string) []string {
	t.Helper()
	return corpusList(t, true, "corpus files *"+strings.Join(exts, ", *"), func(dir string) []string { return walkExts(dir, exts) })
}

// CorpusGlob returns the corpus paths matching pattern (relative to
// CorpusDir), sorted. With none it skips the test, or fails it when
// Required.
func CorpusGlob(t T, pattern string) []string {
	t.Helper()
	return corpusList(t, true, "corpus "+pattern, func(dir string) []string { return glob(dir, pattern) })
}

// CorpusSeedFiles is CorpusFiles for a fuzz target's seeds: with no corpus
// it returns nil (the target still runs on its committed seeds), failing
// only when Required.
func CorpusSeedFiles(t T, exts ...string) []string {
	t.Helper()
	return corpusList(t, false, "corpus files *"+strings.Join(exts, ", *"), func(dir string) []string { return walkExts(dir, exts) })
}

// CorpusSeedGlob is CorpusGlob for a fuzz target's seeds (see
// CorpusSeedFiles).
func CorpusSeedGlob(t T, pattern string) []string {
	t.Helper()
	return corpusList(t, false, "corpus "+pattern, func(dir string) []string { return glob(dir, pattern) })
}

func corpusList(t T, skip bool, what string, find func(dir string) []string) []string {
	t.Helper()
	dir := CorpusDir()
	ps := find(dir)
	if len(ps) == 0 && (skip || required()) {
		missing(t, what, corpusInstall, errors.New("nothing under "+dir))
	}
	slices.Sort(ps)
	return ps
}

func glob(dir, pattern string) []string {
	ps, _ := filepath.Glob(filepath.Join(dir, pattern))
	return ps
}

func walkExts(dir string, exts []string) []string {
	var ps []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && slices.ContainsFunc(exts, func(e string) bool { return strings.HasSuffix(p, e) }) {
			ps = append(ps, p)
		}
		return nil
	})
	return ps
}
