package aimodelc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/anefix/anefix/graph/plist"
)

// mainFileRe is the main file of a compiled package: main-<arch>.mlirb.
var mainFileRe = regexp.MustCompile(`^main-([A-Za-z0-9_]+)\.mlirb$`)

// regionDirRe is an ANE region directory, <fn>_ANE_region_<i>_<j>.bc (from
// public build scripts; see the package comment). (?s): a hostile name
// holding a newline is still one, and is reported quoted.
var regionDirRe = regexp.MustCompile(`(?s)^(.+)_ANE_region_([0-9]+)_([0-9]+)\.bc$`)

// Options tune Open.
type Options struct {
	// IgnoreHash turns a main.hash mismatch into a problem instead of an
	// error.
	IgnoreHash bool
	// Source, when set, is the .aimodel directory (or a bytecode file)
	// metadata.json's sourceHash is compared with.
	Source string
	// MaxMemory, when > 0, refuses (a *MemoryError) a package whose reading
	// would need more heap than this at any step, by the estimates in
	// memory.go, before the step allocates.
	MaxMemory int64
}

// Package is a compiled package as read.
type Package struct {
	Path string // as given
	Root string // resolved absolute path
	Arch string // from main-<arch>.mlirb
	// MainFile is main-<arch>.mlirb, relative to Root.
	MainFile string
	// Main is the main file's bytecode version and producer (nil when it
	// could not be read; Problems says why).
	Main *graphFile
	Hash hashCheck
	// Metadata and Stats are nil when the file is absent or unreadable.
	Metadata *metadata
	Stats    *stats
	// Delegates are the .mpsgraphpackage directories, relative to Root.
	Delegates []delegate
	Functions []*Function
	// RegionDirs are every ANE region directory found, relative to Root,
	// sorted; Unattributed those no entry function claims.
	RegionDirs   []regionDir
	Unattributed []string
	// Problems are unknowns and inconsistencies, each naming its file.
	Problems []string
	Files    int
	Bytes    int64
	Source   *sourceCheck

	maxMemory int64
	sizes     map[string]int64 // regular files by relative path, from walk
}

// delegate is one .mpsgraphpackage.
type delegate struct {
	Dir            string // relative to Root
	Versions       []string
	ANERegionsHash map[string]string
	Original       string
}

// regionDir is one <fn>_ANE_region_<i>_<j>.bc directory.
type regionDir struct {
	Rel    string // relative to Root
	Prefix string // <fn>
	I, J   string
	// Binaries are its *.mlir.bc files and Weights its *.bc.weights files,
	// relative to the directory.
	Binaries, Weights []string
}

// Complete reports whether the directory holds a region binary.
func (r *regionDir) Complete() bool { return len(r.Binaries) > 0 }

// Count is a number with the evidence it came from. Known is false when
// no source could be read or two sources disagree; N is then meaningless.
type Count struct {
	N        int
	Known    bool
	Evidence []string
}

// flag is a yes/no with evidence; Known as in Count.
type flag struct {
	Value    bool
	Known    bool
	Evidence []string
}

// Function is one entry function of a delegate.
type Function struct {
	Name   string // entryFunctionName
	Symbol string // its symbol in the specialized graph
	// Delegate and graphFile are relative to Root.
	Delegate, GraphFile string
	// Attributes are the manifest's string attributes, Valued its
	// dictionary ones ("mps.stateInputIndices = [0, 1]").
	Attributes, Valued []string
	// States are the inputs the manifest names as states
	// (mps.stateInputIndices), nil when it names none; StatesEvidence says
	// where that and their types came from. TokenResults are the results
	// mps.tokenResIndices names.
	States         []stateInput
	StatesEvidence []string
	TokenResults   []int
	// Requested is the device the compilation asked for ("GPU", "ANE", …,
	// "" when unknown), with the evidence of each source.
	Requested         string
	RequestedEvidence []string
	UseANELLIR        string // "true", "false" or "" when absent
	ANE, GPU          Count
	// OtherRegions counts regions of any other type (CPU, …) by type.
	OtherRegions map[string]int
	FullyOnANE   flag
	// Disagreements are the places two sources say different things.
	Disagreements []string
	// RegionDirs and RegionSymbols list what the counts were made from.
	RegionDirs    []string
	RegionSymbols []string
	// FXRegionTypes maps each FX node name the ops of the function's
	// regions carry in the specialized graph (coreai-torch's debuginfo,
	// kept by the compiler) to the region types ("GPU", "ANE", …) it sits
	// in: the measured placement of the source ops, by name. Nil when the
	// graph was not read or carries none.
	FXRegionTypes map[string][]string
}

