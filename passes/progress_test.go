package passes_test

import (
	"sync"
	"testing"

	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/passes"
)

// progressCall is one RunOptions.Progress call.
type progressCall struct {
	pass        string
	done, total int64
	unit        string
}

// runFollowed runs passes on src with RunOptions.Progress recording every
// call (calls may come from a pass's workers at once).
func runFollowed(t *testing.T, src string, names ...string) []progressCall {
	t.Helper()
	m, _, err := mlirtext.Parse("w.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	p, err := passes.Build(passes.Spec{Passes: names})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var calls []progressCall
	if _, err := p.Run(m, passes.RunOptions{VerifyEach: true, Progress: func(pass string, done, total int64, unit string) {
		mu.Lock()
		calls = append(calls, progressCall{pass, done, total, unit})
		mu.Unlock()
	}}); err != nil {
		t.Fatal(err)
	}
	return calls
}

// The weight compressions tell the caller how far they have got: bytes of
// the weights they read (two rows×cols f16 weights, the test module's own
// size), moving inside a weight (the reads of its batches), ending at the
// total; legalize-weights counts weights.
func TestCompressProgress(t *testing.T) {
	const rows, cols = 64, 96
	src, _ := weightModule(rows, cols, 3, 0.02)
	weightBytes := int64(2 * rows * cols * 2)
	for _, c := range []struct {
		pass  string
		total int64
		unit  string
	}{
		{"palettize", weightBytes, ""},
		{"quantize-weights", weightBytes, ""},
	} {
		calls := runFollowed(t, src, c.pass)
		checkProgress(t, c.pass, calls, c.total, c.unit)
		inside := false
		for _, k := range calls {
			if k.done != 0 && k.done != weightBytes/2 && k.done != weightBytes {
				inside = true
			}
		}
		if !inside {
			t.Errorf("%s: no call inside a weight (only at weight boundaries): %v", c.pass, calls)
		}
	}
	// legalize-weights works on INT4 weights: quantize first, then follow it.
	m, _, err := mlirtext.Parse("w.mlir", src)
	if err != nil {
		t.Fatal(err)
	}
	q, err := passes.Build(passes.Spec{Passes: []string{"quantize-weights"}, Set: []string{"quantize-weights.dtype=si4", "quantize-weights.granularity=per-tensor"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.Run(m, passes.RunOptions{}); err != nil {
		t.Fatal(err)
	}
	text, err := mlirtext.Format(m, mlirtext.FormPretty)
	if err != nil {
		t.Fatal(err)
	}
	checkProgress(t, "legalize-weights", runFollowed(t, string(text), "legalize-weights"), 2, "weights")
	// Passes that do not report stay silent.
	if calls := runFollowed(t, src, "fold-casts", "dce"); len(calls) != 0 {
		t.Errorf("fold-casts, dce reported progress: %v", calls)
	}
}

func checkProgress(t *testing.T, pass string, calls []progressCall, total int64, unit string) {
	t.Helper()
	if len(calls) < 2 {
		t.Fatalf("%s: %d progress calls, want a start and an end: %v", pass, len(calls), calls)
	}
	for _, k := range calls {
		if k.pass != pass || k.total != total || k.unit != unit || k.done < 0 || k.done > total {
			t.Fatalf("%s: call %+v, want pass %s, total %d %q, done within it", pass, k, pass, total, unit)
		}
	}
	if first, last := calls[0], calls[len(calls)-1]; first.done != 0 || last.done != total {
		t.Errorf("%s: runs from %d to %d, want 0 to %d", pass, first.done, last.done, total)
	}
}
