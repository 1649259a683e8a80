package main

import (
	"crypto/sha256"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/anefix/anefix/graph/oracle"
)

// newPerfTable builds anefix from the checkout and reads the settings
// both benchmarks share: ANEFIX_PERF_ROUNDS (default 5) and
// ANEFIX_PERF_DIR (default a temporary directory).
func newPerfTable(b *testing.B) *perfTable {
	rounds := 5
	if s := os.Getenv("ANEFIX_PERF_ROUNDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("ANEFIX_PERF_ROUNDS=%q: want a positive count", s)
		}
		rounds = n
	}
	dir := os.Getenv("ANEFIX_PERF_DIR")
	if dir == "" {
		dir = b.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(b.TempDir(), "anefix")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return &perfTable{b: b, bin: bin, dir: dir, rounds: rounds}
}

// BenchmarkPerfTable is the one command behind the performance table of
// testdata/measurements.md (the README quotes its headline figures). It builds anefix from this checkout and its inputs, then measures
// anefix and each yardstick in the same run, alternating the order of every
// pair from round to round, and prints the table (medians with min–max over
// the rounds, ratios taken pair by pair within a round):
//
//	go test ./cmd/anefix -run '^$' -bench PerfTable -benchtime 1x -timeout 3h
//
// Rows without the full-scale model (always; seconds): the codecs on tiny
// synth arm A with 96 layers (25.8k ops), anefix convert against mlir-opt
// 22 and 19 (graph/oracle's paths) on the same file: generic text → generic
// text (mlir-opt --mlir-print-op-generic --mlir-print-debuginfo, so that
// both keep every op's location), printed form → printed form (mlir-opt
// cannot read the coreai printed form without the dialect, so its yardstick
// is mlir-opt's generic round trip of the same module) and bytecode →
// bytecode (--emit-bytecode).
//
// With ANEFIX_FULL_MODEL naming full-scale synth arm A (`anefix synth --arm
// A --scale full -o PATH`, which the benchmark runs when PATH does not
// exist; the convention of graph/interp's BenchmarkDecodeStep), also
// (minutes; writes about 6 GB next to the scratch files):
//   - rewrite, rewrite --enable externalize-constant and convert (.aimodel
//     to .aimodel, bytecode) against the floor any rewrite must do, run
//     concurrently on the machine's cores: two SHA-256 passes over main.mlirb
//     (crypto/sha256, 1 MiB reads, two goroutines) and a `cp` of it;
//   - rewrite --enable palettize (4-bit, group 32: the pass's default)
//     beside the same floor, for its absolute targets (≤ 30 s, ≤ 512 MB);
//   - verify per graph step, the difference of `verify --steps 12` and
//     `--steps 2` over the 20 graph steps between them (the two graphs' steps
//     may overlap on two cores), against the weight-streaming bound: one
//     read of main.mlirb (all its fp16 weights) from the page cache on one
//     thread, the faster of 1 MiB preads and a pass over a mapping
//     (weightRead), measured in the same round.
//
// ANEFIX_PERF_ROUNDS sets the rounds (default 5), ANEFIX_PERF_DIR the scratch
// directory (default: a temporary one), ANEFIX_PERF_OUT the measurements
// file whose "perf" section the table replaces (testdata/measurements.md;
// a relative path is taken from the repository root). -v logs every round's figures with the load average.
// Peak RSS is each child's own (rusage); the largest over the rounds is
// shown. Figures depend on the machine's load: the ratios, measured pair
// by pair in the same moments, are what the table's targets bound.
func BenchmarkPerfTable(b *testing.B) {
	pt := newPerfTable(b)
	pt.codecSetup()
	if full, on := oracle.OptedIn("ANEFIX_FULL_MODEL"); on {
		pt.fullSetup(full)
	}
	b.ResetTimer()
	for i := range pt.rounds {
		pt.round(i)
	}
	b.StopTimer()
	table := pt.table()
	fmt.Print(table)
	if p := os.Getenv("ANEFIX_PERF_OUT"); p != "" {
		if err := writeMeasurement(p, "perf", table); err != nil {
			b.Fatal(err)
		}
	}
}

// prun is one measured child process.
type prun struct {
	wall, cpu float64 // seconds
	rssKB     int64
}

