package compilerlog

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func parseFile(t *testing.T, name string) *Log {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "..", "testdata", "compilerlogs", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestIssue205EmptyErrorList(t *testing.T) {
	l := parseFile(t, "issue205-empty-errorlist.log")
	if len(l.Failures) != 1 {
		t.Fatalf("failures = %d, want 1", len(l.Failures))
	}
	f := l.Failures[0]
	if f.OSStatus != 0 || !f.HasStatus || f.Status != 1 || f.Truncated {
		t.Errorf("status: %+v", f)
	}
	if len(f.ErrorList) != 0 {
		t.Errorf("ErrorList = %q, want empty", f.ErrorList)
	}
	want := region{File: "extend_1024_16_..._ANE_region_1_0.bc.mlir", Function: "extend_1024_16_...", I: 1, J: 0, Valid: true}
	if f.Region != want {
		t.Errorf("region = %+v, want %+v", f.Region, want)
	}
	if len(l.Diagnostics) != 0 {
		t.Errorf("diagnostics = %+v", l.Diagnostics)
	}
}

func TestSeedArmA(t *testing.T) {
	l := parseFile(t, "seed-arm-a.log")
	if got := l.Count(KindElementType); got != 3 {
		t.Errorf("element-type = %d, want 3", got)
	}
	if got := l.Count(KindIOOp); got != 3 {
		t.Errorf("io-op = %d, want 3", got)
	}
	if got := l.Count(KindReorder); got != 1 {
		t.Errorf("reorder = %d, want 1", got)
	}
	d := l.Diagnostics[0]
	if d.Severity != "warning" || d.OpName != "coreai.cast" || !reflect.DeepEqual(d.OpIDs, []string{"_to_copy_12"}) ||
		d.SrcLine != 199 || !strings.HasSuffix(d.File, "macos/qwen3_5.py") ||
		d.Validation != "Incompatible element type for ANE: expected fp16, f8E4M3, si8, ui8, si16, or ui16" {
		t.Errorf("first diagnostic: %+v", d)
	}
	io := l.Diagnostics[5]
	if io.Kind != KindIOOp || io.OpName != "coreai.decomposable.broadcasting_add" || io.OpIDs[0] != "add_40" || io.SrcLine != 330 {
		t.Errorf("io diagnostic: %+v", io)
	}
	if l.Diagnostics[6].Distance != 50 || l.Diagnostics[6].Severity != "note" {
		t.Errorf("reorder: %+v", l.Diagnostics[6])
	}
	if len(l.Failures) != 1 || l.Failures[0].Region.Function != "main_..." {
		t.Errorf("failures: %+v", l.Failures)
	}
	// The timestamp line and "Error:" are not diagnostics.
	if l.Unclassified != 2 {
		t.Errorf("unclassified = %d, want 2", l.Unclassified)
	}
}

// A message no rule knows is kept as the compiler printed it (issue 20:
// the bf16 element-type error was counted and never shown).
func TestUnclassifiedKept(t *testing.T) {
	l := parseFile(t, "zimage-bf16-input.log")
	want := []otherLine{
		{Line: 1, Text: "Incompatible element type for parameter at index 0,", Count: 1},
		{Line: 2, Text: "mlir module expected element type bf16 but received f16", Count: 1},
	}
	if !reflect.DeepEqual(l.Other, want) || l.Unclassified != 2 || l.OtherNotKept != 0 || len(l.Diagnostics) != 0 {
		t.Errorf("other %+v (unclassified %d, not kept %d, diagnostics %d), want %+v", l.Other, l.Unclassified, l.OtherNotKept, len(l.Diagnostics), want)
	}
}

// Noise is deduplicated and bounded: repeats count on the first copy,
// texts past MaxKeptOther are counted, not kept, and every count adds up.
func TestUnclassifiedBounded(t *testing.T) {
	cases := []struct {
		name             string
		distinct, repeat int
	}{
		{"one text many times", 1, 5000},
		{"few texts repeated", 7, 300},
		{"exactly the bound", MaxKeptOther, 2},
		{"past the bound", 3 * MaxKeptOther, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := NewParser()
			for r := 0; r < c.repeat; r++ {
				for i := 0; i < c.distinct; i++ {
					fmt.Fprintf(p, "  noise line %d:%s\n", i, strings.Repeat("x", i%3*maxKeptText))
				}
			}
			l := p.Finish()
			kept := min(c.distinct, MaxKeptOther)
			if len(l.Other) != kept {
				t.Fatalf("kept %d texts, want %d", len(l.Other), kept)
			}
			sum := l.OtherNotKept
			for i, o := range l.Other {
				sum += o.Count
				if o.Count != c.repeat || o.Line != i+1 || len(o.Text) > maxKeptText || !strings.HasPrefix(o.Text, fmt.Sprintf("noise line %d:", i)) {
					t.Fatalf("record %d: line %d count %d text %.40q", i, o.Line, o.Count, o.Text)
				}
			}
			if sum != c.distinct*c.repeat || l.Unclassified != sum {
				t.Errorf("counts add up to %d (unclassified %d), want %d", sum, l.Unclassified, c.distinct*c.repeat)
			}
		})
	}
}

