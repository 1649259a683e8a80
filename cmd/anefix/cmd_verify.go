package main

import (
	"fmt"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/graph/nearest"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"google.golang.org/protobuf/proto"

	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/interp"
	"github.com/anefix/anefix/graph/interp/compare"
	"github.com/anefix/anefix/passes"
	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
)

func init() {
	register(&command{
		Name:    "verify",
		Usage:   "verify REF CAND [--streams 8] [--length L] [--tokens FILE] [--max-kld X] [--min-same-top1 F] [--mode greedy --steps 24 --prompt-ids 1,2,3 --min-agree K] [--seed N] [--numerics ieee|ane] [--ranges] [--localize] [--json]",
		Summary: "run two graphs side by side on the CPU and compare their next-token distributions, logits and states",
		Help: `Runs REF (e.g. the original export) and CAND (e.g. its rewrite or
compression) with anefix's reference interpreter.

Default mode (teacher-forced): both graphs are fed the same token streams,
so a near tie at one position cannot change what either sees next. N
streams (--streams, default 8) of L positions (--length, default the whole
context) step together as a batch: each weight is read once per position
for all streams. The streams are --tokens FILE (one stream of token ids per
line, separated by spaces or commas), else pseudo-random: ids drawn
uniformly from the vocabulary by a PCG generator seeded with (--seed,
stream index). Per position, in float64: KL(REF‖CAND) of the softmaxes of
the logits, Δp (CAND's probability of REF's top token minus REF's), whether
the top-1 tokens agree and REF's top-2 logit gap. Prints the mean KL
divergence with p50/p90/p99/max, same-top-1 with its Wilson 95 % interval,
same-top-1 where REF's top-2 gap is at least --clear-margin (nats), RMS
Δp, the logits PSNR, and each state's relative RMS drift at eight
positions along the streams. Exit 0 when the gates are met, 3 when not:
--max-kld (nats) and --min-same-top1 (a fraction); anefix rewrite --verify
applies their defaults.

--mode greedy is the free-running experiment (--steps, --prompt-ids,
--min-agree or --localize without --mode select it too, as before the
teacher-forced mode existed): greedy decoding from one
prompt, each graph fed its own tokens and states; it prints, per position,
REF token, CAND token, equal?, logits cosine, max |Δ|, then "top-1
agreement: k/N", the first divergence, the logits PSNR and the drift of
every state, and exits 0 when all N steps agree (or --min-agree K is met),
3 when not. A prompt plus --steps that needs more positions than the
context (the longest axis of the causal-mask input) is refused before the
run (exit 2). One flip at a near tie makes every later step differ, so it
measures ties more than damage: judge a rewrite or a compression by the
default mode.

Graph inputs are fed by name: token ids
(input_ids), positions (position_ids, in_step), an additive causal mask
(*mask*: 0 up to the current position, -65504 beyond), states (the
MutableBuffers state contract, or plain input/output pairs such as
conv_state -> new_conv_state); any other float input (embeddings, hidden
states) gets the same seeded pseudo-random values in both runs. Inputs whose
shape or element type differ between the graphs (fold-io-unsqueeze,
strip-fp32-casts) get the same values. "top-1" is the argmax of the graph's
first non-state output (its last row).

Numerics: REF always runs as written (IEEE; f16 values rounded to half
after every op, f32 islands in f32). --numerics chooses CAND's arithmetic:
ieee (the same; reductions and matmuls accumulate in f32 unless
--accumulate f16) or ane, a Neural Engine profile: a model built from
third-party measurements on M2 Pro and M5 (sbryngelson/ANEForge), not Apple
documentation; its rules are the table in graph/interp/numerics.go
(products rounded to fp16, matmul/conv accumulate wide, reduce_sum/mean
narrow, matmul outputs past 32752 become inf, and on --ane-family pre-a16
a slice with a nonzero last-axis begin turns values past 4094 into inf).
--numerics ane decides the accumulators itself: --accumulate and
--cand-accumulate with it are usage errors.

--ranges lists every op (op id, source) whose results left the fp16
range, met the profile's saturation points or became inf/NaN, with the
largest magnitude they reached. --localize runs REF with its f16 ops
computed in float32 and ranks CAND's ops (matched to REF's by op id,
location and name) by how much relative error each adds; it keeps REF's
results of a position in memory (at most 512 MiB); it needs --mode greedy.

--max-work bounds the work of one decode step of each graph (of each
stream, in the teacher-forced mode), its loops
and calls included, so that a graph whose loops or calls multiply (a
loop in a loop, graphs that call the next twice) ends with an error
naming the op (exit 1) instead of running for days: N units, an op
counting a fixed cost (about a thousand additions' worth) plus the
elements it reads or writes (a matmul's multiply-adds at 8 to a unit);
the default, 2^33, is about 40 times a decode step of full-scale synth
arm A (0.75 B weights). --max-memory SIZE (default 8GiB) bounds the heap
running both graphs needs by the declared shapes (mapped weights do not
count).

Examples:
  anefix verify armA.mlir armA.fixed.aimodel
  anefix verify ref.aimodel cand.aimodel --streams 16 --length 200 --max-kld 0.001 --json
  anefix verify ref.aimodel cand.aimodel --tokens testdata/verify/streams.txt
  anefix verify ref.aimodel cand.aimodel --mode greedy --steps 24 --prompt-ids 1,2,3
  anefix verify model.aimodel fixed.aimodel --numerics ane --ranges --localize`,
		Setup: runWith((*verifyFlags).declare, runVerify),
	})
}

