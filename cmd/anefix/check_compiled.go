package main

// check --compiled PKG: a compiled package's measured placement beside the
// prediction, per function (its ANE and GPU regions) and per op where the
// package's regions name the op (graph/aimodelc FXRegionTypes).

import (
	"fmt"
	"slices"
	"strings"

	"github.com/anefix/anefix/graph/aimodelc"
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

// measured is what a compiled package measured, by the input's graphs.
type measured struct {
	path string
	fns  map[string][]*aimodelc.Function
}

func newMeasured(path string, p *aimodelc.Package, rep *ane.Report) *measured {
	var names []string
	for i := range rep.Graphs {
		if rep.Graphs[i].Entry {
			names = append(names, rep.Graphs[i].Name)
		}
	}
	return &measured{path: path, fns: compiler.FunctionsByGraph(p, names)}
}

// fill sets the per-function measurements of msg's entry graphs: a count
// only when every function named after the graph settles it.
func (m *measured) fill(msg *pb.CheckReport) {
	msg.Compiled = m.path
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
