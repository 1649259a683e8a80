package record

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the longest function (first line to closing brace) the
// repository allows: past it a function does several jobs, or carries a
// case table that belongs in a package-level variable beside it.
const maxFuncLines = 150

// TestNoLongFunctions parses every .go file of the module (generated .pb.go
// excepted) and fails on each function or method longer than maxFuncLines.
func TestNoLongFunctions(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	files := 0
	err := eachGoFile(root, fset, func(p string, f *ast.File) error {
		files++
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			start, end := fset.Position(fd.Pos()), fset.Position(fd.End())
			if n := end.Line - start.Line + 1; n > maxFuncLines {
				rel, _ := filepath.Rel(root, p)
				t.Errorf("%s:%d: %s is %d lines, more than %d: split it, or move its case table to a package-level variable", filepath.ToSlash(rel), start.Line, funcName(fd), n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Errorf("parsed %d .go files from %s; the walk missed the module", files, root)
	}
}

func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	recv := fd.Recv.List[0].Type
	if s, ok := recv.(*ast.StarExpr); ok {
		recv = s.X
	}
	if ix, ok := recv.(*ast.IndexExpr); ok {
		recv = ix.X
	}
	if id, ok := recv.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// eachGoFile parses every .go file of the module below root, except
// testdata, dot directories and generated protobuf code, and calls fn with
// its path and syntax tree: the walk TestNoLongFunctions and
// TestExportsNamedOutside share.
func eachGoFile(root string, fset *token.FileSet, fn func(path string, f *ast.File) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
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
		return fn(p, f)
	})
}
