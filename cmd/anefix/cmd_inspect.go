package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/inspect"
	"github.com/anefix/anefix/passes"
	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
)

func init() {
	register(&command{
		Name:    "inspect",
		Usage:   "inspect IN [--json] [--source X.aimodel]",
		Summary: "show graphs, I/O and states, op and type census, fp32 islands",
		Help: `IN is an .aimodel directory, an LLM bundle, an MLIR bytecode file, an MLIR
text file (generic or coreai printed form), or "-" for stdin.
It first prints the module: its top-level op, its dialects (for bytecode
with their version entries) and the ops whose properties anefix keeps unread.
For every graph it prints the inputs and outputs (marking states), the op
count by op name, the element types of all values, the fp32 islands (f32
values and the casts that create them, with FX op ids and source lines),
expand_dims/shrink_dims ops touching graph I/O, and the composites invoked.

IN may also be a compiled package (<name>.<arch>.aimodelc, written by
coreai-build): then it prints, per entry function, the device the
compilation asked for, the ANE and GPU regions, whether it runs fully on
the Neural Engine, and the file each of those facts came from (the
delegate's manifest.plist, the specialized .mpsgraph, ANE region
directories), saying where two sources disagree; plus metadata.json and
stats.json. --source X.aimodel compares metadata.json's sourceHash with the
SHA-256 of X's main.mlirb. Where the manifest names an entry function's
states (mps.stateInputIndices), it prints them with their types from the
specialized graph. --max-memory bounds the reader's heap (default 8GiB).

Examples:
  anefix inspect testdata/mlir/pretty/hybrid_layer.mlir
  anefix inspect testdata/synth/armA.aimodel
  anefix inspect model.mlir --json | jq '.graphs[0].fp32Islands'
  anefix inspect model.h18p.aimodelc --source model.aimodel`,
		Setup: runWith((*inspectFlags).declare, runInspect),
	})
}

// inspectFlags are inspect's flags.
type inspectFlags struct {
	fs                 *pflag.FlagSet // for Changed
	asJSON, ignoreHash bool
	source             string
	maxMem             sizeFlag
}

func (f *inspectFlags) declare(fs *pflag.FlagSet) {
	f.fs = fs
	declareJSON(fs, &f.asJSON)
	declareIgnoreHash(fs, &f.ignoreHash)
	fs.StringVar(&f.source, "source", "", "for a compiled package: the .aimodel it was compiled from, to compare with metadata.json's sourceHash")
	declareMaxMemory(fs, &f.maxMem)
}

// runInspect is `anefix inspect`.
func runInspect(env *Env, f *inspectFlags, args []string) error {
	if len(args) != 1 {
		return usagef("inspect takes exactly one input (a model path or -), got %d", len(args))
	}
	compiled := isCompiledPackage(args[0])
	if f.source != "" && !compiled {
		return usagef("--source applies to a compiled package (.aimodelc); %s is not one", args[0])
	}
	if f.fs.Changed("max-memory") && !compiled {
		return usagef("--max-memory applies to a compiled package (.aimodelc) here; %s is not one", args[0])
	}
	var rep *pb.InspectReport
	var err error
	if compiled {
		rep, err = inspectCompiled(args[0], f.source, f.ignoreHash, int64(f.maxMem))
	} else {
		rep, err = inspectInput(env, args[0], f.ignoreHash)
	}
	if err != nil {
		return err
	}
	if f.asJSON {
		b, err := protoJSON(rep)
		if err != nil {
			return err
		}
		_, err = env.Stdout.Write(b)
		return err
	}
	if compiled {
		return writeCompiledText(env.Stdout, rep.GetInput(), rep.GetCompiled())
	}
	return writeInspectText(env.Stdout, rep)
}

