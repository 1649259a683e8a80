package record

import (
	"go/ast"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// exportsChecked are the packages whose API is kept small: each exported
// package-level identifier is named (pkg.Name) by another package, tests
// included, or is in exportsKept. Every package of the module is listed
// except the main packages (cmd/anefix, memgen, genpb) and the generated
// proto/anefixpb.
var exportsChecked = []string{
	"graph", "graph/aimodelc", "graph/bundle", "graph/bytecode", "graph/coreaiop",
	"graph/coreaiop/zoo", "graph/f16", "graph/goldentest", "graph/inspect",
	"graph/internal/bigtext", "graph/interp", "graph/interp/compare", "graph/interp/refvec",
	"graph/mlirtext", "graph/modelio", "graph/oracle", "graph/plist", "graph/record",
	"graph/synth", "graph/synth/expect", "graph/synth/variants",
	"passes", "passes/ane", "passes/ane/compiler", "passes/ane/compilerlog", "passes/anefacts",
	"passes/bisect", "passes/internal/cluster", "passes/internal/ops", "passes/internal/proc",
	"passes/plandiff", "passes/probe", "passes/reduce", "passes/rewrite", "passes/synthd", "proto", "proto/jsonschema", "proto/pbprint", "proto/pbview",
}

// exportsKept are exported identifiers no other package names that stay
// exported, with the reason.
var exportsKept = map[string]string{
	"graph.WriteAttr":                     "the streaming printer of large attributes, the untyped form of WriteAttrTypes",
	"graph.FloatArray":                    "the float counterpart of IntArray, kept whole",
	"graph/bytecode.NativeProps":          "graph/bytecode's package doc names it (NativeProps)",
	"graph/bytecode.RegisterNativeLayout": "graph/bytecode's package doc names it (RegisterNativeLayout)",
	"passes/ane.RuleFor":                  "passes/ane's package doc names it (a new rule, group.go's RuleFor)",
	"passes/ane.Pass":                     "passes/ane's package doc: a new rule writes func runX(p *Pass)",
	"passes/bisect.Apply":                 "passes/bisect's package doc names it (Apply)",
	"passes/ane.Architecture":             "what the exported ParseArchitecture returns",
	"graph/bundle.Entry":                  "the element of the exported Input.Entries",
	"graph/interp/compare.StateDrift":     "the element of an exported report field cmd/anefix reads",
	"graph/interp/compare.Range":          "the element of an exported report field cmd/anefix reads; range is a keyword",
	"graph/oracle.T":                      "the parameter of oracle's exported functions; t is every test's *testing.T",
	"passes/plandiff.Regions":             "the element type of Diff.Regions, which cmd/anefix ranges over",
	"passes/plandiff.OpChange":            "the element type of Diff.Ops, which cmd/anefix ranges over",
	"passes/plandiff.PortChange":          "the element type of Diff.Ports, which cmd/anefix ranges over",
	"passes/plandiff.StateChange":         "the element type of Diff.States, which cmd/anefix ranges over",
	"proto/pbview.ChangeKind":             "the type of Change.Kind, the diff view's API",
	"proto/pbview.Removed":                "a value of the exported enum ChangeKind, kept whole (diff names removed ops in the header instead)",
	"graph/plist.XML":                     "a value of the exported Error.Format; xml is an import's name",
	"graph/plist.Binary":                  "a value of the exported Error.Format; binary is an import's name",
	"graph/coreaiop.Role":                 "the type of the exported field Op.Operands and of Data, Param",
	"graph/coreaiop.Scalar":               "a value of the exported enum Role, kept whole",
	"graph/coreaiop.Cond":                 "a value of the exported enum Role, kept whole",
	"graph/coreaiop.Handle":               "a value of the exported enum Role, kept whole",
	"graph/coreaiop.Token":                "a value of the exported enum Role, kept whole",
	"graph/coreaiop.Result":               "the type of the exported field Op.Result and of FollowsData",
	"graph/coreaiop.NoResult":             "a value of the exported enum Result, kept whole",
	"graph/coreaiop.Integer":              "a value of the exported enum Result, kept whole",
	"graph/coreaiop.Bool":                 "a value of the exported enum Result, kept whole",
	"graph/coreaiop.SetByOp":              "a value of the exported enum Result, kept whole",
	"graph/coreaiop.Complex":              "a value of the exported enum Result, kept whole",
	"graph/coreaiop.PartOfComplex":        "a value of the exported enum Result, kept whole",
	"graph/coreaiop.FromRegions":          "a value of the exported enum Result, kept whole",
	"graph/coreaiop.Regions":              "the type of the exported field Op.Regions",
	"graph/coreaiop.NoRegions":            "a value of the exported enum Regions, kept whole",
	"graph/coreaiop.IfElse":               "a value of the exported enum Regions, kept whole",
	"graph/coreaiop.WhileLoop":            "a value of the exported enum Regions, kept whole",
	"graph/coreaiop/zoo.Skip":             "in the type of the exported Skipped",
	"graph/interp.Cliff":                  "in the type of the exported CliffOf",
	"graph/interp.Pair":                   "graph/interp's package doc names it (Pair)",
	"graph/interp.ElemInvalid":            "a value of the exported enum Elem, kept whole",
	"graph/interp.BF16":                   "a value of the exported enum Elem, kept whole",
	"graph/interp.Bool":                   "a value of the exported enum Elem, kept whole",
	"graph/interp.SI8":                    "a value of the exported enum Elem, kept whole",
	"graph/interp.UI8":                    "a value of the exported enum Elem, kept whole",
	"graph/interp.SI16":                   "a value of the exported enum Elem, kept whole",
	"graph/interp.UI16":                   "a value of the exported enum Elem, kept whole",
	"graph/interp.UI32":                   "a value of the exported enum Elem, kept whole",
	"graph/interp.SI64":                   "a value of the exported enum Elem, kept whole",
	"graph/interp.UI64":                   "a value of the exported enum Elem, kept whole",
	"graph/interp.SI4":                    "a value of the exported enum Elem, kept whole",
	"graph/interp.UI4":                    "a value of the exported enum Elem, kept whole",
	"graph/interp.F8E4M3FN":               "a value of the exported enum Elem, kept whole",
	"graph/interp.UI2":                    "a value of the exported enum Elem, kept whole",
	"graph/interp.UI3":                    "a value of the exported enum Elem, kept whole",
	"graph/interp.UI6":                    "a value of the exported enum Elem, kept whole",
	"graph/synth.ArmDFunc":                "in the type of the exported GenerateWith",
	"graph/synth/variants.Axes":           "type of the exported field Case.Axes",
	"passes.ArmDKind":                     "type of the exported field ArmDOptions.Composites",
	"passes.LUTGroup":                     "PASSES.md and passes' package doc name it (LUTGroup)",
	"passes.Option":                       "passes' package doc: a new pass declares Option[T]",
	"passes.Codec":                        "passes' package doc: a new pass uses it (Codec: ListCodec(…))",
	"passes.OptionInfo":                   "in the signature of the exported method Pass.Options",
	"passes.Decls":                        "passes' package doc: a new pass writes declare(d *Decls)",
	"passes.Declare":                      "passes' package doc: a new pass calls Declare",
	"passes.ListCodec":                    "passes' package doc: a new pass names ListCodec",
	"passes.OptionValue":                  "in the signature of the exported method Pass.Values",
	"passes.About":                        "passes' package doc: a new pass writes var fooAbout = About{…}",
	"passes.ConstantChange":               "type of the exported field Change.Constants",
	"passes.Step":                         "type of the exported field Pipeline.Steps",
	"passes.StepResult":                   "type of the exported field Result.Steps",
	"passes.Settings":                     "type of the exported field Context.Settings",
	"passes.StateSettings":                "type of the exported field Settings.States",
	"passes.StatePairOption":              "type of the exported field StateSettings.Pairs",
	"passes.Context":                      "passes' package doc: a new pass takes ctx *Context",
	"passes.Constraint":                   "in the type of the exported Constraints",
}

// TestExportsNamedOutside fails on an exported identifier of a checked
// package that no other package names: unexport it, or keep it in
// exportsKept saying why.
func TestExportsNamedOutside(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	exported := map[string][]string{} // package → its exported names
	named := map[string]bool{}        // "package.Name" named from another package
	err := eachGoFile(root, fset, func(p string, f *ast.File) error {
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
