package record

import (
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/anefix/anefix/"

// The README's layering table (between the markers below) is the import
// rule of every package: a package's non-test imports of anefix must be
// exactly its row. So an upward import fails (no row allows it), a rule that
// is no longer true fails (the row names an import the package dropped), and
// a row for a package that does not exist fails. graph/record itself is the
// row with no imports: every layer stores or reads the record, so it stays
// below all of them.
const (
	layeringBegin = "<!-- layering:begin -->"
	layeringEnd   = "<!-- layering:end -->"
)

// readLayering parses the table: "| `pkg` | `a`, `b` | why |" rows, "—"
// for no imports.
func readLayering(t *testing.T, readme string) map[string][]string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, layeringBegin)
	block, _, ok2 := strings.Cut(rest, layeringEnd)
	if !ok || !ok2 {
		t.Fatalf("README.md has no %s … %s table", layeringBegin, layeringEnd)
	}
	rows := map[string][]string{}
	for i, line := range strings.Split(strings.TrimSpace(block), "\n") {
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if i < 2 { // header and its rule
			continue
		}
		if len(cells) < 2 {
			t.Fatalf("README.md layering table: row %q has no imports column", line)
		}
		pkg := strings.Trim(strings.TrimSpace(cells[0]), "`")
		if _, dup := rows[pkg]; dup {
			t.Errorf("README.md layering table: %s has two rows", pkg)
		}
		imps := []string{}
		if s := strings.TrimSpace(cells[1]); s != "—" {
			for _, imp := range strings.Split(s, ",") {
				imps = append(imps, strings.Trim(strings.TrimSpace(imp), "`"))
			}
		}
		rows[pkg] = imps
	}
	return rows
}

// packageImports walks the module from root and returns each package's
// non-test imports of anefix (what `go list -f '{{.Imports}}'` shows).
func packageImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
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
		imps := []string{}
		for _, imp := range pkg.Imports {
			if dep, ok := strings.CutPrefix(imp, module); ok {
				imps = append(imps, dep)
			}
		}
		pkgs[rel] = imps
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func TestLayering(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	checkLayering(t, readLayering(t, string(readme)), packageImports(t, root))
}

// checkLayering reports every difference between the README's rows and
// the packages' imports, each in the words a reader fixes it with.
func checkLayering(t testing.TB, rows, pkgs map[string][]string) {
	for _, p := range []string{"graph/record", "graph/bundle", "graph/modelio", "passes", "cmd/anefix"} {
		if _, ok := pkgs[p]; !ok {
			t.Errorf("the walk did not find package %s", p)
		}
	}
	for pkg, imps := range pkgs {
		allowed, ok := rows[pkg]
		if !ok {
			t.Errorf("package %s has no row in README.md's layering table: add one with what it imports (%s)", pkg, strings.Join(imps, ", "))
			continue
		}
		for _, imp := range imps {
			if !slices.Contains(allowed, imp) {
				t.Errorf("%s imports %s, which its row in README.md's layering table does not allow: remove the import, or add it to the row if it points down", pkg, imp)
			}
		}
		for _, a := range allowed {
			if !slices.Contains(imps, a) {
				t.Errorf("README.md's layering table says %s imports %s, but it does not: remove %s from the row", pkg, a, a)
			}
		}
	}
	for pkg := range rows {
		if _, ok := pkgs[pkg]; !ok {
			t.Errorf("README.md's layering table has a row for %s, which is not a package of the module", pkg)
		}
	}
}

// TestLayeringCatches feeds checkLayering a hand-made table and imports
// with one of each fault, so that the check is known to fail on them.
func TestLayeringCatches(t *testing.T) {
	readme := "x\n" + layeringBegin + "\n| package | imports | why |\n|---|---|---|\n" +
		"| `graph/record` | — | |\n| `graph/bundle` | `graph/record` | |\n| `graph/modelio` | `graph/bundle`, `graph/f16` | |\n" +
		"| `passes` | — | |\n| `cmd/anefix` | `passes` | |\n| `graph/gone` | — | |\n" + layeringEnd + "\n"
	pkgs := map[string][]string{
		"graph/record":  {"passes"},       // upward
		"graph/bundle":  {"graph/record"}, // fine
		"graph/modelio": {"graph/bundle"}, // the row's graph/f16 is stale
		"passes":        {},               // fine
		"cmd/anefix":    {"passes"},       // fine
		"graph/new":     {"graph/record"}, // no row
	}
	rec := &recorder{TB: t}
	checkLayering(rec, readLayering(t, readme), pkgs)
	want := []string{
		"graph/record imports passes",
		"says graph/modelio imports graph/f16",
		"package graph/new has no row",
		"row for graph/gone, which is not a package",
	}
	if len(rec.errs) != len(want) {
		t.Errorf("checkLayering reported %d faults, want %d: %q", len(rec.errs), len(want), rec.errs)
	}
	for _, w := range want {
		if !slices.ContainsFunc(rec.errs, func(e string) bool { return strings.Contains(e, w) }) {
			t.Errorf("checkLayering did not report %q; it reported %q", w, rec.errs)
		}
	}
}

type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
