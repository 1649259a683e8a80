package passes

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestEveryPassListed: every pass this package declares is in the table
// (or is a setting group): each package-level About variable is some
// row's About, and each options struct with a declare method is some
// row's options type. Read from the source (go/parser), so a pass whose
// file exists but whose row was never added fails here, not silently.
func TestEveryPassListed(t *testing.T) {
	files := parsePackage(t)
	if got := unlisted(files); len(got) > 0 {
		t.Errorf("declared but not listed in the table (table.go) or settingGroups (settings.go): %s", strings.Join(got, ", "))
	}
	// The source check sees what the running table holds.
	abouts, opts, _, _ := listedAndDeclared(files)
	if n := len(table) + len(settingGroups); len(abouts) != n || len(opts) != n {
		t.Errorf("%d About variables and %d options structs declared, %d table rows and setting groups", len(abouts), len(opts), n)
	}
}

// TestEveryPassListedCatches: the check reports a pass file without a row
// (a stand-in file, parsed from the string below).
func TestEveryPassListedCatches(t *testing.T) {
	fake, err := parser.ParseFile(token.NewFileSet(), "fake_pass.go", `package passes
var fakeAbout = About{Summary: "a pass nobody listed"}
type FakeOptions struct{ N int }
func (o *FakeOptions) declare(d *Decls) { Declare(d, &o.N, Option[int]{Name: "n"}) }
`, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := unlisted(append(parsePackage(t), fake))
	if !slices.Equal(got, []string{"About fakeAbout", "options FakeOptions"}) {
		t.Errorf("unlisted = %q, want the fake pass's About and options", got)
	}
}

func parsePackage(t *testing.T) []*ast.File {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		src, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, n, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// unlisted names the About variables and options structs declared in
// files that no table row or setting group uses.
func unlisted(files []*ast.File) []string {
	abouts, opts, usedAbout, usedOpts := listedAndDeclared(files)
	var out []string
	for _, a := range abouts {
		if !usedAbout[a] {
			out = append(out, "About "+a)
		}
	}
	for _, o := range opts {
		if !usedOpts[o] {
			out = append(out, "options "+o)
		}
	}
	return out
}

// listedAndDeclared reads, from the source: the package-level variables
// initialised with an About literal; the types with a declare(*Decls)
// method; and what the rows of table and settingGroups use (About: X,
// and the options type of bind[T], bindCtx[T], optionsRunner[T]).
func listedAndDeclared(files []*ast.File) (abouts, opts []string, usedAbout, usedOpts map[string]bool) {
	usedAbout, usedOpts = map[string]bool{}, map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.GenDecl:
				for _, s := range d.Specs {
					vs, ok := s.(*ast.ValueSpec)
					if !ok {
						continue
					}
					for i, v := range vs.Values {
						if cl, ok := v.(*ast.CompositeLit); ok && isIdent(cl.Type, "About") {
							abouts = append(abouts, vs.Names[i].Name)
						}
					}
				}
			case *ast.FuncDecl:
				if d.Recv != nil && d.Name.Name == "declare" && len(d.Recv.List) == 1 {
					if st, ok := d.Recv.List[0].Type.(*ast.StarExpr); ok {
						if id, ok := st.X.(*ast.Ident); ok {
							opts = append(opts, id.Name)
						}
					}
				}
			}
		}
		// Rows: composite literals of Pass (the elements of table and
		// settingGroups are &Pass literals or elided {…} of []*Pass).
		ast.Inspect(f, func(n ast.Node) bool {
			kv, ok := n.(*ast.KeyValueExpr)
			if !ok {
				return true
			}
			key, _ := kv.Key.(*ast.Ident)
			switch {
			case key != nil && key.Name == "About":
				if id, ok := kv.Value.(*ast.Ident); ok {
					usedAbout[id.Name] = true
				}
			case key != nil && key.Name == "Func":
				ast.Inspect(kv.Value, func(n ast.Node) bool {
					if ix, ok := n.(*ast.IndexExpr); ok && (isIdent(ix.X, "bind") || isIdent(ix.X, "bindCtx") || isIdent(ix.X, "optionsRunner")) {
						if id, ok := ix.Index.(*ast.Ident); ok {
							usedOpts[id.Name] = true
						}
					}
					return true
				})
			}
			return true
		})
	}
	return abouts, opts, usedAbout, usedOpts
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
