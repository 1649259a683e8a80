package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/anefix/anefix/graph/interp/compare"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/graph/record"
	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
)

// teacherRun holds the settings of verify's teacher-forced mode.
type teacherRun struct {
	Streams int // pseudo-random streams (without Tokens); > 0 selects the mode
	// FitStreams lowers Streams to what --max-memory admits (the user did
	// not choose the number); a note says so.
	FitStreams  bool
	Length      int    // positions per stream; 0: the whole context
	Tokens      string // file of streams, one per line
	MaxKLD      float64
	MinSameTop1 float64
	ClearMargin float64
}

// defaultTeacherRun is verify's default, which rewrite --verify applies.
func defaultTeacherRun() teacherRun {
	return teacherRun{Streams: 8, FitStreams: true, MaxKLD: compare.DefaultMaxKLD, MinSameTop1: compare.DefaultMinSameTop1, ClearMargin: compare.DefaultClearMargin}
}

// defaultUnknownLength is the stream length when the graph declares no
// context (no causal-mask input) and --length is not given.
const defaultUnknownLength = 128

// teacherStreams makes the token streams: read from tr.Tokens, or
// pseudo-random over the vocabulary; the length is --length, else the
// whole context (with a file, its shortest line when shorter).
func teacherStreams(env *Env, tr teacherRun, seed uint64, paths []string, mods []*modelio.Loaded, function string, maxMemory int64) ([][]int64, string, []string, error) {
	var notes []string
	most, vocab := -1, 0
	for i, ld := range mods {
		c, err := compare.ContextOf(ld.Module, function)
		if err != nil {
			return nil, "", nil, fmt.Errorf("%s: %w", quotePath(paths[i]), err)
		}
		if m := c.MaxSteps(1); m >= 0 && (most < 0 || m < most) {
			most = m
		}
		v, err := compare.Vocab(ld.Module, function)
		if err != nil {
			return nil, "", nil, fmt.Errorf("%s: %w", quotePath(paths[i]), err)
		}
		if i == 0 {
			vocab = v
		}
	}
	if tr.FitStreams && tr.Tokens == "" {
		if n := compare.StreamsWithin(mods[0].Module, mods[1].Module, function, maxMemory, tr.Streams); n < tr.Streams {
			notes = append(notes, fmt.Sprintf("%d streams instead of the default %d: more would pass --max-memory %s by the shapes' estimate (--streams chooses; --max-memory raises the limit)", n, tr.Streams, compare.FormatBytes(maxMemory)))
			tr.Streams = n
		}
	}
	L := tr.Length
	if most >= 0 && L > most {
		return nil, "", nil, usagef("--length %d is past the context of %s: %d positions; use --length %d or less", L, quotePath(paths[0]), most, most)
	}
	if tr.Tokens == "" {
		if L == 0 {
			L = most
			if L < 0 {
				L = defaultUnknownLength
				notes = append(notes, fmt.Sprintf("the graph declares no context (no causal-mask input): %d positions per stream; choose with --length", L))
			}
		}
		if vocab < 1 {
			// A scalar or empty output: no vocabulary to draw from, and no
			// token input that could read one.
			vocab = 1
			notes = append(notes, "the compared output has no last axis (no vocabulary): every token id fed is 0; give --tokens FILE to choose them")
		}
		return compare.RandomStreams(tr.Streams, L, vocab, seed), fmt.Sprintf("pseudo-random, seed %d (uniform ids in [0, %d) from a PCG seeded by (seed, stream index))", seed, vocab), notes, nil
	}
	streams, err := readTokenStreams(env, tr.Tokens, vocab)
	if err != nil {
		return nil, "", nil, err
	}
	shortest := len(streams[0])
	for _, s := range streams {
		shortest = min(shortest, len(s))
	}
	switch {
	case L == 0:
		L = shortest
		if most >= 0 && L > most {
			L = most
		}
	case L > shortest:
		return nil, "", nil, usagef("--length %d: %s has a stream of %d tokens; give --length %d or less, or longer streams", L, quotePath(tr.Tokens), shortest, shortest)
	}
	cut := 0
	for i := range streams {
		if len(streams[i]) > L {
			cut++
			streams[i] = streams[i][:L]
		}
	}
	if cut > 0 {
		notes = append(notes, fmt.Sprintf("%d stream(s) of %s cut to %d tokens: streams run together, so they share one length", cut, tr.Tokens, L))
	}
	return streams, "file " + tr.Tokens, notes, nil
}

// readTokenStreams reads one stream of token ids per line (spaces, tabs or
// commas between ids; blank lines skipped); an error names line and
// column.
func readTokenStreams(env *Env, path string, vocab int) ([][]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--tokens: %w", err)
	}
	defer f.Close()
	return parseTokenStreams(f, path, vocab)
}

