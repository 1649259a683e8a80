package main

// Compiled packages (.aimodelc) on the command line: inspect reports their
// placement, convert copies them, every other command refuses them.

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/anefix/anefix/graph/aimodelc"
	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/interp/compare"
	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
)

// isCompiledPackage reports whether a command-line input is an .aimodelc,
// or an LLM bundle whose assets.main is one.
func isCompiledPackage(path string) bool {
	_, ok := compiledPackagePath(path)
	return ok
}

// compiledPackagePath is the compiled package a command-line input is or
// holds.
func compiledPackagePath(path string) (string, bool) {
	if path == "-" {
		return "", false
	}
	if aimodelc.IsPackage(path) {
		return path, true
	}
	return aimodelc.InBundle(path)
}

// compiledRefusal is the error of a command that needs an editable graph.
func compiledRefusal(path string) error {
	return fmt.Errorf("%s is a compiled package (.aimodelc, written by coreai-build): it holds the compiler's output, not the graph anefix rewrites, checks or runs; "+
		"run this command on the .aimodel it was compiled from, 'anefix inspect %s' to see where it runs, or 'anefix convert %s -o COPY.aimodelc' to copy it", path, path, path)
}

// inspectCompiled reads a compiled package for inspect.
func inspectCompiled(path, source string, ignoreHash bool, maxMemory int64) (*pb.InspectReport, error) {
	pkg, _ := compiledPackagePath(path)
	p, err := aimodelc.Open(pkg, aimodelc.Options{IgnoreHash: ignoreHash, Source: source, MaxMemory: maxMemory})
	if err != nil {
		return nil, memoryMessage(err)
	}
	// Input.kind stays unspecified: the schema's kinds are editable inputs;
	// compiled says what this one is.
	in := &pb.Input{Path: path, MainPath: filepath.Join(pkg, p.MainFile), HashChecked: p.Hash.Present, HashMatches: p.Hash.Matches}
	if p.Main != nil {
		in.BytecodeVersion, in.BytecodeProducer = int32(p.Main.Version), p.Main.Producer
	}
	return &pb.InspectReport{SchemaVersion: pbprint.SchemaVersion, Input: in, Compiled: compiledReport(p)}, nil
}

// compiledReport converts the reader's result to the report schema.
func compiledReport(p *aimodelc.Package) *pb.CompiledPackage {
	c := &pb.CompiledPackage{
		Arch: p.Arch, MainFile: p.MainFile, HashPresent: p.Hash.Present, HashForm: p.Hash.Form, HashMatches: p.Hash.Matches,
		UnattributedRegionDirs: p.Unattributed,
		Problems:               p.Problems, Files: int32(p.Files), Bytes: p.Bytes,
	}
	switch {
	case p.Main == nil:
	case p.Main.Text:
		c.MainForm = "text"
	default:
		c.MainForm = "bytecode"
		c.MainBytecodeVersion, c.MainBytecodeProducer = int32(p.Main.Version), p.Main.Producer
	}
	if m := p.Metadata; m != nil {
		c.Producer, c.SourceHash, c.AssetVersion, c.CreationDate, c.MetadataKeys = m.Producer, m.SourceHash, m.AssetVersion, m.CreationDate, m.Keys
	}
	if s := p.Source; s != nil {
		c.SourceChecked, c.SourcePath, c.SourceDigest, c.SourceMatches = true, s.Path, s.Digest, s.Matches
	}
	if s := p.Stats; s != nil {
		for _, o := range s.Operations {
			c.OperationDistribution = append(c.OperationDistribution, &pb.OpCount{OpName: o.Name, Count: count32(o.Count)})
		}
		for _, o := range s.StorageTypes {
			c.StorageTypes = append(c.StorageTypes, &pb.TypeCount{Type: o.Name, Count: count32(o.Count)})
		}
		c.ComputeTypes = s.ComputeTypes
	}
	for _, d := range p.Delegates {
		pd := &pb.CompiledPackage_Delegate{Dir: d.Dir, PackageVersions: d.Versions, Original: d.Original}
		for arch, h := range d.ANERegionsHash {
			pd.AneRegionsHash = append(pd.AneRegionsHash, arch+": "+h)
		}
		sort.Strings(pd.AneRegionsHash)
		c.Delegates = append(c.Delegates, pd)
	}
	for _, rd := range p.RegionDirs {
		c.RegionDirs = append(c.RegionDirs, rd.Rel)
	}
	for _, f := range p.Functions {
		pf := &pb.CompiledPackage_Function{
			Name: f.Name, Symbol: f.Symbol, Delegate: f.Delegate, GraphFile: f.GraphFile, Attributes: f.Attributes,
			RequestedDevice: f.Requested, RequestedDeviceEvidence: f.RequestedEvidence, UseAneLlir: f.UseANELLIR,
			AneEvidence: f.ANE.Evidence, GpuEvidence: f.GPU.Evidence, FullyOnAneEvidence: f.FullyOnANE.Evidence,
			Disagreements: f.Disagreements, RegionDirs: f.RegionDirs, RegionSymbols: f.RegionSymbols,
			ValuedAttributes: f.Valued, StatesEvidence: f.StatesEvidence,
		}
		for _, s := range f.States {
			pf.StateInputs = append(pf.StateInputs, &pb.CompiledPackage_StateInput{Index: int32Ptr(s.Index), Type: s.Type})
		}
		for _, r := range f.TokenResults {
			pf.TokenResults = append(pf.TokenResults, int32(r))
		}
		if f.ANE.Known {
			pf.AneRegions = int32Ptr(f.ANE.N)
		}
		if f.GPU.Known {
			pf.GpuRegions = int32Ptr(f.GPU.N)
		}
		if f.FullyOnANE.Known {
			v := f.FullyOnANE.Value
			pf.FullyOnAne = &v
		}
		for typ, n := range f.OtherRegions {
			pf.OtherRegions = append(pf.OtherRegions, fmt.Sprintf("%s %d", typ, n))
		}
		sort.Strings(pf.OtherRegions)
		c.Functions = append(c.Functions, pf)
	}
	if t := p.ANERegions(); t.Known {
		c.AneRegions = int32Ptr(t.N)
	}
	return c
}