type perfTable struct {
	b      *testing.B
	bin    string
	dir    string
	rounds int
	loads  []float64
	// codec inputs (tiny arm A, 96 layers) and the mlir-opt releases found
	generic, pretty, bytecode string
	mlirOpts                  []oracle.MlirOptTool
	// full-scale inputs (empty without ANEFIX_FULL_MODEL)
	full, fullMain, cand string
	prevOut              string // the last write step's output, removed right before the next
	// results, per row name and side, one per round
	runs      map[string][]prun
	ratios    map[string][]float64
	cpuRatios map[string][]float64
	notes     []string
}

func (pt *perfTable) add(name string, r prun) { pt.runs[name] = append(pt.runs[name], r) }

func (pt *perfTable) mustRun(args ...string) {
	pt.b.Helper()
	if out, err := exec.Command(pt.bin, args...).CombinedOutput(); err != nil {
		pt.b.Fatalf("anefix %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func (pt *perfTable) codecSetup() {
	pt.runs, pt.ratios, pt.cpuRatios = map[string][]prun{}, map[string][]float64{}, map[string][]float64{}
	a96 := filepath.Join(pt.dir, "a96.aimodel")
	os.RemoveAll(a96)
	pt.mustRun("synth", "--arm", "A", "--layers", "96", "-o", a96)
	pt.bytecode = filepath.Join(pt.dir, "a96.mlirb")
	pt.generic = filepath.Join(pt.dir, "a96.mlir")
	pt.pretty = filepath.Join(pt.dir, "a96.pretty.mlir")
	pt.mustRun("convert", a96, "-o", pt.bytecode, "--force")
	pt.mustRun("convert", pt.bytecode, "--emit", "generic", "-o", pt.generic, "--force")
	pt.mustRun("convert", pt.bytecode, "--emit", "pretty", "-o", pt.pretty, "--force")
	for _, tl := range oracle.MlirOpts {
		if err := tl.Installed(); err != nil {
			pt.notes = append(pt.notes, fmt.Sprintf("%s not measured: %v", tl.Name, err))
			continue
		}
		pt.mlirOpts = append(pt.mlirOpts, tl)
	}
}

func (pt *perfTable) fullSetup(full string) {
	pt.full = full
	pt.fullMain = filepath.Join(full, "main.mlirb")
	if _, err := os.Stat(pt.fullMain); err != nil {
		pt.b.Logf("building %s (anefix synth --arm A --scale full)", full)
		pt.mustRun("synth", "--arm", "A", "--scale", "full", "-o", full)
	}
	// verify's candidate: the default rewrite, made once
	pt.cand = filepath.Join(pt.dir, "cand.aimodel")
	os.RemoveAll(pt.cand)
	pt.mustRun("rewrite", full, "-o", pt.cand)
	shaPassTimed(pt.b, pt.fullMain) // warm the page cache
	// An untimed write, so that the first timed one finds pages freed
	// the way every later one does (write).
	cp := filepath.Join(pt.dir, "cp.mlirb")
	pt.write(cp, func() { timedRun(pt.b, "cp", pt.fullMain, cp) })
}

// write runs a step that writes out, right after removing the previous
// write step's output: on the build VM, pages freed more than ~2 s earlier
// are handed back to the hypervisor (virtio-balloon free page reporting),
// and writing 1.5 GB into such pages cost `cp` 3.5 s of system time
// instead of 1.3 s (measured with and without a 6 s pause after the rm),
// so every write step gets its pages the same way.
func (pt *perfTable) write(out string, f func()) {
	os.RemoveAll(pt.prevOut)
	os.RemoveAll(out)
	f()
	pt.prevOut = out
}

// round measures every row once, in an order reversed every other round.
func (pt *perfTable) round(i int) {
	pt.loads = append(pt.loads, loadAvg1())
	var steps []func()
	pair := func(name string, a, y func() prun, ratio func(a, y prun) float64) {
		var ra, ry prun
		first, second := func() { ra = a() }, func() { ry = y() }
		if i%2 == 1 {
			first, second = second, first
		}
		steps = append(steps, func() {
			first()
			second()
			pt.add(name+"/anefix", ra)
			pt.add(name+"/yardstick", ry)
			pt.ratios[name] = append(pt.ratios[name], ratio(ra, ry))
			// the same ratio in CPU time (user + system, all threads),
			// which other jobs on the machine inflate less
			pt.cpuRatios[name] = append(pt.cpuRatios[name], ratio(prun{wall: ra.cpu}, prun{wall: ry.cpu}))
		})
	}
	wallRatio := func(a, y prun) float64 { return a.wall / y.wall }
	out := filepath.Join(pt.dir, "out")
	for _, c := range []struct{ name, in, emit, ext string }{
		{"generic", pt.generic, "generic", ".mlir"},
		{"pretty", pt.pretty, "pretty", ".mlir"},
		{"bytecode", pt.bytecode, "", ".mlirb"},
	} {
		args := []string{"convert", c.in, "-o", out + c.ext, "--force"}
		if c.emit != "" {
			args = append(args, "--emit", c.emit)
		}
		for _, tl := range pt.mlirOpts {
			in, flags := c.in, []string{"--mlir-print-op-generic", "--mlir-print-debuginfo"}
			switch c.name {
			case "pretty":
				in = pt.generic // mlir-opt cannot read the printed form
			case "bytecode":
				flags = []string{"--emit-bytecode"}
			}
			yargs := append([]string{"--allow-unregistered-dialect"}, flags...)
			yargs = append(yargs, in, "-o", out+".opt"+c.ext)
			pair("codec "+c.name+" "+tl.Name,
				func() prun { return timedRun(pt.b, pt.bin, args...) },
				func() prun { return timedRun(pt.b, tl.Path, yargs...) }, wallRatio)
		}
	}
	if pt.full != "" {
		rw := filepath.Join(pt.dir, "rw.aimodel")
		floor := func() prun {
			var r prun
			pt.write(filepath.Join(pt.dir, "cp.mlirb"), func() { r = floorTogetherRun(pt.b, pt.fullMain, filepath.Join(pt.dir, "cp.mlirb")) })
			return r
		}
		for _, c := range []struct {
			name string
			args []string
		}{
			{"rewrite", []string{"rewrite", pt.full, "-o", rw}},
			{"rewrite --enable externalize-constant", []string{"rewrite", pt.full, "-o", rw, "--enable", "externalize-constant"}},
			{"convert", []string{"convert", pt.full, "-o", rw}},
			// issue 23's target is absolute (≤ 30 s on two cores, peak RSS
			// ≤ 512 MB); the floor beside it shows the write's share
			{"rewrite --enable palettize", []string{"rewrite", pt.full, "-o", rw, "--enable", "palettize"}},
		} {
			pair(c.name, func() prun {
				var r prun
				pt.write(rw, func() { r = timedRun(pt.b, pt.bin, c.args...) })
				return r
			}, floor, wallRatio)
		}
		// verify: 20 graph steps between --steps 2 and --steps 12 (the
		// issue measured 8 − 2; a longer difference is steadier under
		// load); the ratio is the bound over the time per graph step (a
		// fraction).
		verify := func() prun {
			r2 := timedRunCodes(pt.b, []int{0, 3}, pt.bin, "verify", pt.full, pt.cand, "--steps", "2")
			r12 := timedRunCodes(pt.b, []int{0, 3}, pt.bin, "verify", pt.full, pt.cand, "--steps", "12")
			return prun{wall: (r12.wall - r2.wall) / 20, cpu: (r12.cpu - r2.cpu) / 20, rssKB: max(r2.rssKB, r12.rssKB)}
		}
		pair("verify", verify, func() prun { return weightRead(pt.b, pt.fullMain) },
			func(a, y prun) float64 { return y.wall / a.wall })
	}
	if i%2 == 1 {
		slices.Reverse(steps)
	}
	for _, s := range steps {
		s()
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(pt.ratios)) {
		a, y := last(pt.runs[name+"/anefix"]), last(pt.runs[name+"/yardstick"])
		parts = append(parts, fmt.Sprintf("%s %.3f s (CPU %.3f s, %d MB) / %.3f s (CPU %.3f s, %d MB) = %.2f",
			name, a.wall, a.cpu, a.rssKB>>10, y.wall, y.cpu, y.rssKB>>10, last(pt.ratios[name])))
	}
	pt.b.Logf("round %d (load %.2f): %s", i+1, pt.loads[i], strings.Join(parts, "; "))
}

// table formats the results as a markdown table.
func (pt *perfTable) table() string {
	var s strings.Builder
	commit := measuredCommit()
	fmt.Fprintf(&s, "Measured %s at commit %s, %d rounds, %d CPUs, 1-minute load average %s (over the rounds), by\n`go test ./cmd/anefix -run '^$' -bench PerfTable -benchtime 1x` (cmd/anefix/perf_table_test.go)",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), commit, pt.rounds, runtime.NumCPU(), spread(pt.loads, "%.1f"))
	if pt.full != "" {
		s.WriteString(" with ANEFIX_FULL_MODEL (full-scale synth arm A)")
	}
	s.WriteString(". Medians, min–max in parentheses; each ratio is taken within a round.\n\n")
	s.WriteString("| measurement | anefix | yardstick | ratio | target | CPU-time ratio | peak RSS anefix / yardstick |\n|---|---|---|---|---|---|---|\n")
	row := func(name, what, yard, ratioName, target string, rssYard bool) {
		a, y := pt.runs[name+"/anefix"], pt.runs[name+"/yardstick"]
		if len(a) == 0 {
			return
		}
		rss := fmt.Sprintf("%d MB", maxRSS(a)>>10)
		if rssYard {
			rss += fmt.Sprintf(" / %d MB", maxRSS(y)>>10)
		}
		ratio := spread(pt.ratios[name], "%.2f")
		if ratioName != "" {
			ratio = ratioName + " " + ratio
		}
		fmt.Fprintf(&s, "| %s | %s | %s %s | %s | %s | %s | %s |\n", what, walls(a), yard, walls(y), ratio, target, spread(pt.cpuRatios[name], "%.2f"), rss)
	}
	if pt.full != "" {
		floor := "floor (2 SHA-256 passes ∥ `cp`)"
		row("rewrite", "`rewrite` (full arm A)", floor, "", "≤ 1.1, RSS ≤ 128 MB", false)
		row("rewrite --enable externalize-constant", "`rewrite --enable externalize-constant`", floor, "", "≤ 1.1, RSS ≤ 128 MB", false)
		row("convert", "`convert` .aimodel → .aimodel", floor, "", "≤ 1.1, RSS ≤ 128 MB", false)
		row("rewrite --enable palettize", "`rewrite --enable palettize` (4-bit, group 32)", floor, "", "anefix ≤ 30 s, RSS ≤ 512 MB", false)
		row("verify", "`verify`, wall per graph step (steps 12 − 2, over 20)", "one read of the weights (page cache, one thread)", "bound ÷ step", "≥ 0.8", false)
	}
	for _, c := range []struct{ name, what string }{
		{"generic", "generic text round trip (a96, 15.8 MB)"},
		{"pretty", "printed form round trip (a96)"},
		{"bytecode", "bytecode round trip (a96, 3.7 MB)"},
	} {
		for _, tl := range pt.mlirOpts {
			yard := tl.Name
			if c.name == "pretty" {
				yard += " (generic round trip)"
			}
			target := ""
			if tl.Name == "mlir-opt-22" {
				target = "≤ 0.5"
			}
			row("codec "+c.name+" "+tl.Name, c.what, yard, "", target, true)
		}
	}
	for _, n := range pt.notes {
		fmt.Fprintf(&s, "\n%s.", n)
	}
	s.WriteString("\n")
	return s.String()
}

func walls(rs []prun) string {
	w := make([]float64, len(rs))
	for i, r := range rs {
		w[i] = r.wall
	}
	return spread(w, "%.3f") + " s"
}

// spread is "median (min–max)", or the one value.
func spread(v []float64, f string) string {
	if len(v) == 0 {
		return "—"
	}
	if len(v) == 1 {
		return fmt.Sprintf(f, v[0])
	}
	return fmt.Sprintf(f+" ("+f+"–"+f+")", median(v), slices.Min(v), slices.Max(v))
}

func maxRSS(rs []prun) int64 {
	var m int64
	for _, r := range rs {
		m = max(m, r.rssKB)
	}
	return m
}

func last[T any](v []T) T { return v[len(v)-1] }

func gitOut(args ...string) string {
	out, err := exec.Command("git", args...).Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}

func loadAvg1() float64 {
	v, _ := strconv.ParseFloat(loadAvg(), 64)
	return v
}

// timedRun runs a command that must exit 0 and returns its wall time, CPU
// time (user + system) and peak RSS.
func timedRun(b *testing.B, name string, args ...string) prun {
	return timedRunCodes(b, []int{0}, name, args...)
}

// timedRunCodes is timedRun accepting the exit codes in ok.
func timedRunCodes(b *testing.B, ok []int, name string, args ...string) prun {
	b.Helper()
	cmd := exec.Command(name, args...)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	t := time.Now()
	err := cmd.Run()
	wall := time.Since(t).Seconds()
	if err != nil && !slices.Contains(ok, cmd.ProcessState.ExitCode()) {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out.String())
	}
	ps := cmd.ProcessState
	r := prun{wall: wall, cpu: (ps.UserTime() + ps.SystemTime()).Seconds()}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		r.rssKB = ru.Maxrss
	}
	return r
}