func parseTokenStreams(r io.Reader, path string, vocab int) ([][]int64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	var out [][]int64
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		var ids []int64
		col := 0
		for col < len(text) {
			c := text[col]
			if c == ' ' || c == '\t' || c == ',' || c == '\r' {
				col++
				continue
			}
			end := col
			for end < len(text) && !strings.ContainsRune(" \t,\r", rune(text[end])) {
				end++
			}
			field := text[col:end]
			v, err := strconv.ParseInt(field, 10, 32)
			if err != nil || v < 0 {
				return nil, fmt.Errorf("%s:%d:%d: %q is not a token id (an integer from 0 to 2147483647)", path, line, col+1, field)
			}
			if vocab > 0 && v >= int64(vocab) {
				return nil, fmt.Errorf("%s:%d:%d: token id %d is past the vocabulary of %d (the last axis of the compared output)", path, line, col+1, v, vocab)
			}
			ids = append(ids, v)
			col = end
		}
		if len(ids) > 0 {
			out = append(out, ids)
		}
		if len(out) > 4096 {
			return nil, fmt.Errorf("%s:%d: more than 4096 streams; split the file", path, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: line %d: %w", path, line+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no token ids; give one stream of ids per line", path)
	}
	return out, nil
}

// verifyTeacher is verify's teacher-forced mode on two loaded inputs.
func verifyTeacher(env *Env, refPath, candPath string, ref, cand *modelio.Loaded, vr verifyRun, consts []record.ConstantInput, log2 map[string]int) error {
	tr := vr.Teacher
	streams, source, notes, err := teacherStreams(env, tr, vr.Seed, []string{refPath, candPath}, []*modelio.Loaded{ref, cand}, vr.Function, vr.MaxMemory)
	if err != nil {
		return err
	}
	start := time.Now()
	bar := positionBar(env)
	res, err := compare.CompareTeacher(ref.Module, cand.Module, compare.TeacherOptions{
		Streams: streams, Seed: vr.Seed, Function: vr.Function, Ref: vr.Ref, Cand: vr.Cand, CandConstants: consts,
		CandStateLog2: log2, MaxMemory: vr.MaxMemory, Ranges: vr.Ranges, Family: vr.Family, ClearMargin: tr.ClearMargin,
		Progress: bar.set,
	})
	bar.done()
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	res.Notes = append(notes, res.Notes...)
	rep := teacherReport(refPath, candPath, vr, source, res)
	if vr.JSON {
		out, err := protoJSON(rep)
		if err != nil {
			return err
		}
		if _, err := env.Stdout.Write(out); err != nil {
			return err
		}
	} else if err := writeTeacherText(env.Stdout, rep); err != nil {
		return err
	}
	if vr.Timings {
		printTeacherTimings(env, res, elapsed)
	}
	if !rep.Passed {
		return withCode(exitGate, fmt.Errorf("gate not met: %s", teacherGateText(rep)))
	}
	return nil
}

// printTeacherTimings is verify --timings: the speed of the run and what
// the weight store shared between the graphs, on stderr.
func printTeacherTimings(env *Env, res *compare.Teacher, elapsed time.Duration) {
	fmt.Fprintf(env.Stderr, "anefix verify: %d streams × %d positions × 2 graphs in %.2fs (%.2f positions/s per stream for the pair); matmul and conv read %s of weights per position for all streams and both graphs\n",
		res.Streams, res.Length, elapsed.Seconds(), float64(res.Length)/elapsed.Seconds(), compare.FormatBytes(res.WeightBytes/int64(max(res.Length, 1))))
	if b := res.Blobs; b.Held > 0 {
		fmt.Fprintf(env.Stderr, "anefix verify: weight blobs held for both graphs: %s, of which %s byte-identical in REF and CAND and held once (%s read to compare them)",
			compare.FormatBytes(b.Held), compare.FormatBytes(b.Shared), compare.FormatBytes(b.Compared))
		if res.PairedOps > 0 {
			fmt.Fprintf(env.Stderr, "; %d convs and matmuls on weights identical in both ran once for both graphs", res.PairedOps)
		}
		if b.Folded > 0 {
			fmt.Fprintf(env.Stderr, "; palettized weights computed: %s, of which %s for both graphs at once", compare.FormatBytes(b.Folded), compare.FormatBytes(b.FoldShared))
		}
		fmt.Fprintln(env.Stderr)
	}
}

