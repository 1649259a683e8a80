package record

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// exportsChecked are the packages whose API is kept small: each exported
// package-level identifier is named (pkg.Name) by another package, tests
// included, or is in exportsKept. The packages not listed have not been
// trimmed yet.
var exportsChecked = []string{
	"graph", "graph/aimodelc", "graph/bundle", "graph/bytecode", "graph/f16", "graph/goldentest",
	"graph/inspect", "graph/internal/bigtext", "graph/interp/compare", "graph/interp/refvec",
	"graph/mlirtext", "graph/modelio", "graph/oracle", "graph/plist",
	"passes/ane", "passes/ane/compiler", "passes/ane/compilerlog", "passes/bisect",
	"passes/internal/cluster", "passes/internal/ops", "passes/internal/proc", "passes/probe",
	"passes/reduce", "passes/rewrite", "proto/pbprint",
}

// exportsKept are exported identifiers no other package names that stay
// exported, with the reason.
var exportsKept = map[string]string{
	"graph.WriteAttr":                     "README names it (graph.WriteAttr)",
	"graph.FloatArray":                    "README names it (graph.FloatArray)",
	"graph/bytecode.NativeProps":          "README names it (bytecode.NativeProps.Describe)",
	"graph/bytecode.RegisterNativeLayout": "README names it (bytecode.RegisterNativeLayout)",
	"passes/ane.RuleFor":                  "README names it (group.go's RuleFor)",
	"passes/ane.Pass":                     "README's newcomer task writes func runX(p *Pass)",
	"passes/bisect.Apply":                 "README names it (bisect's Apply)",
	"passes/ane.Architecture":             "what the exported ParseArchitecture returns",
	"graph/bundle.Entry":                  "the element of the exported Input.Entries",
	"graph/interp/compare.StateDrift":     "the element of an exported report field cmd/anefix reads",
	"graph/interp/compare.Range":          "the element of an exported report field cmd/anefix reads; range is a keyword",
	"graph/oracle.T":                      "the parameter of oracle's exported functions; t is every test's *testing.T",
	"graph/plist.XML":                     "a value of the exported Error.Format; xml is an import's name",
	"graph/plist.Binary":                  "a value of the exported Error.Format; binary is an import's name",
}

// TestExportsNamedOutside fails on an exported identifier of a checked
// package that no other package names: unexport it, or keep it in
// exportsKept saying why.
func TestExportsNamedOutside(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	exported := map[string][]string{} // package → its exported names
	named := map[string]bool{}        // "package.Name" named from another package
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".pb.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(p))
		dir = filepath.ToSlash(dir)
		if !strings.HasSuffix(p, "_test.go") {
			exported[dir] = append(exported[dir], exportedNames(f)...)
		}
		imports := map[string]string{} // name in this file → package
		for _, is := range f.Imports {
			path, _ := strconv.Unquote(is.Path.Value)
			pkg, ok := strings.CutPrefix(path, module)
			if !ok {
				continue
			}
			name := filepath.Base(pkg)
			if is.Name != nil {
				name = is.Name.Name
			}
			imports[name] = pkg
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if se, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := se.X.(*ast.Ident); ok && imports[id.Name] != "" {
					named[imports[id.Name]+"."+se.Sel.Name] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range exportsChecked {
		names, ok := exported[pkg]
		if !ok {
			t.Errorf("exportsChecked lists %s, which has no Go files", pkg)
		}
		for _, n := range names {
			if !named[pkg+"."+n] && exportsKept[pkg+"."+n] == "" {
				t.Errorf("%s.%s is exported but no other package names it: unexport it, or add it to exportsKept with the reason", pkg, n)
			}
		}
	}
	for k := range exportsKept {
		pkg, n, _ := strings.Cut(k, ".")
		if !slices.Contains(exported[pkg], n) {
			t.Errorf("exportsKept lists %s, which is not an exported identifier", k)
		} else if named[k] {
			t.Errorf("exportsKept lists %s, which another package names: drop it from the list", k)
		}
	}
}

// exportedNames returns f's exported package-level identifiers (methods
// and fields excepted: they serve interfaces and encodings).
func exportedNames(f *ast.File) []string {
	var ns []string
	add := func(id *ast.Ident) {
		if id.IsExported() {
			ns = append(ns, id.Name)
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				add(d.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					add(s.Name)
				case *ast.ValueSpec:
					for _, id := range s.Names {
						add(id)
					}
				}
			}
		}
	}
	return ns
}