// verifyFlags are verify's flags.
type verifyFlags struct {
	fs                                   *pflag.FlagSet // for Changed
	timings                              bool
	steps, minAgree, locTop              int
	streams, length                      int
	mode, tokens                         string
	maxKLD, minSame, clearMargin         float64
	prompt, function, acc, candAcc       string
	numerics, family                     string
	seed                                 uint64
	asJSON, ranges, localize, ignoreHash bool
	maxMem                               sizeFlag
	maxWork                              int64
}

func (f *verifyFlags) declare(fs *pflag.FlagSet) {
	f.fs = fs
	fs.StringVar(&f.mode, "mode", "teacher-forced", "teacher-forced (both graphs fed the same token streams) or greedy (each decodes its own tokens)")
	fs.IntVar(&f.streams, "streams", 8, "teacher-forced: pseudo-random token streams run together (without --tokens); when not given, fewer if --max-memory needs it")
	fs.IntVar(&f.length, "length", 0, "teacher-forced: positions per stream (default: the whole context; with --tokens, the shortest line if shorter)")
	fs.StringVar(&f.tokens, "tokens", "", "teacher-forced: file of token streams, one per line (ids separated by spaces or commas)")
	fs.Float64Var(&f.maxKLD, "max-kld", compare.DefaultMaxKLD, "teacher-forced gate: largest mean KL divergence (nats) for exit 0; negative: no gate")
	fs.Float64Var(&f.minSame, "min-same-top1", compare.DefaultMinSameTop1, "teacher-forced gate: smallest same-top-1 fraction for exit 0; negative: no gate")
	fs.Float64Var(&f.clearMargin, "clear-margin", compare.DefaultClearMargin, "teacher-forced: REF top-2 logit gap (nats) from which a position counts as a clear top-1")
	fs.IntVar(&f.steps, "steps", 24, "greedy: generated tokens to compare (N)")
	fs.StringVar(&f.prompt, "prompt-ids", "1", "greedy: comma-separated prompt token ids fed before generation")
	declareSeed(fs, &f.seed)
	fs.IntVar(&f.minAgree, "min-agree", -1, "greedy: steps that must agree for exit 0; -1 means all N")
	declareJSON(fs, &f.asJSON)
	declareTimings(fs, &f.timings)
	fs.StringVar(&f.function, "function", "", "graph to run in both modules (default: main, else the first public graph)")
	fs.StringVar(&f.acc, "accumulate", "f32", "accumulator of reductions/matmul/conv with f16 results: f32 or f16")
	fs.StringVar(&f.candAcc, "cand-accumulate", "", "accumulator for CAND only (default: --accumulate)")
	fs.StringVar(&f.numerics, "numerics", "ieee", "CAND's arithmetic: ieee or ane (the Neural Engine profile, a model from third-party measurements)")
	fs.StringVar(&f.family, "ane-family", "pre-a16", "Neural Engine family for chip-dependent rules of the ane profile and --ranges: pre-a16 or a16")
	fs.BoolVar(&f.ranges, "ranges", false, "report ops whose values leave the fp16 range, meet the profile's saturation points or become inf/NaN")
	fs.BoolVar(&f.localize, "localize", false, "run REF with f16 computed in f32 and rank CAND's ops by the relative error they add")
	fs.IntVar(&f.locTop, "localize-top", 10, "ops --localize lists")
	declareIgnoreHash(fs, &f.ignoreHash)
	declareMaxWork(fs, &f.maxWork)
	flagValues(fs, "mode", verifyModes...)
	flagValues(fs, "accumulate", accumulators...)
	flagValues(fs, "cand-accumulate", accumulators...)
	flagValues(fs, "numerics", numericsProfiles...)
	flagValues(fs, "ane-family", interp.Families()...)
	declareMaxMemory(fs, &f.maxMem)
}

