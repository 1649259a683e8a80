package compare

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/graph/oracle"
	"github.com/anefix/anefix/passes"
)

// teacherNumpy is the oracle of the teacher-forced measures, written with
// numpy alone: per row of REF and CAND logits, KL(REF‖CAND) of the
// softmaxes, Δp, same top-1 (numpy.argmax, the first of equal values) and
// REF's top-2 gap; then the aggregates, numpy.percentile's default
// interpolation and the Wilson score interval from its textbook formula.
const teacherNumpy = `
import sys
import numpy as np
n, v = int(sys.argv[2]), int(sys.argv[3])
clear = float(sys.argv[4])
a = np.fromfile(sys.argv[1], dtype='<f8').reshape(2, n, v)
r, c = a[0], a[1]
def logsoftmax(x):
    m = x.max(axis=1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=1, keepdims=True))
lr, lc = logsoftmax(r), logsoftmax(c)
pr = np.exp(lr)
kl = np.maximum((pr * (lr - lc)).sum(axis=1), 0.0)
top = r.argmax(axis=1)
same = top == c.argmax(axis=1)
dp = np.exp(lc[np.arange(n), top]) - pr[np.arange(n), top]
srt = np.sort(r, axis=1)
gap = srt[:, -1] - srt[:, -2]
k = int(same.sum())
z = 1.959963984540054
p = k / n
den = 1 + z*z/n
center = (p + z*z/(2*n)) / den
half = z*np.sqrt(p*(1-p)/n + z*z/(4*n*n)) / den
cl = gap >= clear
vals = [kl.mean(), np.percentile(kl, 50), np.percentile(kl, 90), np.percentile(kl, 99), kl.max(),
        k, max(0.0, center-half), min(1.0, center+half), int(cl.sum()), int((same & cl).sum()), np.sqrt((dp*dp).mean())]
print(' '.join(repr(float(x)) for x in vals))
`

// The measures of CompareTeacher against numpy on logits this test makes:
// rows of several scales (flat ones like a random-weight stand-in's, and
// peaked ones), CAND = REF plus noise of several sizes, a few rows with
// exact ties and rows where CAND's top-1 moves.
func TestTeacherMeasuresMatchNumpy(t *testing.T) {
	py := oracle.Python3Numpy(t)
	const n, v = 300, 64
	rng := rand.New(rand.NewPCG(7, 29))
	ref := make([][]float64, n)
	cand := make([][]float64, n)
	for i := range ref {
		scale := []float64{0.05, 1, 8}[i%3]
		noise := []float64{0, 1e-4, 1e-2, 0.3}[i%4]
		ref[i], cand[i] = make([]float64, v), make([]float64, v)
		for j := range ref[i] {
			ref[i][j] = scale * rng.NormFloat64()
			cand[i][j] = ref[i][j] + noise*rng.NormFloat64()
		}
		if i%17 == 0 { // a tie for REF's top-1: argmax takes the first
			ref[i][5], ref[i][9] = 3*scale, 3*scale
		}
	}
	var acc teacherAcc
	for i := range ref {
		acc.add(positionMeasure(ref[i], cand[i]), DefaultClearMargin)
	}
	var got Teacher
	acc.fill(&got)
	dir := t.TempDir()
	path := filepath.Join(dir, "logits.f64")
	var buf []byte
	for _, rows := range [][][]float64{ref, cand} {
		for _, row := range rows {
			for _, x := range row {
				bits := math.Float64bits(x)
				for k := 0; k < 8; k++ {
					buf = append(buf, byte(bits>>(8*k)))
				}
			}
		}
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, "-c", teacherNumpy, path, strconv.Itoa(n), strconv.Itoa(v), strconv.FormatFloat(DefaultClearMargin, 'g', -1, 64)).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy oracle: %v\n%s", err, out)
	}
	fields := strings.Fields(string(out))
	if len(fields) != 11 {
		t.Fatalf("numpy oracle printed %q", out)
	}
	want := make([]float64, len(fields))
	for i, f := range fields {
		if want[i], err = strconv.ParseFloat(f, 64); err != nil {
			t.Fatal(err)
		}
	}
	gotVals := []float64{got.MeanKLD, got.KLDP50, got.KLDP90, got.KLDP99, got.KLDMax, float64(got.SameTop1), got.SameTop1Low, got.High,
		float64(got.ClearPositions), float64(got.ClearSame), got.RMSDeltaP}
	names := []string{"mean KLD", "KLD p50", "KLD p90", "KLD p99", "KLD max", "same top-1", "Wilson low", "Wilson high", "clear positions", "clear same", "RMS Δp"}
	for i := range want {
		tol := 1e-9 * math.Max(math.Abs(want[i]), 1e-12)
		if math.Abs(gotVals[i]-want[i]) > tol {
			t.Errorf("%s: anefix %.17g, numpy %.17g", names[i], gotVals[i], want[i])
		}
	}
	if got.SameTop1 == n || got.SameTop1 == 0 || got.ClearPositions == 0 || got.MeanKLD == 0 {
		t.Errorf("the case does not exercise the measures: same top-1 %d/%d, clear %d, mean KLD %g", got.SameTop1, n, got.ClearPositions, got.MeanKLD)
	}
	t.Logf("mean KLD %.6g, same top-1 %d/%d [%.4f, %.4f], clear %d/%d, RMS Δp %.4g", got.MeanKLD, got.SameTop1, n, got.SameTop1Low, got.High, got.ClearSame, got.ClearPositions, got.RMSDeltaP)
}