func TestSeedArmD(t *testing.T) {
	l := parseFile(t, "seed-arm-d.log")
	if l.Count(KindReorder) != 7 || l.Count(KindElementType) != 0 || l.Count(KindIOOp) != 0 {
		t.Errorf("counts: reorder %d element %d io %d", l.Count(KindReorder), l.Count(KindElementType), l.Count(KindIOOp))
	}
	if len(l.Failures) != 1 || len(l.Failures[0].ErrorList) != 0 {
		t.Errorf("failures: %+v", l.Failures)
	}
}

func TestErrorListEntries(t *testing.T) {
	l := parseFile(t, "fake-errorlist.log")
	if len(l.Failures) != 1 {
		t.Fatalf("failures: %+v", l.Failures)
	}
	f := l.Failures[0]
	want := []string{`Unsupported op "gather" (a made-up entry)`, `{Code = 7; Layer = main_merged_0}`}
	if !reflect.DeepEqual(f.ErrorList, want) {
		t.Errorf("ErrorList = %q, want %q", f.ErrorList, want)
	}
	if f.OSStatus != -1 || f.Status != 3 || f.Region.I != 2 || f.Region.J != 1 || f.Region.Function != "prompt_opt_256_8" {
		t.Errorf("failure: %+v", f)
	}
	if !reflect.DeepEqual(f.Fields, []field{{"NetworkName", "net"}}) {
		t.Errorf("fields: %+v", f.Fields)
	}
}

func TestLineLayouts(t *testing.T) {
	cases := []struct {
		line            string
		kind            Kind
		sev, file, opID string
		srcLine         int
	}{
		// MLIR style with a quoted file location.
		{`"a/b/qwen3_5_ios.py":290:0: warning: "ane_validation_message"("Incompatible element type for ANE: expected fp16, f8E4M3, si8, ui8, si16, or ui16") at "_to_copy_3"`,
			KindElementType, "warning", "a/b/qwen3_5_ios.py", "_to_copy_3", 290},
		// loc(...) printed location with a name.
		{`loc("unsqueeze_7"("m.py":12:4)): warning: op failed: ANE I/O op isn't a squeeze / expandDims`,
			KindIOOp, "warning", "m.py", "unsqueeze_7", 12},
		// No severity, phrase only.
		{`Reached maxReorderingDistance 50`, KindReorder, "", "", "", 0},
		// Another validation message.
		{`x.py:3:1: warning: "ane_validation_message"("Something else")`, KindValidation, "warning", "x.py", "", 3},
		{`x.py:3:1: error: 'coreai.foo' op bad`, KindOther, "error", "x.py", "", 3},
	}
	for _, c := range cases {
		d, ok := parseDiagnostic(c.line, 1)
		if !ok {
			t.Errorf("%q: not a diagnostic", c.line)
			continue
		}
		id := ""
		if len(d.OpIDs) > 0 {
			id = d.OpIDs[0]
		}
		if d.Kind != c.kind || d.Severity != c.sev || d.File != c.file || id != c.opID || d.SrcLine != c.srcLine {
			t.Errorf("%q:\n got kind %v sev %q file %q id %q line %d", c.line, d.Kind, d.Severity, d.File, id, d.SrcLine)
		}
	}
	for _, s := range []string{"compiling main", "Error:", "", "   "} {
		if _, ok := parseDiagnostic(s, 1); ok {
			t.Errorf("%q parsed as a diagnostic", s)
		}
	}
}

func TestTruncatedBlock(t *testing.T) {
	l, err := Parse(strings.NewReader(" ANECCompileOffline() failed: OSStatus=0, aneCompileStatus=2, statusdict={\n  ErrorList = (\n \"x\""))
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Failures) != 1 || !l.Failures[0].Truncated || l.Failures[0].Status != 2 {
		t.Errorf("%+v", l.Failures)
	}
}

func TestLongLine(t *testing.T) {
	// An over-long line is cut, counted and parsed, never an error: the
	// compiler's log must not end a compile that already ran.
	in := "warning: " + phraseElementType + strings.Repeat("x", maxLineBytes+10) + "\nwarning: " + phraseIOOp + "\n"
	l, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if l.LongLines != 1 || l.Lines != 2 || l.Count(KindElementType) != 1 || l.Count(KindIOOp) != 1 {
		t.Errorf("long %d, lines %d, counts %v", l.LongLines, l.Lines, l.Counts)
	}
	if len(l.Diagnostics[0].Raw) > maxKeptText {
		t.Errorf("kept %d bytes of the long line", len(l.Diagnostics[0].Raw))
	}
}