// runVerify is `anefix verify`: the flags checked and made a verifyRun,
// then verifyPair.
func runVerify(env *Env, f *verifyFlags, args []string) error {
	if len(args) != 2 {
		return usagef("verify needs two inputs, REF and CAND (got %d)", len(args))
	}
	if f.steps < 1 || f.steps > 1<<20 {
		return usagef("--steps must be between 1 and 1048576, got %d", f.steps)
	}
	ids, err := parseIDs(f.prompt)
	if err != nil {
		return usagef("--prompt-ids: %v", err)
	}
	refOpts, err := accOption(f.acc)
	if err != nil {
		return usagef("--accumulate: %v", err)
	}
	candOpts := refOpts
	if f.candAcc != "" {
		if candOpts, err = accOption(f.candAcc); err != nil {
			return usagef("--cand-accumulate: %v", err)
		}
	}
	fam, err := interp.ParseFamily(f.family)
	if err != nil {
		return usagef("--ane-family: %v", err)
	}
	switch f.numerics {
	case "ieee":
	case "ane":
		for _, name := range []string{"accumulate", "cand-accumulate"} {
			if f.fs.Changed(name) {
				return usagef("--numerics ane sets CAND's accumulators itself (matmul/conv wide, reductions fp16); drop --%s", name)
			}
		}
		candOpts = interp.Options{ANE: &interp.ANE{Family: fam}}
	default:
		return usagef("--numerics: want %s, got %q%s", strings.Join(numericsProfiles, " or "), f.numerics, nearest.Hint(f.numerics, numericsProfiles, ""))
	}
	if err := checkMaxWork(f.maxWork); err != nil {
		return err
	}
	refOpts.MaxWork, candOpts.MaxWork = f.maxWork, f.maxWork
	if f.locTop < 1 {
		return usagef("--localize-top must be at least 1, got %d", f.locTop)
	}
	if f.minAgree > f.steps {
		return usagef("--min-agree %d exceeds --steps %d", f.minAgree, f.steps)
	}
	tr := teacherRun{Streams: f.streams, FitStreams: !f.fs.Changed("streams"), Length: f.length, Tokens: f.tokens, MaxKLD: f.maxKLD, MinSameTop1: f.minSame, ClearMargin: f.clearMargin}
	mode := f.mode
	if !f.fs.Changed("mode") {
		// The greedy flags keep selecting what they always did.
		for _, name := range []string{"steps", "prompt-ids", "min-agree", "localize", "localize-top"} {
			if f.fs.Changed(name) {
				mode = "greedy"
			}
		}
	}
	switch mode {
	case "teacher-forced", "teacher":
		for _, name := range []string{"steps", "prompt-ids", "min-agree", "localize", "localize-top"} {
			if f.fs.Changed(name) {
				return usagef("--%s belongs to --mode greedy; the teacher-forced mode takes --streams, --length or --tokens", name)
			}
		}
		if f.streams < 1 || f.streams > 4096 {
			return usagef("--streams must be between 1 and 4096, got %d", f.streams)
		}
		if f.tokens != "" && f.fs.Changed("streams") {
			return usagef("--streams and --tokens both choose the streams; give one")
		}
		if f.length < 0 || f.length > 1<<20 {
			return usagef("--length must be between 1 and 1048576, got %d", f.length)
		}
		if math.IsNaN(f.maxKLD) || math.IsNaN(f.minSame) || f.minSame > 1 {
			return usagef("--max-kld takes nats (negative: no gate), --min-same-top1 a fraction up to 1")
		}
		if !(f.clearMargin > 0) {
			return usagef("--clear-margin must be positive, got %v", f.clearMargin)
		}
	case "greedy":
		for _, name := range []string{"streams", "length", "tokens", "max-kld", "min-same-top1", "clear-margin"} {
			if f.fs.Changed(name) {
				return usagef("--%s belongs to the teacher-forced mode, not the greedy one (--mode greedy, or --steps, --prompt-ids, --min-agree, --localize)", name)
			}
		}
		tr = teacherRun{}
	default:
		return usagef("--mode: want %s, got %q%s", strings.Join(verifyModes, " or "), f.mode, nearest.Hint(f.mode, verifyModes, ""))
	}
	return verifyPair(env, args[0], args[1], verifyRun{Teacher: tr,
		Steps: f.steps, Prompt: ids, Seed: f.seed, MinAgree: f.minAgree, JSON: f.asJSON,
		Function: f.function, Ref: refOpts, Cand: candOpts, IgnoreHash: f.ignoreHash, MaxMemory: int64(f.maxMem),
		Family: fam, Ranges: f.ranges, Localize: f.localize, LocalizeTop: f.locTop, Timings: f.timings,
	})
}