// loadArmA loads the shipped tiny arm A (testdata/synth), twice: two
// modules that share nothing.
func loadArmA(t *testing.T) (*graph.Module, *graph.Module) {
	t.Helper()
	var ms []*graph.Module
	for range 2 {
		ld, err := modelio.Load(filepath.Join("..", "..", "..", "testdata", "synth", "armA.aimodel"), modelio.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ld.Close() })
		ms = append(ms, ld.Module)
	}
	return ms[0], ms[1]
}

// Identical graphs: mean KLD exactly 0, every top-1 the same, bit-identical
// states, under IEEE; the streams are the default pseudo-random ones.
func TestTeacherIdenticalGraphs(t *testing.T) {
	ref, cand := loadArmA(t)
	vocab, err := Vocab(ref, "")
	if err != nil || vocab != 256 {
		t.Fatalf("vocab %d, %v; want tiny arm A's 256", vocab, err)
	}
	r, err := CompareTeacher(ref, cand, TeacherOptions{Streams: RandomStreams(3, 16, vocab, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if r.MeanKLD != 0 || r.KLDMax != 0 || r.SameTop1 != r.Positions || r.Positions != 48 || !r.Identical || r.RMSDeltaP != 0 {
		t.Errorf("identical graphs: mean KLD %g, max %g, same top-1 %d/%d, identical %v, RMS Δp %g", r.MeanKLD, r.KLDMax, r.SameTop1, r.Positions, r.Identical, r.RMSDeltaP)
	}
	if len(r.States) != 4 || len(r.States[0].Points) != 8 {
		t.Errorf("state curves %+v, want 4 states × 8 positions", r.States)
	}
}

// Tiny arm A palettized (the palettize pass, tied head included as by
// default) at 8, 6 and 4 bits: mean KLD ranks 8 < 6 < 4 with each at least
// 3× the one before, same-top-1 ranks them the other way, and 8 bits keep
// same-top-1 ≥ 90 %. The figures derive from the shipped testdata (rerun
// after regenerating it).
func TestTeacherPalettizeRanks(t *testing.T) {
	type row struct {
		bits     int
		kld      float64
		same     float64
		lo, high float64
	}
	var rows []row
	for _, bits := range []int{8, 6, 4} {
		ref, cand := loadArmA(t)
		p, err := passes.Build(passes.Spec{Passes: []string{"palettize"}, Set: []string{fmt.Sprintf("palettize.bits=%d", bits)}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Run(cand, passes.RunOptions{}); err != nil {
			t.Fatal(err)
		}
		vocab, _ := Vocab(ref, "")
		r, err := CompareTeacher(ref, cand, TeacherOptions{Streams: RandomStreams(8, 128, vocab, 0)})
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row{bits, r.MeanKLD, r.SameTop1Frac(), r.SameTop1Low, r.High})
		t.Logf("%d-bit: mean KLD %.4g (p99 %.4g), same top-1 %.4f [%.4f, %.4f], RMS Δp %.3g, PSNR %.1f dB", bits, r.MeanKLD, r.KLDP99, r.SameTop1Frac(), r.SameTop1Low, r.High, r.RMSDeltaP, r.PSNR)
	}
	for i := 1; i < len(rows); i++ {
		a, b := rows[i-1], rows[i]
		if b.kld < 3*a.kld {
			t.Errorf("mean KLD %d-bit %.4g is not ≥ 3× %d-bit %.4g", b.bits, b.kld, a.bits, a.kld)
		}
		if b.same >= a.same {
			t.Errorf("same-top-1 %d-bit %.4f is not below %d-bit %.4f", b.bits, b.same, a.bits, a.same)
		}
	}
	if rows[0].same < 0.9 {
		t.Errorf("8-bit same-top-1 %.4f < 0.90", rows[0].same)
	}
}

func TestWilsonEdges(t *testing.T) {
	for _, c := range []struct{ k, n int }{{0, 10}, {10, 10}, {5, 10}, {0, 0}} {
		lo, hi := wilson(c.k, c.n)
		if lo < 0 || hi > 1 || lo > hi {
			t.Errorf("Wilson(%d, %d) = [%g, %g]", c.k, c.n, lo, hi)
		}
		if c.n > 0 && (float64(c.k)/float64(c.n) < lo || float64(c.k)/float64(c.n) > hi) {
			t.Errorf("Wilson(%d, %d) = [%g, %g] excludes the estimate", c.k, c.n, lo, hi)
		}
	}
}

// The memory limit counts every stream's live values: a limit between the
// estimates for one and for eight streams admits one stream and refuses
// eight, naming the streams.
func TestTeacherMemoryCountsStreams(t *testing.T) {
	ref, cand := loadArmA(t)
	one := interp.EstimateLanesMemory(ref, "main", 1) + interp.EstimateLanesMemory(cand, "main", 1)
	eight := interp.EstimateLanesMemory(ref, "main", 8) + interp.EstimateLanesMemory(cand, "main", 8)
	if eight <= one {
		t.Fatalf("estimates: 1 stream %d, 8 streams %d", one, eight)
	}
	limit := (one + eight) / 2
	if _, err := CompareTeacher(ref, cand, TeacherOptions{Streams: RandomStreams(1, 2, 256, 0), MaxMemory: limit}); err != nil {
		t.Errorf("1 stream under a limit of %d: %v", limit, err)
	}
	_, err := CompareTeacher(ref, cand, TeacherOptions{Streams: RandomStreams(8, 2, 256, 0), MaxMemory: limit})
	if !errors.Is(err, errMemory) || !strings.Contains(err.Error(), "for 8 streams together") {
		t.Errorf("8 streams under a limit of %d: %v", limit, err)
	}
}

// Both modes tell Progress how many positions are done: 0 before the first,
// then each one, up to the run's length (16 positions; greedy: a 3-token
// prompt and 5 steps are 3+5−1 positions).
func TestProgressCountsPositions(t *testing.T) {
	ref, cand := loadArmA(t)
	for _, c := range []struct {
		name string
		run  func(progress func(done, total int64)) error
		want int64
	}{
		{"teacher-forced", func(p func(done, total int64)) error {
			_, err := CompareTeacher(ref, cand, TeacherOptions{Streams: RandomStreams(2, 16, 256, 1), Progress: p})
			return err
		}, 16},
		{"greedy", func(p func(done, total int64)) error {
			_, err := Compare(ref, cand, Options{Steps: 5, Prompt: []int64{1, 2, 3}, Progress: p})
			return err
		}, 7},
	} {
		var got []int64
		err := c.run(func(done, total int64) {
			if total != c.want {
				t.Errorf("%s: total %d, want %d", c.name, total, c.want)
			}
			got = append(got, done)
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range got {
			if d != int64(i) {
				t.Fatalf("%s: progress %v, want 0, 1, … %d", c.name, got, c.want)
			}
		}
		if int64(len(got)) != c.want+1 {
			t.Errorf("%s: %d calls, want %d", c.name, len(got), c.want+1)
		}
	}
}