// floorTogetherRun runs the floor's work at once (two SHA-256 passes over p
// in two goroutines and a cp of it to out) and returns its wall time and
// the cp's peak RSS, and its CPU time (the hashes' and the cp's): the floor on the cores the machine actually has free
// at that moment.
func floorTogetherRun(b *testing.B, p, out string) prun {
	c0 := oracle.CPUSeconds()
	t := time.Now()
	done := make(chan error, 2)
	for range 2 {
		go func() {
			f, err := os.Open(p)
			if err == nil {
				_, err = io.CopyBuffer(sha256.New(), f, make([]byte, 1<<20))
				f.Close()
			}
			done <- err
		}()
	}
	cp := timedRun(b, "cp", p, out)
	for range 2 {
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	return prun{wall: time.Since(t).Seconds(), cpu: oracle.CPUSeconds() - c0 + cp.cpu, rssKB: cp.rssKB}
}

// shaPassTimed is one SHA-256 pass over p (1 MiB reads).
func shaPassTimed(b *testing.B, p string) prun {
	f, err := os.Open(p)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	c0 := oracle.CPUSeconds()
	t := time.Now()
	if _, err := io.CopyBuffer(sha256.New(), f, make([]byte, 1<<20)); err != nil {
		b.Fatal(err)
	}
	return prun{wall: time.Since(t).Seconds(), cpu: oracle.CPUSeconds() - c0}
}

// weightRead measures the weight-streaming bound: one read of every byte
// of a file from the page cache on one thread, two ways (1 MiB preads, and
// a pass over a read-only mapping faulted in by an untimed pass first, the
// way the interpreter reaches weights in its steps), each folding the bytes
// into a word so that they are loaded; the faster is the bound (the
// stricter ratio), as in graph/interp's BenchmarkDecodeStep. It runs in a
// child process (TestHelperWeightRead): a process that once had 1.5 GB of
// mapped pages resident hands that peak to every child it starts (the
// child begins as a clone of it, and Linux keeps the larger of the two
// peaks), which would spoil every later child's peak RSS.
func weightRead(b *testing.B, p string) prun {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWeightRead$")
	cmd.Env = append(os.Environ(), "ANEFIX_WEIGHT_READ="+p)
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("weight read: %v\n%s", err, out)
	}
	var pread, mapped prun
	if _, err := fmt.Sscanf(string(out), "pread %g %g\nmapped %g %g\n", &pread.wall, &pread.cpu, &mapped.wall, &mapped.cpu); err != nil {
		b.Fatalf("weight read: %v in %q", err, out)
	}
	if mapped.wall < pread.wall {
		return mapped
	}
	return pread
}