// hugeLog writes n diagnostic lines over groups op names, plus a failure
// block every 1000 lines (a generated log, not a compiler's).
func hugeLog(w io.Writer, n, groups int) {
	bw := bufio.NewWriter(w)
	for i := 0; i < n; i++ {
		fmt.Fprintf(bw, "model.py:%d:3: warning: 'coreai.op%d' op \"add_%d\" %s: expected f16, got f32\n", i, i%groups, i, phraseElementType)
		if i%1000 == 999 {
			fmt.Fprintf(bw, "%s: OSStatus=-1 aneCompileStatus=2 statusdict={\n  ErrorList = ();\n}\n", phraseANECFailed)
		}
	}
	bw.Flush()
}

func TestRetentionBounded(t *testing.T) {
	// Before the streaming parser every diagnostic was kept (a 300 MB log
	// took 4.6 GB): the kept records must stay within the bounds while the
	// counts cover the whole log.
	const n, groups = 200000, 300
	pr, pw := io.Pipe()
	go func() { hugeLog(pw, n, groups); pw.Close() }()
	l, err := Parse(pr)
	if err != nil {
		t.Fatal(err)
	}
	if l.Count(KindElementType) != n || l.Lines != n+3*(n/1000) {
		t.Errorf("count %d, lines %d", l.Count(KindElementType), l.Lines)
	}
	if len(l.Diagnostics) > MaxKept || len(l.Failures) > MaxKeptFailures {
		t.Errorf("kept %d diagnostics, %d failures", len(l.Diagnostics), len(l.Failures))
	}
	if len(l.Diagnostics)+l.DroppedDiagnostics != n || len(l.Failures)+l.DroppedFailures != n/1000 {
		t.Errorf("kept+dropped: %d+%d, %d+%d", len(l.Diagnostics), l.DroppedDiagnostics, len(l.Failures), l.DroppedFailures)
	}
	perGroup := map[string]int{}
	for _, d := range l.Diagnostics {
		perGroup[d.OpName]++
	}
	if len(perGroup) != groups {
		t.Errorf("%d groups kept, want every one of %d (first occurrences)", len(perGroup), groups)
	}
	for g, c := range perGroup {
		if c > MaxKeptPerGroup {
			t.Errorf("group %s kept %d", g, c)
		}
	}
}

func TestWriteChunking(t *testing.T) {
	// The parser sees a compiler's stderr in arbitrary pieces; the result
	// must not depend on where they split.
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "compilerlogs", "seed-arm-a.log"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Parse(bytes.NewReader(b))
	for _, size := range []int{1, 2, 7, 4096} {
		p := NewParser()
		for i := 0; i < len(b); i += size {
			p.Write(b[i:min(i+size, len(b))])
		}
		if got := p.Finish(); !reflect.DeepEqual(got, want) {
			t.Errorf("chunks of %d: logs differ", size)
		}
	}
}

// BenchmarkParseHuge parses a generated log of about 100 MB; its
// allocations per op are the figure to watch (b.ReportAllocs).
func BenchmarkParseHuge(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		pr, pw := io.Pipe()
		go func() { hugeLog(pw, 1000000, 300); pw.Close() }()
		if _, err := Parse(pr); err != nil {
			b.Fatal(err)
		}
	}
}

func FuzzParse(f *testing.F) {
	dir := filepath.Join("..", "..", "..", "testdata", "compilerlogs")
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".log") {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err == nil {
				f.Add(string(b))
			}
		}
	}
	f.Add("statusdict={" + strings.Repeat("{(", 200))
	f.Fuzz(func(t *testing.T, s string) {
		l, err := Parse(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, fl := range l.Failures {
			_ = parseRegion(fl.SourceFile)
		}
		n := l.OtherNotKept
		for _, o := range l.Other {
			n += o.Count
			if o.Text == "" || len(o.Text) > maxKeptText || o.Count < 1 || o.Line < 1 || o.Line > l.Lines {
				t.Fatalf("unclassified record %+v", o)
			}
		}
		if len(l.Other) > MaxKeptOther || n != l.Unclassified {
			t.Fatalf("%d unclassified records whose counts add up to %d, Unclassified %d", len(l.Other), n, l.Unclassified)
		}
	})
}

func TestKeptRecordsDoNotPinLines(t *testing.T) {
	// Op ids and file names were substrings of their line: 100 kept
	// diagnostics of 1 MiB lines pinned 100 MiB. Kept strings are copies now.
	const n = 100
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriter(pw)
		pad := strings.Repeat("x", maxLineBytes-200)
		for i := 0; i < n; i++ {
			fmt.Fprintf(bw, "model.py:%d:3: warning: 'coreai.op%d' op %s %s \"add_%d\"\n", i, i, phraseElementType, pad, i)
		}
		bw.Flush()
		pw.Close()
	}()
	l, err := Parse(pr)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if len(l.Diagnostics) != n {
		t.Fatalf("kept %d", len(l.Diagnostics))
	}
	if ms.HeapAlloc > 32<<20 {
		t.Errorf("%d MiB of heap in use with the log parsed (%d diagnostics kept)", ms.HeapAlloc>>20, len(l.Diagnostics))
	}
	runtime.KeepAlive(l)
}