// stateInput is an input of an entry function the manifest names a state.
type stateInput struct {
	Index int
	// Type is the input's type in the specialized graph; "" when the graph
	// could not be read or has no such input.
	Type string
}

// sourceCheck compares metadata.json's sourceHash with a given .aimodel.
type sourceCheck struct {
	Path string
	// Hashed is the file whose SHA-256 was compared (the .aimodel's
	// main.mlirb) and Digest that digest, upper-case hex.
	Hashed, Digest string
	Matches        bool
}

// IsPackage reports whether dir looks like a compiled package: a directory
// without main.mlirb (which an .aimodel has) that holds a main-<arch>.mlirb
// file or is named *.aimodelc (so that a damaged one gets Open's error
// naming what is missing, not the .aimodel reader's).
func IsPackage(dir string) bool {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	if _, err := os.Lstat(filepath.Join(dir, "main.mlirb")); err == nil {
		return false
	}
	if strings.HasSuffix(strings.TrimRight(filepath.ToSlash(dir), "/"), ".aimodelc") {
		return true
	}
	_, err = findMain(dir, dir)
	return err == nil
}

// findMain finds main-<arch>.mlirb in root; display names root in errors.
// InBundle returns the compiled package an LLM bundle names: a directory
// whose metadata.json has assets.main naming a compiled package inside it
// (public build scripts ship an .aimodelc with tokenizer/ that way). ok is
// false for anything else, including assets.main leaving the directory.
func InBundle(dir string) (string, bool) {
	b, err := readSmall(dir, metadataFile, maxSmallFile)
	if err != nil {
		return "", false
	}
	var m struct {
		Assets struct {
			Main string `json:"main"`
		} `json:"assets"`
	}
	if json.Unmarshal(b, &m) != nil || m.Assets.Main == "" || !filepath.IsLocal(filepath.FromSlash(m.Assets.Main)) {
		return "", false
	}
	p := filepath.Join(dir, filepath.FromSlash(m.Assets.Main))
	if !IsPackage(p) {
		return "", false
	}
	return p, true
}

func findMain(root, display string) (string, error) {
	des, err := os.ReadDir(root)
	if err != nil {
		return "", relErr(display, err)
	}
	var found []string
	for _, de := range des {
		if mainFileRe.MatchString(de.Name()) && de.Type().IsRegular() {
			found = append(found, de.Name())
		}
	}
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%s has no main-<arch>.mlirb, so it is not a readable compiled package (.aimodelc)", display)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%s has %d main-<arch>.mlirb files (%s); a compiled package has one", display, len(found), strings.Join(found, ", "))
}