// TestHelperWeightRead is weightRead's child, not a test: with
// ANEFIX_WEIGHT_READ=FILE it prints the wall and CPU seconds of one pread
// pass and one mapped pass over FILE; otherwise it does nothing.
func TestHelperWeightRead(t *testing.T) {
	p := os.Getenv("ANEFIX_WEIGHT_READ")
	if p == "" {
		t.Skip("weightRead's child process (BenchmarkPerfTable)")
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	var sink uint64
	buf := make([]byte, 1<<20)
	c0, t0 := oracle.CPUSeconds(), time.Now()
	for off := int64(0); ; {
		n, err := f.ReadAt(buf, off)
		sink ^= oracle.FoldWords(buf[:n])
		off += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	preadWall, preadCPU := time.Since(t0).Seconds(), oracle.CPUSeconds()-c0
	m, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Munmap(m)
	sink ^= oracle.FoldWords(m) // fault the mapping in
	c1, t1 := oracle.CPUSeconds(), time.Now()
	sink ^= oracle.FoldWords(m)
	// the sink is printed so that no load can be left out
	fmt.Printf("pread %g %g\nmapped %g %g\nsink %d\n", preadWall, preadCPU, time.Since(t1).Seconds(), oracle.CPUSeconds()-c1, sink)
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// BenchmarkRewriteFloor is the full-scale rewrite in a loop of writes, the
// way issue 28 measured it drifting from its floor (1.9–4.3× when the
// machine charges for fresh page-cache memory): five rounds (ANEFIX_PERF_ROUNDS)
// of, in turn, `cp` of main.mlirb, the two SHA-256 passes over it, both
// together (the floor of BenchmarkPerfTable: what any rewrite must do), and
// `anefix rewrite` of the model; each writing step first removes the
// previous step's output (perfTable.write). It prints the minimum of each
// step over the rounds and the ratio of the minima rewrite / floor, with
// the load average of every round:
//
//	ANEFIX_FULL_MODEL=armA-full.aimodel go test ./cmd/anefix -run '^$' -bench RewriteFloor -benchtime 1x
//
// ANEFIX_FULL_MODEL is made when missing, as BenchmarkPerfTable makes it;
// ANEFIX_PERF_DIR is the scratch directory (default: a temporary one).
//
// The rewrite does the floor's work and little more: both hashes read the
// input in 1 MiB reads on their own goroutines, as the floor's do
// (graph/bundle/hash.go), and the kernel copies the weights. What it adds
// is its own IR work (decoding, passes, check, encoding: about 0.1 CPU-s on
// full arm A) and a dearer copy: the output's weights sit at other offsets
// modulo the page than the input's, which `cp` never meets. The perf
// table's rewrite row is the same comparison.
func BenchmarkRewriteFloor(b *testing.B) {
	full := oracle.OptIn(b, "ANEFIX_FULL_MODEL", "the path of full-scale synth arm A (made when missing)")
	pt := newPerfTable(b)
	pt.fullMain = filepath.Join(full, "main.mlirb")
	if _, err := os.Stat(pt.fullMain); err != nil {
		pt.mustRun("synth", "--arm", "A", "--scale", "full", "-o", full)
	}
	shaPassTimed(b, pt.fullMain) // warm the page cache
	cp, rw := filepath.Join(pt.dir, "cp.mlirb"), filepath.Join(pt.dir, "rw.aimodel")
	pt.write(cp, func() { timedRun(b, "cp", pt.fullMain, cp) }) // untimed, see fullSetup
	steps := []struct {
		name string
		run  func() prun
	}{
		{"cp", func() (r prun) { pt.write(cp, func() { r = timedRun(b, "cp", pt.fullMain, cp) }); return }},
		{"hashes", func() prun { return twoHashes(b, pt.fullMain) }},
		{"floor", func() (r prun) { pt.write(cp, func() { r = floorTogetherRun(b, pt.fullMain, cp) }); return }},
		{"rewrite", func() (r prun) { pt.write(rw, func() { r = timedRun(b, pt.bin, "rewrite", full, "-o", rw) }); return }},
	}
	mins := map[string]prun{}
	var loads []float64
	b.ResetTimer()
	for i := range pt.rounds {
		loads = append(loads, loadAvg1())
		var parts []string
		for _, s := range steps {
			r := s.run()
			if m, ok := mins[s.name]; !ok || r.wall < m.wall {
				mins[s.name] = r
			}
			parts = append(parts, fmt.Sprintf("%s %.3f s (CPU %.3f s)", s.name, r.wall, r.cpu))
		}
		b.Logf("round %d (load %.2f): %s", i+1, last(loads), strings.Join(parts, ", "))
	}
	b.StopTimer()
	os.RemoveAll(pt.prevOut)
	// The CPU figures split the ratio: rewrite / floor in CPU time says how
	// much more work the rewrite does; CPU / wall (cores busy) how well it
	// spreads that work over the cores against the floor's three
	// independent streams.
	fl, rwm := mins["floor"], mins["rewrite"]
	fmt.Printf("rewrite floor loop: %d rounds, %d CPUs, 1-minute load average %s; minima: cp %.3f s, hashes %.3f s, floor (cp ∥ hashes) %.3f s (CPU %.3f s, %.2f cores), rewrite %.3f s (CPU %.3f s, %.2f cores); rewrite / floor = %.2f, in CPU time %.2f\n",
		pt.rounds, runtime.NumCPU(), spread(loads, "%.1f"), mins["cp"].wall, mins["hashes"].wall, fl.wall, fl.cpu, fl.cpu/fl.wall, rwm.wall, rwm.cpu, rwm.cpu/rwm.wall, rwm.wall/fl.wall, rwm.cpu/fl.cpu)
}

// twoHashes is the floor's two SHA-256 passes over p (1 MiB reads, two
// goroutines) alone.
func twoHashes(b *testing.B, p string) prun {
	c0 := oracle.CPUSeconds()
	t := time.Now()
	done := make(chan prun, 2)
	for range 2 {
		go func() { done <- shaPassTimed(b, p) }()
	}
	<-done
	<-done
	return prun{wall: time.Since(t).Seconds(), cpu: oracle.CPUSeconds() - c0}
}