func int32Ptr(n int) *int32 { v := int32(n); return &v }

// itemLine keeps an item of the report (a problem, an evidence line) on
// its line: the readers quote the names they put in one (graph/bundle's
// DisplayName), and a line break that still came from the package's
// content is shown escaped rather than starting a line of its own.
func itemLine(s string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(s)
}

func itemLines(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = itemLine(s)
	}
	return out
}

// quoteNames quotes names from the package (entries, functions,
// attributes) as paths are (escape.go).
func quoteNames(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quotePath(s)
	}
	return out
}

// writeCompiledText prints a compiled package's report.
func writeCompiledText(w io.Writer, in *pb.Input, c *pb.CompiledPackage) error {
	in, c = pbprint.ForText(in), pbprint.ForText(c) // names from the package stay on their line
	var b strings.Builder
	fmt.Fprintf(&b, "%s (compiled package, architecture %s): %d entry function(s)\n", in.GetPath(), c.GetArch(), len(c.GetFunctions()))
	if dir := filepath.Dir(in.GetMainPath()); dir != filepath.Clean(in.GetPath()) {
		fmt.Fprintf(&b, "  the LLM bundle's assets.main: %s (paths below are relative to it)\n", dir)
	}
	mainDesc := "not readable (see below)"
	switch c.GetMainForm() {
	case "bytecode":
		mainDesc = fmt.Sprintf("MLIR bytecode v%d from %s", c.GetMainBytecodeVersion(), c.GetMainBytecodeProducer())
	case "text":
		mainDesc = "MLIR text (a stand-in: real packages hold bytecode)"
	}
	hash := "no main.hash"
	if c.GetHashPresent() {
		hash = fmt.Sprintf("main.hash (%s) matches", c.GetHashForm())
		if !c.GetHashMatches() {
			hash = fmt.Sprintf("main.hash (%s) DOES NOT match", c.GetHashForm())
		}
	}
	fmt.Fprintf(&b, "  %s: %s; %s\n", c.GetMainFile(), mainDesc, hash)
	if len(c.GetMetadataKeys()) > 0 {
		var kv []string
		for _, f := range []struct{ k, v string }{{"producer", c.GetProducer()}, {"assetVersion", c.GetAssetVersion()}, {"creationDate", c.GetCreationDate()}} {
			if f.v != "" {
				kv = append(kv, fmt.Sprintf("%s %q", f.k, f.v))
			}
		}
		fmt.Fprintf(&b, "  metadata.json: %s (keys: %s)\n", strings.Join(kv, ", "), strings.Join(c.GetMetadataKeys(), ", "))
	}
	if c.GetSourceHash() != "" {
		switch {
		case !c.GetSourceChecked():
			fmt.Fprintf(&b, "  sourceHash %s (not compared: --source X.aimodel compares it)\n", c.GetSourceHash())
		case c.GetSourceMatches():
			fmt.Fprintf(&b, "  sourceHash %s equals the SHA-256 of %s's main.mlirb\n", c.GetSourceHash(), c.GetSourcePath())
		default:
			fmt.Fprintf(&b, "  sourceHash %s differs from the SHA-256 of %s's main.mlirb (%s); what else coreai-build might hash is not known\n",
				c.GetSourceHash(), c.GetSourcePath(), c.GetSourceDigest())
		}
	}
	if ops := c.GetOperationDistribution(); len(ops) > 0 || len(c.GetStorageTypes()) > 0 {
		var total int64
		for _, o := range ops {
			total += int64(o.GetCount())
		}
		var st []string
		for _, s := range c.GetStorageTypes() {
			st = append(st, fmt.Sprintf("%s %d", s.GetType(), s.GetCount()))
		}
		fmt.Fprintf(&b, "  stats.json: %d ops of %d kinds; storage %s; compute %s\n", total, len(ops), strings.Join(st, ", "), strings.Join(c.GetComputeTypes(), ", "))
	}
	for _, d := range c.GetDelegates() {
		fmt.Fprintf(&b, "  delegate %s (package version %s)\n", quotePath(d.GetDir()), strings.Join(quoteNames(d.GetPackageVersions()), ", "))
		for _, h := range d.GetAneRegionsHash() {
			fmt.Fprintf(&b, "    ANERegionsHash %s\n", quotePath(h))
		}
	}
	for _, f := range c.GetFunctions() {
		fmt.Fprintf(&b, "\nentry function %s (@%s in %s)\n", quotePath(f.GetName()), quotePath(f.GetSymbol()), quotePath(f.GetGraphFile()))
		line := func(label, value string, ev []string) {
			fmt.Fprintf(&b, "  %-14s %s\n", label, itemLine(value))
			for _, e := range ev {
				fmt.Fprintf(&b, "  %-14s   <- %s\n", "", itemLine(e))
			}
		}
		req := f.GetRequestedDevice()
		if req == "" {
			req = "unknown"
		}
		line("requested:", req, f.GetRequestedDeviceEvidence())
		line("ANE regions:", optCount(f.AneRegions), f.GetAneEvidence())
		line("GPU regions:", optCount(f.GpuRegions), f.GetGpuEvidence())
		if o := f.GetOtherRegions(); len(o) > 0 {
			line("other regions:", strings.Join(o, ", "), nil)
		}
		fully := "unknown"
		if f.FullyOnAne != nil {
			fully = map[bool]string{true: "yes", false: "no"}[f.GetFullyOnAne()]
		}
		line("fully on ANE:", fully, f.GetFullyOnAneEvidence())
		if s := f.GetStateInputs(); len(s) > 0 {
			var in []string
			for _, x := range s {
				if x.GetType() != "" {
					in = append(in, fmt.Sprintf("%d (%s)", x.GetIndex(), x.GetType()))
				} else {
					in = append(in, fmt.Sprint(x.GetIndex()))
				}
			}
			line("states:", plural(len(in), "input ", "inputs ")+strings.Join(in, ", "), f.GetStatesEvidence())
		}
		if r := f.GetTokenResults(); len(r) > 0 {
			var rs []string
			for _, x := range r {
				rs = append(rs, fmt.Sprint(x))
			}
			line("token results:", strings.Join(rs, ", ")+" (mps.tokenResIndices)", nil)
		}
		if a := append(quoteNames(f.GetAttributes()), f.GetValuedAttributes()...); len(a) > 0 {
			line("attributes:", strings.Join(a, ", "), nil)
		}
		if f.GetUseAneLlir() != "" {
			line("useANELLIR:", f.GetUseAneLlir(), nil)
		}
		for _, d := range f.GetDisagreements() {
			fmt.Fprintf(&b, "  DISAGREE: %s\n", itemLine(d))
		}
		fmt.Fprintf(&b, "  %s\n", placementVerdict(f))
	}
	if u := c.GetUnattributedRegionDirs(); len(u) > 0 {
		fmt.Fprintf(&b, "\nANE region directories of no entry function: %s\n", strings.Join(quoteNames(u), ", "))
	}
	if pr := c.GetProblems(); len(pr) > 0 {
		fmt.Fprintf(&b, "\nunknowns and problems:\n")
		for _, s := range itemLines(pr) {
			fmt.Fprintf(&b, "  - %s\n", s)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func optCount(n *int32) string {
	if n == nil {
		return "unknown"
	}
	return fmt.Sprint(*n)
}

// placementVerdict puts the placement next to the request, so that a
// package compiled for the GPU is never read as a Neural Engine fallback.
func placementVerdict(f *pb.CompiledPackage_Function) string {
	req := f.GetRequestedDevice()
	askedANE := strings.Contains(req, "ANE")
	switch {
	case f.AneRegions == nil:
		return "placement unknown: the ANE region count could not be established (see above)"
	case f.GetAneRegions() == 0 && req != "" && !askedANE:
		return fmt.Sprintf("compiled for %s as requested: no Neural Engine region, and none was asked for (not a fallback)", req)
	case f.GetAneRegions() == 0 && askedANE:
		return "the Neural Engine was requested but got no region: the function runs without it (the silent fallback)"
	case f.GetAneRegions() == 0:
		return "no Neural Engine region (the requested device is unknown)"
	case f.FullyOnAne != nil && f.GetFullyOnAne():
		return "fully on the Neural Engine"
	}
	return "partly on the Neural Engine"
}

// convertCompiled copies a compiled package whole after reading it. What
// refuses the copy is what aimodelc.Open refuses: not a package, a special
// file or a link leaving the tree, a main.hash that does not match
// main-<arch>.mlirb (unless --ignore-hash), or --max-memory. Everything else
// Open could not read (the manifest, a graph, metadata) is copied as it is
// and counted in a warning; inspect lists it.
func convertCompiled(env *Env, in, out, emit string, version int, force, ignoreHash bool, maxMemory int64) error {
	if emit != "" || version != 0 {
		return usagef("a compiled package (.aimodelc) is copied as it is; --emit and --bytecode-version do not apply (convert its single files instead)")
	}
	if out == "-" {
		return usagef("a compiled package is a directory; -o - cannot hold it")
	}
	if !strings.HasSuffix(strings.TrimRight(out, "/"), ".aimodelc") {
		return usagef("output %s: a compiled package is copied to another .aimodelc directory; name the output *.aimodelc", out)
	}
	if !aimodelc.IsPackage(in) {
		return fmt.Errorf("%s is an LLM bundle holding a compiled package; convert copies a compiled package itself: give its .aimodelc directory", in)
	}
	p, err := aimodelc.Open(in, aimodelc.Options{IgnoreHash: ignoreHash, MaxMemory: maxMemory})
	if err != nil {
		return memoryMessage(err)
	}
	res, err := bundle.WriteTree(out, p.Root, in, bundle.TreeOptions{Force: force, Marker: p.MainFile, Progress: progressFile(env)})
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "wrote %s (compiled package, %d files, %d bytes, copied unchanged)\n", out, res.Files, res.Bytes)
	if n := len(p.Problems); n > 0 {
		fmt.Fprintf(env.Stderr, "warning: the package has %d %s anefix copied as %s (anefix inspect %s lists %s)\n",
			n, plural(n, "problem", "problems"), plural(n, "it is", "they are"), in, plural(n, "it", "them"))
	}
	return nil
}

// memoryMessage words the package reader's memory refusal as verify's is
// worded (graph/interp/compare), with its sizes in binary units.
func memoryMessage(err error) error {
	var me *aimodelc.MemoryError
	if !errors.As(err, &me) {
		return err
	}
	need := "more than the limit"
	if me.Need > 0 {
		need = "an estimated " + compare.FormatBytes(me.Need)
	}
	return fmt.Errorf("reading %s needs %s of heap by the package reader's estimates (graph/aimodelc/memory.go), over the limit of %s (--max-memory); raise --max-memory if this machine has the memory",
		me.What, need, compare.FormatBytes(me.Limit))
}

// plural picks the word form for a count.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