// Open reads the compiled package at path. It returns an error when path
// is not a compiled package, holds a special file, its main.hash or main
// file cannot be read (a symbolic link, no permission) or main.hash does
// not match, or a step passes Options.MaxMemory (a *MemoryError);
// everything else it cannot read becomes a Problem and makes only what
// depends on it unknown. Members are opened with bundle.OpenMember: no
// symbolic link is followed, only regular files are read.
func Open(path string, opts Options) (*Package, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("input %s: %w", path, err)
	}
	mainName, err := findMain(root, path)
	if err != nil {
		return nil, fmt.Errorf("input %w", err)
	}
	p := &Package{Path: path, Root: root, MainFile: mainName, Arch: mainFileRe.FindStringSubmatch(mainName)[1], maxMemory: opts.MaxMemory}
	if err := p.walk(); err != nil {
		return nil, fmt.Errorf("input %s: %w", path, err)
	}
	if p.Hash, err = checkHash(root, mainName); err != nil {
		return nil, fmt.Errorf("input %s: %w", path, err)
	}
	switch {
	case !p.Hash.Present:
		p.problem("%s: no %s", path, hashFile)
	case !p.Hash.Matches && !opts.IgnoreHash:
		return nil, fmt.Errorf("input %s: %s (%s) does not match the SHA-256 of %s (%s); the package is damaged or was edited (--ignore-hash proceeds)",
			path, hashFile, p.Hash.Want, mainName, p.Hash.Got)
	case !p.Hash.Matches:
		p.problem("%s: %s does not match %s (ignored with --ignore-hash)", path, hashFile, mainName)
	}
	if err := p.readSmallFiles(); err != nil {
		return nil, fmt.Errorf("input %s: %w", path, err)
	}
	// The main file's execution target also names the device
	// ("preferredDevice=GPU" is in the corpus's string tables), but inside
	// aicode attributes whose custom encoding anefix cannot decode, so it is
	// not read as evidence; the main file is read for its format only.
	if err := p.fits(mainName, graphHeap(p.sizeOf(mainName))); err != nil {
		return nil, fmt.Errorf("input %s: %w", path, err)
	}
	if g, err := readGraph(root, mainName); err != nil {
		p.problem("cannot read %v", err)
	} else {
		p.Main = g
	}
	if err := p.readDelegates(); err != nil {
		return nil, fmt.Errorf("input %s: %w", path, err)
	}
	if opts.Source != "" {
		if err := p.CompareSource(opts.Source); err != nil {
			return nil, fmt.Errorf("--source %s: %w", opts.Source, err)
		}
	}
	return p, nil
}

func (p *Package) problem(format string, args ...any) {
	p.Problems = append(p.Problems, fmt.Sprintf(format, args...))
}

// walk lists the tree: file count and bytes, delegates, region directories.
// Symbolic links are not followed (and noted); special files are refused.
// Errors name paths relative to the package.
func (p *Package) walk() error {
	p.sizes = map[string]int64{}
	return filepath.WalkDir(p.Root, func(path string, d fs.DirEntry, err error) error {
		r := rel(p.Root, path)
		if err != nil {
			if path != p.Root && errors.Is(err, fs.ErrPermission) {
				// A directory this user may not read: what it holds is
				// unknown, the rest of the package is still read.
				p.problem("%v; what it holds is unknown", relErr(r, err))
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			return relErr(r, err)
		}
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			p.problem("%s is a symbolic link; not followed", q(r))
			return nil
		case d.IsDir():
			if path == p.Root {
				return nil
			}
			if strings.HasSuffix(d.Name(), ".mpsgraphpackage") {
				p.Delegates = append(p.Delegates, delegate{Dir: r})
			}
			if m := regionDirRe.FindStringSubmatch(d.Name()); m != nil {
				rd, err := readRegionDir(path, r, m)
				if err != nil {
					return err
				}
				p.RegionDirs = append(p.RegionDirs, rd)
			}
		case t.IsRegular():
			fi, err := d.Info()
			if err != nil {
				return relErr(r, err)
			}
			p.Files++
			p.Bytes += fi.Size()
			p.sizes[r] = fi.Size()
			if strings.Contains(d.Name(), "ANE_region") && !underRegionDir(r) {
				p.problem("%s names an ANE region but is a file, not a <fn>_ANE_region_<i>_<j>.bc directory; not counted", q(r))
			}
		default:
			return fmt.Errorf("%s is a special file (%v), which a compiled package must not contain", q(r), t)
		}
		return nil
	})
}

// underRegionDir reports whether a slash path lies inside a region dir.
func underRegionDir(r string) bool {
	parts := strings.Split(r, "/")
	for _, s := range parts[:len(parts)-1] {
		if regionDirRe.MatchString(s) {
			return true
		}
	}
	return false
}

