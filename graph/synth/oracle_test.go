package synth

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/bytecode"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/oracle"
)

func encode(t *testing.T, m *graph.Module) (text, bc []byte) {
	t.Helper()
	text, err := mlirtext.Format(m, mlirtext.FormGeneric)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := bytecode.Write(&b, m, bytecode.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	return text, b.Bytes()
}

func mlirOpt(t *testing.T, bin, path string) string {
	t.Helper()
	out, err := oracle.RunMlirOpt(bin, "", "--mlir-print-op-generic", "--mlir-print-debuginfo", path)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// Every arm's generic form parses in Debian's mlir-opt, and mlir-opt reads
// the same IR from the text and from the bytecode anefix writes.
func TestMlirOptReadsEveryArm(t *testing.T) {
	bin := oracle.MlirOpt(t)
	dir := t.TempDir()
	for _, o := range []Options{{Arm: ArmA}, {Arm: ArmB}, {Arm: ArmC}, {Arm: ArmD}, {Arm: ArmE}, {Arm: ArmA, Layers: 8, Ctx: 32, Seed: 5}, {Arm: ArmB, StateForm: StateHandle}, {Arm: ArmD, StateForm: StateHandle}, {Arm: ArmB, Recurrence: RecurrenceComposite}} {
		text, bc := encode(t, gen(t, o))
		tp := filepath.Join(dir, "arm"+o.Arm.String()+o.StateForm+o.Recurrence+".mlir")
		bp := filepath.Join(dir, "arm"+o.Arm.String()+o.StateForm+o.Recurrence+".mlirb")
		if err := os.WriteFile(tp, text, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bp, bc, 0o644); err != nil {
			t.Fatal(err)
		}
		fromText, fromBC := mlirOpt(t, bin, tp), mlirOpt(t, bin, bp)
		if fromText != fromBC {
			t.Errorf("%+v: mlir-opt prints the text and the bytecode differently", o)
		}
		for _, want := range []string{`"coreai.graph"`, `"coreai.cast"`, `dialect_resources`} {
			if !strings.Contains(fromText, want) {
				t.Errorf("%+v: mlir-opt output lacks %s", o, want)
			}
		}
		if o.Arm != ArmE && o.Arm != ArmD && o.Recurrence == "" && !strings.Contains(fromText, `qwen3_5_ios.py":290:0`) {
			t.Errorf("%+v: mlir-opt output lacks the recurrence call frame", o)
		}
	}
}

// Same options, same bytes; another seed changes only the weights.
func TestDeterministic(t *testing.T) {
	for _, o := range []Options{{Arm: ArmA}, {Arm: ArmE}} {
		t1, b1 := encode(t, gen(t, o))
		t2, b2 := encode(t, gen(t, o))
		if !bytes.Equal(t1, t2) || !bytes.Equal(b1, b2) {
			t.Errorf("%+v: two runs differ", o)
		}
		if o.Arm == ArmE {
			continue // 4.5 MB of text; the A case covers seeds
		}
		o.Seed = 99
		t3, _ := encode(t, gen(t, o))
		i1, i3 := bytes.Index(t1, []byte("{-#")), bytes.Index(t3, []byte("{-#"))
		if i1 < 0 || i3 < 0 || !bytes.Equal(t1[:i1], t3[:i3]) || bytes.Equal(t1[i1:], t3[i3:]) {
			t.Errorf("%+v: seed should change the resources and nothing else", o)
		}
	}
}

// The generic text reads back into the same module: mlir-opt prints the
// re-printed text exactly as it prints the original.
func TestTextRoundTrip(t *testing.T) {
	bin := oracle.MlirOpt(t)
	text, _ := encode(t, gen(t, Options{Arm: ArmB}))
	m, _, err := mlirtext.Parse("armB.mlir", string(text))
	if err != nil {
		t.Fatal(err)
	}
	if err := graph.Verify(m); err != nil {
		t.Fatal(err)
	}
	again, _ := encode(t, m)
	dir := t.TempDir()
	p1, p2 := filepath.Join(dir, "a.mlir"), filepath.Join(dir, "b.mlir")
	if err := os.WriteFile(p1, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p2, again, 0o644); err != nil {
		t.Fatal(err)
	}
	if mlirOpt(t, bin, p1) != mlirOpt(t, bin, p2) {
		t.Error("parse → print of arm B's generic text changed the IR")
	}
}