func parseIDs(s string) ([]int64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("no token ids in %q", s)
	}
	var out []int64
	for i, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			// "1,,2" is a typo, not the prompt 1,2: refuse rather than guess.
			return nil, fmt.Errorf("entry %d of %q is empty; give token ids separated by single commas, e.g. 1,2,3", i+1, s)
		}
		// 32 bits: the report holds token ids as int32 (proto/verify.proto),
		// and no vocabulary comes near 2^31.
		v, err := strconv.ParseInt(f, 10, 32)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%q is not a token id (an integer from 0 to 2147483647)", f)
		}
		out = append(out, v)
	}
	return out, nil
}

func accOption(s string) (interp.Options, error) {
	if !slices.Contains(accumulators, s) {
		return interp.Options{}, fmt.Errorf("want %s, got %q%s", strings.Join(accumulators, " or "), s, nearest.Hint(s, accumulators, ""))
	}
	return interp.Options{AccumulateF16: s == "f16"}, nil
}

// The words verify's flags take (the first: the default). The teacher-
// forced mode is also taken as "teacher", which is not offered.
var (
	verifyModes      = []string{"teacher-forced", "greedy"}
	accumulators     = []string{"f32", "f16"}
	numericsProfiles = []string{"ieee", "ane"}
)

func accName(r, c interp.Options) string {
	n := func(o interp.Options) string {
		if o.ANE != nil {
			return "per the ane profile"
		}
		if o.AccumulateF16 {
			return "f16"
		}
		return "f32"
	}
	if n(r) == n(c) {
		return n(r)
	}
	return "ref " + n(r) + ", cand " + n(c)
}

func verifyReport(refPath, candPath string, ids []int64, seed uint64, acc, numerics string, top, need int, r *compare.Result) *pb.VerifyReport {
	ids32 := make([]int32, len(ids))
	for i, id := range ids {
		ids32[i] = int32(id) // parseIDs allows only 31-bit ids
	}
	rep := &pb.VerifyReport{SchemaVersion: pbprint.SchemaVersion,
		Reference: refPath, Candidate: candPath, Function: r.Function, PromptIds: ids32, Seed: seed,
		Accumulate: acc, Steps: int32(r.N), Agree: int32(r.Agree), FirstDivergence: proto.Int32(int32(r.FirstDivergence)),
		LogitsPsnrDb: r.PSNR, LogitsIdentical: math.IsInf(r.PSNR, 1), BitIdentical: r.Identical, MinAgree: int32(need), Passed: r.Agree >= need,
		Notes: r.Notes, Numerics: numerics, Mode: "greedy",
	}
	for _, e := range r.Ranges {
		rep.Ranges = append(rep.Ranges, &pb.VerifyRange{Graph: e.Graph, OpId: e.OpID, Source: e.Source, OpName: e.Op, MaxAbs: e.MaxAbs, Flags: e.Flags})
	}
	if l := r.Localize; l != nil {
		rep.Localize = &pb.VerifyLocalize{ReferenceNumerics: "f16 ops computed in float32 (no rounding to half)",
			Matched: count32(int64(l.Matched)), UnmatchedReference: count32(int64(l.UnmatchedRef)), UnmatchedCandidate: count32(int64(l.UnmatchedCand))}
		for i, o := range l.Ops {
			if i >= top {
				break
			}
			rep.Localize.Ops = append(rep.Localize.Ops, &pb.VerifyLocalizeOp{OpId: o.OpID, Source: o.Source, OpName: o.Op, RelError: o.RelError, Growth: o.Growth})
		}
	}
	for _, s := range r.Steps {
		rep.Positions = append(rep.Positions, &pb.VerifyStep{Index: int32(s.Index), Prompt: s.Prompt,
			RefToken: count32(s.RefToken), CandToken: count32(s.CandToken), Equal: s.Equal, Cosine: s.Cosine, MaxAbsDiff: s.MaxAbs})
	}
	for _, d := range r.States {
		rep.States = append(rep.States, &pb.VerifyStateDrift{Name: d.Name, MaxAbsDiff: d.MaxAbs, RelativeRms: d.RelRMS, BitIdentical: d.Identical})
	}
	for _, in := range r.Inputs {
		rep.Inputs = append(rep.Inputs, &pb.VerifyInput{Name: in.Name, Role: in.Role})
	}
	return rep
}

