package record

import (
	"go/build"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/anefix/anefix/"

// The record is one type every layer imports, so it must stay below all of
// them: graph/record imports nothing of anefix's, and no graph/… package
// (graph/bundle stores the record, graph/modelio writes it,
// graph/interp/compare reads it) imports passes/… or cmd/…; no passes/…
// package imports cmd/… (README "Layout" lists what each may import).
func TestLayering(t *testing.T) {
	root := filepath.Join("..", "..")
	seen := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") && p != root {
			return filepath.SkipDir
		}
		pkg, err := build.Default.ImportDir(p, 0)
		if err != nil {
			return nil // no Go files here
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		seen[rel] = true
		for _, imp := range pkg.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			switch {
			case rel == "graph/record":
				t.Errorf("graph/record imports %s: it must import nothing of anefix's, so that every layer can import it", dep)
			case strings.HasPrefix(rel, "graph/") || rel == "graph":
				if strings.HasPrefix(dep, "passes") || strings.HasPrefix(dep, "cmd/") {
					t.Errorf("%s imports %s: graph/… is below passes and cmd", rel, dep)
				}
			case strings.HasPrefix(rel, "passes"):
				if strings.HasPrefix(dep, "cmd/") {
					t.Errorf("%s imports %s: passes/… is below cmd", rel, dep)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"graph/record", "graph/bundle", "graph/modelio", "passes", "cmd/anefix"} {
		if !seen[p] {
			t.Errorf("the walk from %s did not find package %s", root, p)
		}
	}
}