func readRegionDir(path, r string, m []string) (regionDir, error) {
	rd := regionDir{Rel: r, Prefix: m[1], I: m[2], J: m[3]}
	err := filepath.WalkDir(path, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return relErr(r+"/"+rel(path, q), err)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		switch n := d.Name(); {
		case strings.HasSuffix(n, ".mlir.bc"):
			rd.Binaries = append(rd.Binaries, rel(path, q))
		case strings.HasSuffix(n, ".bc.weights"):
			rd.Weights = append(rd.Weights, rel(path, q))
		}
		return nil
	})
	return rd, err
}

// readSmallFiles reads metadata.json and stats.json; what cannot be read
// is a problem. The error is a *MemoryError only.
func (p *Package) readSmallFiles() error {
	for _, f := range []struct {
		name  string
		parse func([]byte) error
	}{
		{metadataFile, func(b []byte) (err error) { p.Metadata, err = parseMetadata(b, metadataFile); return err }},
		{statsFile, func(b []byte) (err error) { p.Stats, err = parseStats(b, statsFile); return err }},
	} {
		if err := p.fits(f.name, jsonHeap(p.sizeOf(f.name))); err != nil {
			return err
		}
		b, err := readSmall(p.Root, f.name, maxSmallFile)
		switch {
		case err == nil:
			if err := f.parse(b); err != nil {
				p.problem("%v", err)
			}
		case errors.Is(err, os.ErrNotExist):
			if f.name == metadataFile {
				p.problem("no %s", metadataFile)
			}
		default:
			p.problem("%v", err)
		}
	}
	return nil
}

// readDelegates reads every delegate's manifest and, per entry function,
// its specialized graph, then settles the counts.
func (p *Package) readDelegates() error {
	if len(p.Delegates) == 0 {
		p.problem("no .mpsgraphpackage delegate in the package, so no entry function and no region count can be read")
	}
	graphs := map[string]*graphPlacement{} // by graphFile
	graphErr := map[string]string{}
	placements := map[*Function]*graphPlacement{}
	for di := range p.Delegates {
		d := &p.Delegates[di]
		mname := d.Dir + "/" + manifestFile
		size := p.sizeOf(mname)
		if err := p.fits(mname, size); err != nil {
			return err
		}
		b, err := readSmall(p.Root, mname, maxSmallFile)
		if err != nil {
			p.problem("%v; this delegate's functions and regions are unknown", err)
			continue
		}
		man, err := parseManifestWithin(b, q(mname), p.plistLimits(size))
		if which, ok := manifestLimit(err); ok && which == "bytes" && p.maxMemory > 0 && p.plistLimits(size).MaxBytes < plist.DefaultLimits.MaxBytes {
			return &MemoryError{What: q(mname) + " and its decoded values", Limit: p.maxMemory}
		}
		if err != nil {
			p.problem("%v; this delegate's functions and regions are unknown", err)
			continue
		}
		for _, n := range man.Notes {
			p.problem("%s", n)
		}
		d.Versions, d.ANERegionsHash, d.Original = man.Versions, man.ANERegionsHash, man.Original
		if len(man.Functions) == 0 {
			p.problem("%s lists no optimized module, so no entry function", q(mname))
		}
		for _, mf := range man.Functions {
			gf := d.Dir + "/" + mf.File
			switch {
			case mf.File == "":
				gf = ""
			case !filepath.IsLocal(filepath.FromSlash(mf.File)):
				p.problem("%s: File Name %q leaves the delegate directory; not read", q(mname), mf.File)
				gf = ""
			}
			fn := &Function{Name: mf.Name, Symbol: mf.Symbol, Delegate: d.Dir, GraphFile: gf, Attributes: mf.Attributes, Valued: mf.Valued, TokenResults: mf.TokenResults}
			if mf.HasStateInputs {
				for _, i := range mf.StateInputs {
					fn.States = append(fn.States, stateInput{Index: i})
				}
				fn.StatesEvidence = append(fn.StatesEvidence, fmt.Sprintf("%s: Entry Function Attributes of %s: mps.stateInputIndices = %s", q(mname), q(mf.Symbol), intList(mf.StateInputs)))
			}
			if mf.HasUseANELLIR {
				fn.UseANELLIR = fmt.Sprint(mf.UseANELLIR)
			}
			if mf.HasPreferredDevice {
				fn.Requested = deviceName(mf.PreferredDevice)
				fn.RequestedEvidence = append(fn.RequestedEvidence, fmt.Sprintf("%s: compilationDescriptor.preferredDevice = %d (%s; MPSGraphComputeDevice bit values, a guess from public bindings)",
					q(mname), mf.PreferredDevice, fn.Requested))
			}
			if mf.HasAllowedComputeDevices {
				fn.RequestedEvidence = append(fn.RequestedEvidence, fmt.Sprintf("%s: compilationDescriptor.allowedComputeDevices = %d (%s)",
					q(mname), mf.AllowedComputeDevices, deviceName(mf.AllowedComputeDevices)))
			}
			var gp *graphPlacement
			if gf != "" {
				if g, ok := graphs[gf]; ok {
					gp = g
				} else if _, failed := graphErr[gf]; !failed {
					if err := p.fits(gf, graphHeap(p.sizeOf(gf))); err != nil {
						return err
					}
					if g, err := readGraph(p.Root, gf); err != nil {
						graphErr[gf] = err.Error()
						p.problem("cannot read %v", err)
					} else {
						gp = readPlacement(g.Module)
						graphs[gf] = gp
						for _, pr := range gp.Problems {
							p.problem("%s: %s", q(gf), pr)
						}
					}
				}
			}
			placements[fn] = gp
			p.Functions = append(p.Functions, fn)
		}
	}
	// Directories are attributed once every function is known, so the
	// longest name wins over all of them.
	claimed := map[string]bool{}
	for _, fn := range p.Functions {
		fn.settle(placements[fn], graphErr[fn.GraphFile], p.dirsOf(fn, claimed), p)
	}
	for _, rd := range p.RegionDirs {
		if !claimed[rd.Rel] {
			p.Unattributed = append(p.Unattributed, rd.Rel)
		}
	}
	if len(p.Unattributed) > 0 {
		p.problem("%d ANE region %s belong to no entry function of the manifest: %s", len(p.Unattributed), plural(len(p.Unattributed), "directory", "directories"), strings.Join(qs(p.Unattributed), ", "))
	}
	return nil
}

