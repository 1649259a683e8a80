package main

// check --compiled PKG: a compiled package's measured placement beside the
// prediction, per function (its ANE and GPU regions) and per op where the
// package's regions name the op (graph/aimodelc FXRegionTypes).

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anefix/anefix/graph/aimodelc"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/passes/ane"
	"github.com/anefix/anefix/passes/ane/compiler"
	pb "github.com/anefix/anefix/proto/anefixpb"
)

// openCompiled reads --compiled's package; it must be built for the
// report's architecture (one architecture per report).
func openCompiled(path, arch string, ignoreHash bool) (*aimodelc.Package, error) {
	pkgPath, ok := compiledPackagePath(path)
	if !ok {
		return nil, usagef("--compiled %s is not a compiled package (.aimodelc, or an LLM bundle whose assets.main is one)", path)
	}
	p, err := aimodelc.Open(pkgPath, aimodelc.Options{IgnoreHash: ignoreHash})
	if err != nil {
		return nil, memoryMessage(err)
	}
	if a, _ := ane.ParseArchitecture(arch); p.Arch != a.Name {
		return nil, usagef("--compiled %s was compiled for %s and the report is for %s: give --architecture %s", path, p.Arch, a.Name, p.Arch)
	}
	return p, nil
}

// measured is what a compiled package measured, by the input's graphs,
// and whether it was compiled from the input.
type measured struct {
	path   string
	fns    map[string][]*aimodelc.Function
	source *pb.CompiledSource
}

func newMeasured(path string, p *aimodelc.Package, rep *ane.Report, ld *modelio.Loaded) (*measured, error) {
	var names []string
	for i := range rep.Graphs {
		if rep.Graphs[i].Entry {
			names = append(names, rep.Graphs[i].Name)
		}
	}
	src, err := compiledSource(p, ld)
	if err != nil {
		return nil, err
	}
	return &measured{path: path, fns: compiler.FunctionsByGraph(p, names), source: src}, nil
}

// compiledSource compares the source p records with the input ld, as
// inspect --source does (aimodelc CompareSource): the input's main file,
// when it is bytecode read from a file.
func compiledSource(p *aimodelc.Package, ld *modelio.Loaded) (*pb.CompiledSource, error) {
	cs := &pb.CompiledSource{}
	if p.Metadata != nil {
		cs.SourceHash = p.Metadata.SourceHash
	}
	switch {
	case cs.SourceHash == "":
		cs.Note = "the package records no sourceHash (metadata.json): nothing says which model it was compiled from"
		return cs, nil
	case ld.Form != modelio.FormBytecode:
		cs.Note = "not compared: the input is MLIR text, and sourceHash is the SHA-256 of an .aimodel's main.mlirb (bytecode); check that .aimodel instead"
		return cs, nil
	case ld.Input.MainPath == "-":
		cs.Note = "not compared: the input was read from stdin; give its path"
		return cs, nil
	}
	if err := p.CompareSource(ld.Input.MainPath); err != nil {
		return nil, fmt.Errorf("--compiled: comparing the package's sourceHash with the input: %w", err)
	}
	cs.Compared, cs.InputDigest, cs.Matches = true, p.Source.Digest, p.Source.Matches
	if !cs.Matches {
		cs.Note = "the package was not compiled from this input but most likely from another model, or another version of this one, so its measured regions may not be this input's: compile this input, or give its own package (that sourceHash is this digest is inferred, not confirmed)"
	}
	return cs, nil
}

// fill sets the per-function measurements of msg's entry graphs: a count
// only when every function named after the graph settles it.
func (m *measured) fill(msg *pb.CheckReport) {
	msg.Compiled, msg.CompiledSource = m.path, m.source
	for _, g := range msg.Graphs {
		fns := m.fns[g.Name]
		if !g.Entry || len(fns) == 0 {
			continue
		}
		aneN, gpuN, aneOK, gpuOK := 0, 0, true, true
		for _, f := range fns {
			aneN, aneOK = aneN+f.ANE.N, aneOK && f.ANE.Known
			gpuN, gpuOK = gpuN+f.GPU.N, gpuOK && f.GPU.Known
		}
		if aneOK {
			g.MeasuredAneRegions = int32Ptr(aneN)
		}
		if gpuOK {
			g.MeasuredGpuRegions = int32Ptr(gpuN)
		}
	}
}

// device is the measured device of p: the region types the package's
// regions carrying p's FX name sit in, lower case; "" when none says.
func (m *measured) device(p ane.OpPlacement) string {
	if m == nil || p.FXName == "" || p.OpName == "coreai.constant" {
		return ""
	}
	var types []string
	for _, f := range m.fns[p.Graph] {
		for _, t := range f.FXRegionTypes[p.FXName] {
			if t = strings.ToLower(t); !slices.Contains(types, t) {
				types = append(types, t)
			}
		}
	}
	slices.Sort(types)
	return strings.Join(types, ",")
}

// compiledSourceText is the text report's line on whether the compiled
// package was compiled from the input: a warning when it was not.
func compiledSourceText(r *pb.CheckReport) string {
	cs := r.GetCompiledSource()
	switch {
	case cs == nil:
		return ""
	case cs.Matches:
		return fmt.Sprintf("  (compiled from this input: the package's sourceHash is the SHA-256 of %s's main file)\n", quotePath(r.GetInput().GetPath()))
	case cs.Compared:
		return fmt.Sprintf("  WARNING: the package's sourceHash %s is not the SHA-256 of %s's main file (%s):\n    %s\n",
			cs.SourceHash, quotePath(r.GetInput().GetPath()), cs.InputDigest, cs.Note)
	}
	return fmt.Sprintf("  (%s)\n", cs.Note)
}

// measuredText is a function's measured regions for the text report.
func measuredText(g *pb.GraphCheck) string {
	count := func(n *int32) string {
		if n == nil {
			return "unknown"
		}
		return fmt.Sprint(*n)
	}
	return fmt.Sprintf("measured: %s ANE region(s), %s GPU region(s)", count(g.MeasuredAneRegions), count(g.MeasuredGpuRegions))
}
