package zoo

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/coreaiop"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/oracle"
)

// TestZooCoversTheTable: every row has modules in all three forms or a
// stated reason, and no reason is a generation failure.
func TestZooCoversTheTable(t *testing.T) {
	forms := map[string]map[string]bool{}
	for _, m := range Modules() {
		if forms[m.Op] == nil {
			forms[m.Op] = map[string]bool{}
		}
		forms[m.Op][m.Form] = true
	}
	skipped := map[string]string{}
	for _, s := range Skipped() {
		if strings.Contains(s.Why, "zoo bug") {
			t.Errorf("%s: %s", s.Op, s.Why)
		}
		skipped[s.Op] = s.Why
	}
	for _, o := range coreaiop.All() {
		if skipped[o.Name] != "" {
			continue
		}
		for _, f := range allForms {
			if !forms[o.Name][f] {
				t.Errorf("%s: no %s module and no reason", o.Name, f)
			}
		}
	}
	// Every op coreai-torch emits with a published signature has a module.
	for _, o := range coreaiop.All() {
		if o.Torch && o.Example != nil && forms[o.Name] == nil {
			t.Errorf("%s has an example but no module", o.Name)
		}
	}
}

// TestZooDeterministic: the same table gives the same bytes.
func TestZooDeterministic(t *testing.T) {
	a, b := Modules(), Modules()
	if len(a) != len(b) {
		t.Fatalf("%d then %d modules", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Text, b[i].Text) || !bytes.Equal(a[i].Generic, b[i].Generic) {
			t.Fatalf("%s differs between two runs", a[i].Name)
		}
	}
}

// TestZooParses: the printed form and the generic form read back to the
// same module, and the printed form prints back unchanged.
func TestZooParses(t *testing.T) {
	for _, m := range Modules() {
		pm, _, err := mlirtext.Parse(m.Name, string(m.Text))
		if err != nil {
			t.Errorf("%s: printed form: %v\n%s", m.Name, err, m.Text)
			continue
		}
		if err := graph.Verify(pm); err != nil {
			t.Errorf("%s: does not verify: %v\n%s", m.Name, err, m.Text)
		}
		pm.Walk(func(op *graph.Operation) bool {
			if why := coreaiop.Mismatch(op); why != "" {
				t.Errorf("%s: the example breaks its own row: %s", m.Name, why)
			}
			return true
		})
		gm, _, err := mlirtext.Parse(m.Name, string(m.Generic))
		if err != nil {
			t.Errorf("%s: generic form: %v", m.Name, err)
			continue
		}
		p1, _ := mlirtext.Format(pm, mlirtext.FormPretty)
		g1, _ := mlirtext.Format(gm, mlirtext.FormGeneric)
		if !bytes.Equal(p1, m.Text) {
			t.Errorf("%s: printed form does not print back unchanged:\n%s\n---\n%s", m.Name, m.Text, p1)
		}
		if !bytes.Equal(g1, m.Generic) {
			t.Errorf("%s: generic form does not print back unchanged", m.Name)
		}
		if !strings.Contains(string(m.Text), "coreai.graph @main") {
			t.Errorf("%s: no @main", m.Name)
		}
	}
}

// TestZooMlirOpt: mlir-opt 22 (and 19) read every module's generic form,
// in one run over a split file.
func TestZooMlirOpt(t *testing.T) {
	paths := oracle.MlirOptPaths(t)
	var b bytes.Buffer
	for i, m := range Modules() {
		if i > 0 {
			b.WriteString("\n// -----\n")
		}
		b.Write(m.Generic)
	}
	file := filepath.Join(t.TempDir(), "zoo.mlir")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bin := range paths {
		if _, err := oracle.RunMlirOpt(bin, "", "--split-input-file", "--mlir-print-op-generic", file); err != nil {
			t.Errorf("%s: %v", bin, err)
		}
	}
}