func fmtG(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case v == 0:
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func writeVerifyText(w io.Writer, r *pb.VerifyReport) error {
	r = pbprint.ForText(r) // names from the model stay on their line
	var b strings.Builder
	fmt.Fprintf(&b, "REF  %s\nCAND %s\n@%s, greedy decoding (--mode greedy): prompt %v, %d steps, accumulate %s\nnumerics of CAND: %s\n\n", r.Reference, r.Candidate, r.Function, r.PromptIds, r.Steps, r.Accumulate, r.Numerics)
	fmt.Fprintf(&b, "%5s  %-6s  %8s  %8s  %-5s  %10s  %10s\n", "pos", "phase", "REF", "CAND", "equal", "cosine", "max|Δ|")
	for _, s := range r.Positions {
		phase := "gen"
		if s.Prompt {
			phase = "prompt"
		}
		eq := "yes"
		if !s.Equal {
			eq = "NO"
		}
		fmt.Fprintf(&b, "%5d  %-6s  %8d  %8d  %-5s  %10.7f  %10s\n", s.Index, phase, s.RefToken, s.CandToken, eq, s.Cosine, fmtG(s.MaxAbsDiff))
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "top-1 agreement: %d/%d\n", r.Agree, r.Steps)
	if r.GetFirstDivergence() < 0 {
		b.WriteString("first divergence: none\n")
	} else {
		fmt.Fprintf(&b, "first divergence: step %d\n", r.GetFirstDivergence())
	}
	fmt.Fprintf(&b, "logits PSNR: %s dB\n", fmtG(r.LogitsPsnrDb))
	if r.BitIdentical {
		b.WriteString("outputs and states: bit-identical\n")
	}
	writeStatesAndInputs(&b, r, "")
	if r.Passed {
		fmt.Fprintf(&b, "gate: passed (need %d/%d)\n", r.MinAgree, r.Steps)
	} else {
		fmt.Fprintf(&b, "gate: FAILED (need %d/%d)\n", r.MinAgree, r.Steps)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// verifyRun holds the settings of one verification; `anefix rewrite
// --verify` can call verifyPair(env, in, out, defaultVerifyRun()).
type verifyRun struct {
	// Teacher, when its Streams is set, runs the teacher-forced comparison
	// (the default mode) instead of greedy decoding.
	Teacher    teacherRun
	Steps      int
	Prompt     []int64
	Seed       uint64
	MinAgree   int // -1: all steps
	JSON       bool
	Function   string
	Ref, Cand  interp.Options
	IgnoreHash bool
	MaxMemory  int64
	Family     interp.Family
	Ranges     bool
	Localize   bool
	// LocalizeTop is how many ops --localize reports (default 10).
	LocalizeTop int
	// Timings prints the run's speed and work counts on stderr.
	Timings bool
}

// defaultVerifyRun is verify's default: teacher-forced, 8 pseudo-random
// streams over the whole context, the default gates.
func defaultVerifyRun() verifyRun {
	return verifyRun{Teacher: defaultTeacherRun(), Steps: 24, Prompt: []int64{1}, MinAgree: -1}
}

// verifyPair loads both inputs, compares them, prints the report to stdout
// (timing to stderr) and returns an exitGate error when the gate fails.
func verifyPair(env *Env, refPath, candPath string, vr verifyRun) error {
	if vr.Steps <= 0 {
		vr.Steps = 24
	}
	if len(vr.Prompt) == 0 {
		vr.Prompt = []int64{1}
	}
	if refPath == "-" && candPath == "-" {
		return usagef("only one of REF and CAND can be stdin")
	}
	ref, err := loadInput(env, refPath, vr.IgnoreHash)
	if err != nil {
		return err
	}
	defer ref.Close()
	cand, err := loadInput(env, candPath, vr.IgnoreHash)
	if err != nil {
		return err
	}
	defer cand.Close()
	// A main.hash that does not match is an error (a warning with
	// --ignore-hash) for every command, not only those that write.
	for _, ld := range []*modelio.Loaded{ref, cand} {
		if err := ld.Input.CheckHash(); err != nil {
			return err
		}
	}
	// Running IR that does not verify would compare numbers of a graph
	// that is not what it declares.
	for i, ld := range []*modelio.Loaded{ref, cand} {
		if err := passes.VerifyInput(ld.Module, []string{refPath, candPath}[i], "verify runs the graph, so it needs them", "it is not run"); err != nil {
			return err
		}
	}
	// Flag values that this model cannot honour are usage errors, found
	// before the run rather than when it gets there.
	for i, ld := range []*modelio.Loaded{ref, cand} {
		path := []string{refPath, candPath}[i]
		if vr.Function != "" && ld.Module.Graph(vr.Function) == nil {
			_, err := compare.ContextOf(ld.Module, vr.Function) // lists the graphs there are
			return usagef("--function %s: %s: %v", vr.Function, quotePath(path), err)
		}
		c, err := compare.ContextOf(ld.Module, vr.Function)
		if err != nil {
			return fmt.Errorf("%s: %w", quotePath(path), err)
		}
		if vr.Teacher.Streams > 0 {
			continue // teacherStreams checks the length against the context
		}
		if most := c.MaxSteps(len(vr.Prompt)); most >= 0 && vr.Steps > most {
			if most < 1 {
				return usagef("--prompt-ids: %d prompt tokens do not fit the context of %s, %s", len(vr.Prompt), quotePath(path), c)
			}
			return usagef("--steps %d: with %d prompt token(s) the run needs %d positions, past the context of %s, %s; use --steps %d or less",
				vr.Steps, len(vr.Prompt), (len(vr.Prompt)+vr.Steps-1)*c.PerStep, quotePath(path), c, most)
		}
	}
	// The records of the rewrites that made the two (bundle.RecordFile;
	// none for single files): the candidate inputs that carry an
	// externalized constant, and the states scale-state rescaled, compared
	// in REF's units.
	candRec, err := bundle.ReadRecord(cand.Input.AIModelDir)
	if err != nil {
		return err
	}
	refRec, err := bundle.ReadRecord(ref.Input.AIModelDir)
	if err != nil {
		return err
	}
	consts, log2 := compare.RecordInputs(refRec, candRec)
	if vr.Teacher.Streams > 0 {
		return verifyTeacher(env, refPath, candPath, ref, cand, vr, consts, log2)
	}
	start := time.Now()
	bar := positionBar(env)
	res, err := compare.Compare(ref.Module, cand.Module, compare.Options{
		Steps: vr.Steps, Prompt: vr.Prompt, Seed: vr.Seed, Function: vr.Function, Ref: vr.Ref, Cand: vr.Cand,
		MaxMemory: vr.MaxMemory, CandConstants: consts, Ranges: vr.Ranges, Family: vr.Family, Localize: vr.Localize, CandStateLog2: log2,
		Progress: bar.set,
	})
	bar.done()
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	need := vr.MinAgree
	if need < 0 {
		need = res.N
	}
	if vr.LocalizeTop < 1 {
		vr.LocalizeTop = 10
	}
	rep := verifyReport(refPath, candPath, vr.Prompt, vr.Seed, accName(vr.Ref, vr.Cand), vr.Cand.ANE.Describe(), vr.LocalizeTop, need, res)
	rep.RangesChecked = vr.Ranges
	if vr.JSON {
		out, err := protoJSON(rep)
		if err != nil {
			return err
		}
		if _, err := env.Stdout.Write(out); err != nil {
			return err
		}
	} else if err := writeVerifyText(env.Stdout, rep); err != nil {
		return err
	}
	// Timing goes to stderr only, when asked: stdout must be byte-stable.
	if positions := len(res.Steps); vr.Timings {
		fmt.Fprintf(env.Stderr, "anefix verify: %d positions × 2 graphs in %.2fs (%.2f positions/s for the pair)\n",
			positions, elapsed.Seconds(), float64(positions)/elapsed.Seconds())
	}
	if !rep.Passed {
		return withCode(exitGate, fmt.Errorf("gate not met: top-1 agreement %d/%d, need %d", res.Agree, res.N, need))
	}
	return nil
}

// rewriteVerify is `anefix rewrite IN -o OUT --verify`: the default gate on
// input vs output. Its report goes to report (rewriteFlags.reportWriter):
// stdout, unless stdout carries the model or the JSON rewrite report.
func rewriteVerify(env *Env, report io.Writer, in, out string, maxWork int64, timings bool) error {
	if out == "-" || in == "-" {
		return usagef("--verify needs IN and OUT as files or directories, not stdin/stdout")
	}
	e := *env
	e.Stdout = report
	vr := defaultVerifyRun()
	vr.Ref.MaxWork, vr.Cand.MaxWork = maxWork, maxWork
	vr.Timings = timings
	return verifyPair(&e, in, out, vr)
}

// writeStatesAndInputs writes what both verify modes end with: each
// state's difference (at stateWhere: "" or " at the last position"), the
// notes, the ranges and localization when asked for, and the inputs' roles.
func writeStatesAndInputs(b *strings.Builder, r *pb.VerifyReport, stateWhere string) {
	for _, s := range r.States {
		if s.BitIdentical {
			fmt.Fprintf(b, "state %s: bit-identical\n", s.Name)
		} else {
			fmt.Fprintf(b, "state %s: max|Δ| %s, relative RMS %s%s\n", s.Name, fmtG(s.MaxAbsDiff), fmtG(s.RelativeRms), stateWhere)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
	writeRangesText(b, r)
	writeLocalizeText(b, r)
	var roles []string
	for _, in := range r.Inputs {
		roles = append(roles, in.Name+"="+in.Role)
	}
	fmt.Fprintf(b, "inputs: %s\n", strings.Join(roles, " "))
}

func writeRangesText(b *strings.Builder, r *pb.VerifyReport) {
	if !r.RangesChecked {
		return
	}
	if len(r.Ranges) == 0 {
		b.WriteString("ranges: no op left the fp16 range, met a saturation point or went inf/NaN\n")
		return
	}
	fmt.Fprintf(b, "ranges: %d op(s) left the fp16 range, met a saturation point or went inf/NaN\n", len(r.Ranges))
	fmt.Fprintf(b, "  %-9s  %-28s  %-24s  %10s  %s\n", "graph", "op id", "source", "max|x|", "flags")
	for _, e := range r.Ranges {
		fmt.Fprintf(b, "  %-9s  %-28s  %-24s  %10s  %s\n", e.Graph, e.OpId, shortSource(e.Source), fmtG(e.MaxAbs), strings.Join(e.Flags, ","))
	}
}

func writeLocalizeText(b *strings.Builder, r *pb.VerifyReport) {
	l := r.Localize
	if l == nil {
		return
	}
	fmt.Fprintf(b, "localize: reference with %s; %d ops matched, unmatched %d in REF and %d in CAND\n", l.ReferenceNumerics, l.Matched, l.UnmatchedReference, l.UnmatchedCandidate)
	fmt.Fprintf(b, "  %-4s  %-28s  %-24s  %10s  %10s\n", "rank", "op id", "source", "rel.error", "growth")
	for i, o := range l.Ops {
		fmt.Fprintf(b, "  %-4d  %-28s  %-24s  %10s  %10s\n", i+1, o.OpId, shortSource(o.Source), fmtG(o.RelError), fmtG(o.Growth))
	}
}