// inspectInput opens path (MLIR text, bytecode, .aimodel or LLM bundle, or
// stdin) through graph/modelio and builds the report.
func inspectInput(env *Env, path string, ignoreHash bool) (*pb.InspectReport, error) {
	ld, err := loadInput(env, path, ignoreHash)
	if err != nil {
		return nil, err
	}
	defer ld.Close()
	ld.ReadOnly()
	if absent := passes.MarkAbsentWeights(ld.Module); len(absent) > 0 {
		fmt.Fprintf(env.Stderr, "anefix inspect: note: %s\n", passes.AbsentWeightsNote(absent))
	}
	if err := graph.Verify(ld.Module); err != nil {
		fmt.Fprintf(env.Stderr, "anefix inspect: warning: the module does not verify: %v\n", err)
	}
	ins := inspect.Report(ld.Module)
	if ld.Bytecode != nil {
		inspect.AddDialectTable(ins, ld.Bytecode.Dialects())
	}
	// The hash is checked in the background while the module decodes.
	if err := ld.Input.CheckHash(); err != nil {
		return nil, err
	}
	rep := inspectPB(ins)
	rep.Input = reportInput(path, ld)
	return rep, nil
}

// writeInspectText prints a summary meant to fit one screen per graph.
func writeInspectText(w io.Writer, rep *pb.InspectReport) error {
	rep = pbprint.ForText(rep) // names from the model stay on their line
	var b strings.Builder
	if in := rep.GetInput(); in != nil {
		kind := map[pb.InputKind]string{pb.InputKind_MLIR_TEXT: "MLIR text", pb.InputKind_MLIR_BYTECODE: "MLIR bytecode", pb.InputKind_AIMODEL: ".aimodel", pb.InputKind_LLM_BUNDLE: "LLM bundle"}[in.GetKind()]
		if in.GetTextForm() != "" {
			kind += ", " + in.GetTextForm() + " form"
		}
		fmt.Fprintf(&b, "%s (%s): %d graph(s)\n", in.GetPath(), kind, len(rep.GetGraphs()))
	}
	writeModuleSummary(&b, rep)
	for _, g := range rep.GetGraphs() {
		b.WriteString("\n")
		head := "graph @" + g.GetName()
		if g.GetVisibility() != "public" {
			head += " " + g.GetVisibility()
		}
		if g.GetNoinline() {
			head += " noinline"
		}
		if c := g.GetCompositeDecl(); c != "" {
			head += "  [composite " + c + "]"
		}
		fmt.Fprintf(&b, "%s  (%d ops)\n", head, g.GetOpTotal())
		writePorts(&b, "inputs", g.GetInputs(), "new value in output")
		writePorts(&b, "outputs", g.GetOutputs(), "updates input")
		for _, n := range g.GetStateNotes() {
			fmt.Fprintf(&b, "  state: %s\n", n)
		}
		if len(g.GetOpCounts()) > 0 {
			counts := append([]*pb.OpCount(nil), g.GetOpCounts()...)
			sort.SliceStable(counts, func(i, j int) bool { return counts[i].GetCount() > counts[j].GetCount() })
			var parts []string
			for _, c := range counts {
				parts = append(parts, fmt.Sprintf("%s %d", strings.TrimPrefix(c.GetOpName(), "coreai."), c.GetCount()))
			}
			writeWrapped(&b, "  ops:           ", parts)
		}
		if len(g.GetElementTypes()) > 0 {
			var parts []string
			for _, c := range g.GetElementTypes() {
				parts = append(parts, fmt.Sprintf("%s %d", c.GetType(), c.GetCount()))
			}
			writeWrapped(&b, "  element types: ", parts)
		}
		if isl := g.GetFp32Islands(); len(isl) > 0 {
			writeIslands(&b, isl)
		} else if g.GetOpTotal() > 0 {
			b.WriteString("  fp32 islands: none\n")
		}
		if rs := g.GetIoReshapes(); len(rs) > 0 {
			b.WriteString("  I/O reshapes:\n")
			for _, r := range rs {
				dir := "reads input"
				if r.GetIsOutput() {
					dir = "feeds output"
				}
				fmt.Fprintf(&b, "    %s %s %s %q: %s -> %s\n", strings.TrimPrefix(r.GetOp().GetOpName(), "coreai."), opLabel(r.GetOp()), dir, r.GetPort(), r.GetFromType(), r.GetToType())
			}
		}
		if inv := g.GetInvocations(); len(inv) > 0 {
			var parts []string
			for _, c := range inv {
				s := fmt.Sprintf("@%s x%d", c.GetCallee(), c.GetCount())
				if c.GetComposite() != "" {
					s += " (" + c.GetComposite() + ")"
				}
				parts = append(parts, s)
			}
			writeWrapped(&b, "  invokes:       ", parts)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeModuleSummary prints the top-level op, the dialects and, when no
// graph could be read, every op by name; and the ops whose properties stay
// unread.
func writeModuleSummary(b *strings.Builder, rep *pb.InspectReport) {
	total := int64(0)
	for _, c := range rep.GetModuleOpCounts() {
		total += int64(c.GetCount())
	}
	fmt.Fprintf(b, "module %s  (%d ops)", rep.GetTopLevelOp(), total)
	if p := rep.GetInput().GetBytecodeProducer(); p != "" {
		fmt.Fprintf(b, "  bytecode version %d, producer %s", rep.GetInput().GetBytecodeVersion(), p)
	}
	b.WriteString("\n")
	var parts []string
	for _, d := range rep.GetDialects() {
		s := fmt.Sprintf("%s %d", d.GetName(), d.GetOps())
		if d.GetHasVersion() {
			s += " (version entry " + d.GetVersionHex() + ")"
		}
		parts = append(parts, s)
	}
	writeWrapped(b, "  dialects:      ", parts)
	if len(rep.GetGraphs()) == 0 {
		parts = nil
		for _, c := range rep.GetModuleOpCounts() {
			parts = append(parts, fmt.Sprintf("%s %d", c.GetOpName(), c.GetCount()))
		}
		if len(parts) > 0 {
			writeWrapped(b, "  ops:           ", parts)
		}
	}
	if u := rep.GetOpaquePropertyOps(); len(u) > 0 {
		parts = nil
		for _, c := range u {
			parts = append(parts, fmt.Sprintf("%s %d", c.GetOpName(), c.GetCount()))
		}
		b.WriteString("  properties kept unread (native layout unknown to anefix; carried unchanged):\n")
		writeWrapped(b, "                 ", parts)
	}
}

func writePorts(b *strings.Builder, title string, ports []*pb.Port, partner string) {
	if len(ports) == 0 {
		fmt.Fprintf(b, "  %s: none\n", title)
		return
	}
	fmt.Fprintf(b, "  %s:\n", title)
	width := 0
	for _, p := range ports {
		width = max(width, len(p.GetName()))
	}
	for _, p := range ports {
		fmt.Fprintf(b, "    %2d %-*s  %s", p.GetIndex(), width, p.GetName(), p.GetType())
		switch {
		case p.GetIsState():
			b.WriteString("  STATE")
			if p.GetStatePartner() != "" {
				fmt.Fprintf(b, " (%s %q)", partner, p.GetStatePartner())
			}
		case p.GetState() != nil:
			fmt.Fprintf(b, "  plain state pair (%s %q; %s)", partner, p.GetStatePartner(), p.GetState().GetEvidence())
		}
		b.WriteString("\n")
	}
}

// opLabel names an op by FX id and short source, falling back to its index.
func opLabel(r *pb.OpRef) string {
	id := r.GetOpId()
	switch {
	case id == "" && r.OpNumber != nil:
		id = fmt.Sprintf("op_id %d", r.GetOpNumber())
	case id == "":
		id = fmt.Sprintf("op#%d", r.GetIndex())
	case r.OpNumber != nil:
		id += fmt.Sprintf(" (op_id %d)", r.GetOpNumber())
	}
	if src := r.GetSource(); src != "" {
		return id + " (" + graph.ShortFile(src[:strings.LastIndexByte(src, ':')]) + src[strings.LastIndexByte(src, ':'):] + ")"
	}
	return id
}

// islandGroup is a set of fp32 islands that look alike (same size, same
// cast sources, same I/O): a 24-layer model repeats one island per layer.
type islandGroup struct {
	key       string
	islands   []*pb.Fp32Island
	entry     []*pb.OpRef
	exit      []*pb.OpRef
	firstHead string
}

func shortSource(src string) string {
	i := strings.LastIndexByte(src, ':')
	if src == "" || i < 0 {
		return "(no source)"
	}
	return graph.ShortFile(src[:i]) + src[i:]
}

// castSummary is "macos/qwen3_5.py:199 x6, ios/x.py:3 x1" in first-seen order.
func castSummary(casts []*pb.OpRef) string {
	count := map[string]int{}
	var order []string
	for _, c := range casts {
		s := shortSource(c.GetSource())
		if count[s] == 0 {
			order = append(order, s)
		}
		count[s]++
	}
	var parts []string
	for _, s := range order {
		parts = append(parts, fmt.Sprintf("%s x%d", s, count[s]))
	}
	return strings.Join(parts, ", ")
}

func islandHead(s *pb.Fp32Island) string {
	h := fmt.Sprintf("%d f32 values, %d ops", len(s.GetValues()), len(s.GetOps()))
	if len(s.GetFromInputs()) > 0 {
		h += ", from inputs " + strings.Join(s.GetFromInputs(), ", ")
	}
	if len(s.GetToOutputs()) > 0 {
		h += ", to outputs " + strings.Join(s.GetToOutputs(), ", ")
	}
	return h
}

func writeIslands(b *strings.Builder, isl []*pb.Fp32Island) {
	var groups []*islandGroup
	byKey := map[string]*islandGroup{}
	nIn, nOut := 0, 0
	for _, s := range isl {
		nIn += len(s.GetEntryCasts())
		nOut += len(s.GetExitCasts())
		key := fmt.Sprintf("%d|%s|%s|%v|%v", len(s.GetValues()), castSummary(s.GetEntryCasts()), castSummary(s.GetExitCasts()), s.GetFromInputs(), s.GetToOutputs())
		g := byKey[key]
		if g == nil {
			g = &islandGroup{key: key, firstHead: islandHead(s)}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.islands = append(g.islands, s)
		g.entry = append(g.entry, s.GetEntryCasts()...)
		g.exit = append(g.exit, s.GetExitCasts()...)
	}
	fmt.Fprintf(b, "  fp32 islands: %d (entered by %d casts, left by %d)\n", len(isl), nIn, nOut)
	for _, g := range groups {
		n := len(g.islands)
		if n == 1 {
			fmt.Fprintf(b, "    %s\n", g.firstHead)
		} else {
			fmt.Fprintf(b, "    %d x %s (each)\n", n, g.firstHead)
		}
		writeCasts(b, "in: ", g.islands[0].GetEntryCasts(), g.entry)
		writeCasts(b, "out:", g.islands[0].GetExitCasts(), g.exit)
	}
}

// writeCasts prints where one island's casts come from and the op ids of
// the whole group's casts, cut after a few.
func writeCasts(b *strings.Builder, label string, one, all []*pb.OpRef) {
	if len(one) == 0 {
		return
	}
	var ids []string
	for _, c := range all {
		id := c.GetOpId()
		if id == "" {
			id = fmt.Sprintf("op#%d", c.GetIndex())
		}
		ids = append(ids, id)
	}
	if len(ids) > 8 {
		ids = append(ids[:8:8], fmt.Sprintf("… (%d in all)", len(all)))
	}
	fmt.Fprintf(b, "      %s %s: %s\n", label, castSummary(one), strings.Join(ids, ", "))
}

// writeWrapped prints comma-separated parts after prefix, wrapping at 100
// columns with continuation lines aligned under the first part.
func writeWrapped(b *strings.Builder, prefix string, parts []string) {
	line := prefix
	pad := strings.Repeat(" ", len(prefix))
	for i, p := range parts {
		sep := ""
		if i < len(parts)-1 {
			sep = ","
		}
		if len(line)+len(p)+1 > 100 && line != prefix && line != pad {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = pad
		}
		line += p + sep + " "
	}
	b.WriteString(strings.TrimRight(line, " ") + "\n")
}