// dirsOf attributes region directories to fn: the directory's <fn> part is
// the function's symbol or name, or starts with either followed by "_"
// (the longest such match over all functions wins; claimed records it).
func (p *Package) dirsOf(fn *Function, claimed map[string]bool) []regionDir {
	var out []regionDir
	for _, rd := range p.RegionDirs {
		if claimed[rd.Rel] {
			continue
		}
		if matchLen(rd.Prefix, fn) > 0 && matchLen(rd.Prefix, fn) >= p.bestMatch(rd.Prefix) {
			claimed[rd.Rel] = true
			out = append(out, rd)
		}
	}
	return out
}

func (p *Package) bestMatch(prefix string) int {
	best := 0
	for _, f := range p.Functions {
		best = max(best, matchLen(prefix, f))
	}
	return best
}

func matchLen(prefix string, fn *Function) int {
	best := 0
	for _, n := range []string{fn.Symbol, fn.Name} {
		if n != "" && (prefix == n || strings.HasPrefix(prefix, n+"_")) {
			best = max(best, len(n))
		}
	}
	return best
}

// CompareSource compares metadata.json's sourceHash with the SHA-256 of
// the given .aimodel's main.mlirb (or of the given file) and records the
// result in p.Source: inspect --source and check --compiled (with its
// input's main file) both ask. GUESS: that this is what coreai-build
// hashes; the corpus has no sources to confirm it, so a mismatch says only
// that it is not that digest.
func (p *Package) CompareSource(src string) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	target := src
	if fi.IsDir() {
		target = filepath.Join(src, "main.mlirb")
	}
	d, err := sha256File(target, target)
	if err != nil {
		return err
	}
	sc := &sourceCheck{Path: src, Hashed: target, Digest: d}
	if p.Metadata != nil {
		sc.Matches = strings.EqualFold(p.Metadata.SourceHash, d)
	}
	p.Source = sc
	return nil
}
