package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/pflag"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/inspect"
	"github.com/anefix/anefix/graph/mlirtext"
	pb "github.com/anefix/anefix/proto/anefixpb"
)

func init() {
	register(&command{
		Name:    "inspect",
		Usage:   "inspect IN [--json]",
		Summary: "show graphs, I/O and states, op and type census, fp32 islands",
		Help: `IN is an MLIR text file (generic or coreai printed form) or "-" for stdin.
For every graph it prints the inputs and outputs (marking states), the op
count by op name, the element types of all values, the fp32 islands (f32
values and the casts that create them, with FX op ids and source lines),
expand_dims/shrink_dims ops touching graph I/O, and the composites invoked.

Examples:
  anefix inspect testdata/mlir/pretty/hybrid_layer.mlir
  anefix inspect model.mlir --json | jq '.graphs[0].fp32Islands'`,
		Setup: func(fs *pflag.FlagSet) func(env *Env, args []string) error {
			asJSON := fs.Bool("json", false, "print the report as JSON (protojson of anefix.v1.InspectReport)")
			return func(env *Env, args []string) error {
				if len(args) != 1 {
					return usagef("inspect takes exactly one input (a .mlir file or -), got %d", len(args))
				}
				rep, err := inspectInput(env, args[0])
				if err != nil {
					return err
				}
				if *asJSON {
					b, err := reportJSON(rep)
					if err != nil {
						return err
					}
					_, err = env.Stdout.Write(b)
					return err
				}
				return writeInspectText(env.Stdout, rep)
			}
		},
	})
}

// inspectInput opens path (text for now; bytecode and bundles come with
// graph/bytecode) and builds the report.
func inspectInput(env *Env, path string) (*pb.InspectReport, error) {
	in, err := bundle.Open(path, bundle.OpenOptions{Stdin: env.Stdin, DeferHash: true})
	if err != nil {
		return nil, err
	}
	if in.File != nil {
		defer in.File.Close()
	}
	if in.Kind != bundle.KindText {
		return nil, fmt.Errorf("%s: %s input is not supported by inspect yet; convert it to text with `mlir-opt --allow-unregistered-dialect --mlir-print-op-generic --mlir-print-debuginfo`", path, in.Kind)
	}
	name := path
	if path == "-" {
		name = "<stdin>"
	}
	m, form, err := mlirtext.Parse(name, string(in.Text))
	if err != nil {
		return nil, err
	}
	if err := graph.Verify(m); err != nil {
		fmt.Fprintf(env.Stderr, "anefix inspect: warning: the module does not verify: %v\n", err)
	}
	rep := inspect.Report(m)
	rep.Input = &pb.Input{Path: path, Kind: pb.InputKind_MLIR_TEXT, MainPath: in.MainPath, TextForm: form.String()}
	return rep, nil
}

// reportJSON is protojson re-indented by encoding/json: protojson's own
// whitespace is deliberately unstable, and anefix output must be byte-stable.
func reportJSON(m *pb.InspectReport) ([]byte, error) {
	raw, err := protojson.MarshalOptions{UseProtoNames: false}.Marshal(m)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// writeInspectText prints a summary meant to fit one screen per graph.
func writeInspectText(w io.Writer, rep *pb.InspectReport) error {
	var b strings.Builder
	if in := rep.GetInput(); in != nil {
		fmt.Fprintf(&b, "%s (MLIR text, %s form): %d graph(s)\n", in.GetPath(), in.GetTextForm(), len(rep.GetGraphs()))
	}
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
			fmt.Fprintf(&b, "  fp32 islands: %d\n", len(isl))
			for i, s := range isl {
				fmt.Fprintf(&b, "    #%d: %d f32 values, %d ops", i+1, len(s.GetValues()), len(s.GetOps()))
				if len(s.GetFromInputs()) > 0 {
					fmt.Fprintf(&b, ", from inputs %s", strings.Join(s.GetFromInputs(), ", "))
				}
				if len(s.GetToOutputs()) > 0 {
					fmt.Fprintf(&b, ", to outputs %s", strings.Join(s.GetToOutputs(), ", "))
				}
				b.WriteString("\n")
				writeCasts(&b, "entered by", s.GetEntryCasts())
				writeCasts(&b, "left by", s.GetExitCasts())
			}
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
		if p.GetIsState() {
			b.WriteString("  STATE")
			if p.GetStatePartner() != "" {
				fmt.Fprintf(b, " (%s %q)", partner, p.GetStatePartner())
			}
		}
		b.WriteString("\n")
	}
}

// opLabel names an op by FX id and short source, falling back to its index.
func opLabel(r *pb.OpRef) string {
	id := r.GetOpId()
	if id == "" {
		id = fmt.Sprintf("op#%d", r.GetIndex())
	}
	if src := r.GetSource(); src != "" {
		return id + " (" + graph.ShortFile(src[:strings.LastIndexByte(src, ':')]) + src[strings.LastIndexByte(src, ':'):] + ")"
	}
	return id
}

// writeCasts lists casts grouped by source line, since one Python line
// usually creates several.
func writeCasts(b *strings.Builder, verb string, casts []*pb.OpRef) {
	if len(casts) == 0 {
		return
	}
	bySrc := map[string][]string{}
	var srcs []string
	for _, c := range casts {
		src := c.GetSource()
		if src != "" {
			i := strings.LastIndexByte(src, ':')
			src = graph.ShortFile(src[:i]) + src[i:]
		}
		if _, ok := bySrc[src]; !ok {
			srcs = append(srcs, src)
		}
		id := c.GetOpId()
		if id == "" {
			id = fmt.Sprintf("op#%d", c.GetIndex())
		}
		bySrc[src] = append(bySrc[src], id)
	}
	fmt.Fprintf(b, "       %s %d cast(s):\n", verb, len(casts))
	for _, s := range srcs {
		where := s
		if where == "" {
			where = "(no source)"
		}
		ids := bySrc[s]
		if len(ids) > 8 {
			ids = append(ids[:8:8], fmt.Sprintf("… %d more", len(bySrc[s])-8))
		}
		fmt.Fprintf(b, "         %s: %s\n", where, strings.Join(ids, ", "))
	}
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
