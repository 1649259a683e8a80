package main

// check --ops: every op's predicted placement (passes/ane/placement.go
// computes it; this file filters and prints it).

import (
	"fmt"
	"github.com/anefix/anefix/graph/nearest"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/ane"
	pb "github.com/anefix/anefix/proto/anefixpb"
)

// opsFlags are check's per-op listing and its filters; any filter implies
// --ops.
type opsFlags struct {
	ops          bool
	only, source string
	op           string
	// compiled is a compiled package of the input (check_compiled.go).
	compiled string
}

// opsOnly are --only's values: a device, or "blocked" (the op itself
// breaks a blocker rule).
var opsOnly = []string{"blocked", ane.DeviceANE, ane.DeviceGPU, ane.DeviceNone, ane.DeviceUnknown}

func (f *opsFlags) declare(fs *pflag.FlagSet) {
	fs.BoolVar(&f.ops, "ops", false, "list every op's predicted placement (device, region, segment, reason, element types, source); JSON: the ops list")
	fs.StringVar(&f.only, "only", "", "with --ops: only the ops that are "+strings.Join(opsOnly, ", ")+" (comma-separated: any of them)")
	flagListValues(fs, "only", opsOnly...)
	// Not --source: inspect's --source is the .aimodel a package was
	// compiled from, and a flag name means one thing (flags_shared_test.go).
	fs.StringVar(&f.source, "at", "", "with --ops: only the ops whose source location ends in FILE[:LINE] (a path suffix at a '/')")
	fs.StringVar(&f.op, "op", "", "with --ops: only the op with this op id (and the ops sharing its FX name, ID#2, …); an id not in the report fails naming the nearest")
	fs.StringVar(&f.compiled, "compiled", "", "a compiled package (.aimodelc) of IN: its measured ANE/GPU regions per function beside the prediction; with --ops each op's measured device where the package's regions name its FX name")
}

// wanted reports whether any per-op output was asked for.
func (f *opsFlags) wanted() bool { return f.ops || f.only != "" || f.source != "" || f.op != "" }

// validate checks the filters' syntax before the input is read.
func (f *opsFlags) validate() error {
	if f.only == "" {
		return nil
	}
	for _, v := range strings.Split(f.only, ",") {
		if !slices.Contains(opsOnly, v) {
			return usagef("--only %q%s: want one or more of %s, comma-separated", v, nearest.Hint(v, opsOnly, ""), strings.Join(opsOnly, ", "))
		}
	}
	return nil
}

// pbOps converts the placements, with m's measured devices (m may be nil).
func pbOps(ps []ane.OpPlacement, m *measured) []*pb.OpPlacement {
	out := make([]*pb.OpPlacement, len(ps))
	for i, p := range ps {
		in := make([]int32, len(p.Inputs))
		for j, x := range p.Inputs {
			in[j] = count32(x)
		}
		out[i] = &pb.OpPlacement{OpId: p.OpID, Device: p.Device, Graph: p.Graph, Index: count32(p.Index),
			OpName: p.OpName, Source: p.Source, Region: count32(p.Region), Segment: count32(p.Segment),
			Reason: p.Reason, Blocked: p.Blocked, ElementTypes: p.ElementTypes, Inputs: in, Layer: p.Layer,
			Frames: p.Frames}
		if d := m.device(p); d != "" {
			out[i].MeasuredDevice = &d
		}
	}
	return out
}

// filter keeps the placements the flags select; an --op id that selects
// none is an error naming the nearest ids.
func (f *opsFlags) filter(ps []ane.OpPlacement) ([]ane.OpPlacement, error) {
	var only []string
	if f.only != "" {
		only = strings.Split(f.only, ",")
	}
	out := slices.DeleteFunc(slices.Clone(ps), func(p ane.OpPlacement) bool {
		switch {
		case only != nil && !slices.ContainsFunc(only, func(o string) bool { return o == p.Device || o == "blocked" && p.Blocked }):
			return true
		case f.source != "" && !sourceMatches(p.Source, f.source):
			return true
		case f.op != "" && p.OpID != f.op && !strings.HasPrefix(p.OpID, f.op+"#"):
			return true
		}
		return false
	})
	if f.op != "" && !slices.ContainsFunc(ps, func(p ane.OpPlacement) bool { return p.OpID == f.op }) {
		return nil, fmt.Errorf("--op %q: no op has this id; the nearest: %s", f.op, strings.Join(nearestIDs(ps, f.op, 5), ", "))
	}
	return out, nil
}

// sourceMatches reports whether source ("file:line") ends in want
// ("FILE" or "FILE:LINE"), FILE matched as a whole path suffix.
func sourceMatches(source, want string) bool {
	file, line := splitSource(source)
	wfile, wline := splitSource(want)
	if wline != "" && wline != line {
		return false
	}
	return file == wfile || strings.HasSuffix(file, "/"+wfile)
}

// splitSource splits "file:line" where line is a number.
func splitSource(s string) (file, line string) {
	if i := strings.LastIndexByte(s, ':'); i > 0 {
		if _, err := strconv.Atoi(s[i+1:]); err == nil {
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// nearestIDs are the n op ids closest to id by edit distance, ties in
// report order.
func nearestIDs(ps []ane.OpPlacement, id string, n int) []string {
	type cand struct {
		id   string
		dist int
	}
	var cs []cand
	for _, p := range ps {
		cs = append(cs, cand{p.OpID, editDistance(p.OpID, id)})
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.dist - b.dist })
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, strconv.Quote(c.id))
	}
	return out
}

// editDistance is the Levenshtein distance of a and b, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// opsText asks writeCheckText for the per-op listing in place of the
// groups; total is the number of ops before the filters.
type opsText struct{ total int }

// writeOpsText prints the listing, one line per op, grouped per graph:
// op id, device (with the ANE region), legal segment, op name, element
// types, source and reason.
func writeOpsText(b *textChunks, r *pb.CheckReport, total int) {
	fmt.Fprintf(b, "\nOps (%d of %d; device under %s; seg: legal segment):\n", len(r.Ops), total, r.Architecture)
	last := ""
	for _, p := range r.Ops {
		if p.Graph != last || last == "" {
			last = p.Graph
			fmt.Fprintf(b, "  @%s\n", p.Graph)
		}
		dev := p.Device
		if p.Region > 0 {
			dev += " " + strconv.Itoa(int(p.Region))
		}
		seg := "-"
		if p.Segment > 0 {
			seg = strconv.Itoa(int(p.Segment))
		}
		src := "-"
		if p.Source != "" {
			src = graph.ShortFile(sourceFile(p.Source)) + sourceLine(p.Source)
		}
		types := strings.Join(p.ElementTypes, ",")
		if types == "" {
			types = "-"
		}
		measured := ""
		if p.MeasuredDevice != nil {
			measured = "  [measured: " + p.GetMeasuredDevice() + "]"
		}
		fmt.Fprintf(b, "    %-24s %-8s seg %-3s %-40s %-10s %s  %s%s\n", p.OpId, dev, seg, p.OpName, types, src, p.Reason, measured)
		b.lineEnd()
	}
}