func teacherReport(refPath, candPath string, vr verifyRun, source string, r *compare.Teacher) *pb.VerifyReport {
	tr := vr.Teacher
	rep := &pb.VerifyReport{SchemaVersion: pbprint.SchemaVersion,
		Reference: refPath, Candidate: candPath, Function: r.Function, Seed: vr.Seed, Accumulate: accName(vr.Ref, vr.Cand),
		LogitsPsnrDb: r.PSNR, LogitsIdentical: math.IsInf(r.PSNR, 1), BitIdentical: r.Identical, Notes: r.Notes, Numerics: vr.Cand.ANE.Describe(), RangesChecked: vr.Ranges,
		Mode: "teacher-forced", Streams: int32(r.Streams), Length: int32(r.Length), Tokens: source,
		MeanKld: proto.Float64(r.MeanKLD), KldP50: proto.Float64(r.KLDP50), KldP90: proto.Float64(r.KLDP90), KldP99: proto.Float64(r.KLDP99), KldMax: proto.Float64(r.KLDMax),
		SameTop1: proto.Float64(r.SameTop1Frac()), PositionsCompared: count32(int64(r.Positions)), SameTop1Low: proto.Float64(r.SameTop1Low), SameTop1High: proto.Float64(r.High),
		ClearMargin: r.ClearMargin, ClearPositions: count32(int64(r.ClearPositions)), SameTop1Clear: proto.Float64(r.ClearSameFrac()),
		RmsDeltaP: proto.Float64(r.RMSDeltaP), MaxKld: tr.MaxKLD, MinSameTop1: tr.MinSameTop1,
	}
	rep.Passed = (tr.MaxKLD < 0 || r.MeanKLD <= tr.MaxKLD) && (tr.MinSameTop1 < 0 || r.SameTop1Frac() >= tr.MinSameTop1)
	for _, e := range r.Ranges {
		rep.Ranges = append(rep.Ranges, &pb.VerifyRange{Graph: e.Graph, OpId: e.OpID, Source: e.Source, OpName: e.Op, MaxAbs: e.MaxAbs, Flags: e.Flags})
	}
	for _, d := range r.Final {
		rep.States = append(rep.States, &pb.VerifyStateDrift{Name: d.Name, MaxAbsDiff: d.MaxAbs, RelativeRms: d.RelRMS, BitIdentical: d.Identical})
	}
	for _, c := range r.States {
		sc := &pb.VerifyStateCurve{Name: c.Name}
		for _, p := range c.Points {
			sc.Points = append(sc.Points, &pb.VerifyDriftPoint{Position: int32(p.Position), RelativeRms: p.RelRMS, MaxAbsDiff: p.MaxAbs})
		}
		rep.StateDrift = append(rep.StateDrift, sc)
	}
	for _, in := range r.Inputs {
		rep.Inputs = append(rep.Inputs, &pb.VerifyInput{Name: in.Name, Role: in.Role})
	}
	return rep
}

func teacherGateText(r *pb.VerifyReport) string {
	var parts []string
	if r.MaxKld >= 0 {
		parts = append(parts, fmt.Sprintf("mean KLD %s (need ≤ %s)", fmtG(r.GetMeanKld()), fmtG(r.MaxKld)))
	}
	if r.MinSameTop1 >= 0 {
		parts = append(parts, fmt.Sprintf("same-top-1 %.4f (need ≥ %s)", r.GetSameTop1(), fmtG(r.MinSameTop1)))
	}
	if len(parts) == 0 {
		return "no gate"
	}
	return strings.Join(parts, ", ")
}

func writeTeacherText(w io.Writer, r *pb.VerifyReport) error {
	r = pbprint.ForText(r) // names from the model stay on their line
	var b strings.Builder
	fmt.Fprintf(&b, "REF  %s\nCAND %s\n@%s, teacher-forced: %d streams × %d positions (tokens: %s), accumulate %s\nnumerics of CAND: %s\n\n",
		r.Reference, r.Candidate, r.Function, r.Streams, r.Length, r.Tokens, r.Accumulate, r.Numerics)
	fmt.Fprintf(&b, "mean KLD: %s nats (p50 %s, p90 %s, p99 %s, max %s)\n", fmtG(r.GetMeanKld()), fmtG(r.GetKldP50()), fmtG(r.GetKldP90()), fmtG(r.GetKldP99()), fmtG(r.GetKldMax()))
	fmt.Fprintf(&b, "same top-1: %.2f %% of %d positions (95 %% interval %.2f–%.2f %%)\n", 100*r.GetSameTop1(), r.PositionsCompared, 100*r.GetSameTop1Low(), 100*r.GetSameTop1High())
	fmt.Fprintf(&b, "same top-1 where REF's top-2 gap ≥ %s nats: %.2f %% of %d positions\n", fmtG(r.ClearMargin), 100*r.GetSameTop1Clear(), r.ClearPositions)
	fmt.Fprintf(&b, "RMS Δp: %s\n", fmtG(r.GetRmsDeltaP()))
	fmt.Fprintf(&b, "logits PSNR: %s dB\n", fmtG(r.LogitsPsnrDb))
	if r.BitIdentical {
		b.WriteString("outputs and states: bit-identical\n")
	}
	if len(r.StateDrift) > 0 {
		b.WriteString("state drift (relative RMS over all streams, by position):\n")
		fmt.Fprintf(&b, "  %-20s", "position")
		for _, p := range r.StateDrift[0].Points {
			fmt.Fprintf(&b, "  %9d", p.Position)
		}
		b.WriteString("\n")
		for _, c := range r.StateDrift {
			fmt.Fprintf(&b, "  %-20s", c.Name)
			for _, p := range c.Points {
				fmt.Fprintf(&b, "  %9s", fmtG(p.RelativeRms))
			}
			b.WriteString("\n")
		}
	}
	writeStatesAndInputs(&b, r, " at the last position")
	if r.Passed {
		fmt.Fprintf(&b, "gate: passed (%s)\n", teacherGateText(r))
	} else {
		fmt.Fprintf(&b, "gate: FAILED (%s)\n", teacherGateText(r))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
