// Package compiler drives Apple's compiler: it runs `xcrun coreai-build
// compile` (or a binary named by Options.Compiler / $ANEFIX_COMPILER) on an
// .aimodel (writing a temporary one first for other inputs, input.go),
// times it, reads the .aimodelc it wrote with graph/aimodelc (which counts
// each ANE region once), attributes the regions to the input's graphs, and
// parses its stderr with passes/ane/compilerlog. It never predicts: callers
// put check's prediction and its calibration beside what it measured.
package compiler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/anefix/anefix/graph/aimodelc"
	"github.com/anefix/anefix/passes/ane/compilerlog"
	"github.com/anefix/anefix/passes/internal/proc"
)

// EnvCompiler names another compiler binary for every compile anefix runs
// (the --compiler default; rewrite --compile has no flag of its own).
const EnvCompiler = "ANEFIX_COMPILER"

// Options are the settings of one compiler run.
type Options struct {
	// Compiler is the binary to run in place of `xcrun coreai-build`;
	// "" uses $ANEFIX_COMPILER, then xcrun from PATH.
	Compiler         string
	Platform         string // --platform (iOS)
	PreferredCompute string // --preferred-compute (neural-engine)
	Architecture     string // --architecture (h18p)
	// Keep is a directory to keep the .aimodelc and the compiler's stderr
	// in; "" compiles into a temporary directory removed afterwards.
	Keep    string
	Timeout time.Duration // 0 = none
}

// DefaultOptions are what `anefix compile` runs without flags.
func DefaultOptions() Options {
	return Options{Platform: "iOS", PreferredCompute: "neural-engine", Architecture: "h18p", Timeout: time.Hour}
}

// Result is one measured compiler run.
type Result struct {
	Command  []string
	ExitCode int
	Duration time.Duration
	// Package is the .aimodelc as graph/aimodelc read it (nil when the
	// compiler wrote none); Regions its ANE regions, meaningful only when
	// RegionsKnown, and RegionFiles its ANE region directories.
	Package      *aimodelc.Package
	Regions      int
	RegionsKnown bool
	RegionFiles  []string
	Log          *compilerlog.Log
	// Stderr is the first maxStderrKept bytes of the compiler's output
	// (the whole log is parsed into Log and, under Keep, written beside
	// the package); StderrTruncated says there was more.
	Stderr          []byte
	StderrTruncated bool
	Kept            string // where the output was kept, "" when removed
}

// ErrNoCompiler is returned when neither --compiler, $ANEFIX_COMPILER nor
// xcrun is available (any machine but a Mac with Xcode).
var ErrNoCompiler = errors.New("the Neural Engine compiler is not available here (no xcrun on PATH; coreai-build ships with Xcode on macOS): " +
	"run 'anefix check IN' for a prediction, or give --compiler PATH")

// Command returns the argv prefix that runs the compiler.
func Command(opts Options) ([]string, error) {
	c := opts.Compiler
	if c == "" {
		c = os.Getenv(EnvCompiler)
	}
	if c != "" {
		p, err := exec.LookPath(c)
		if err != nil {
			return nil, fmt.Errorf("compiler %s: %w", c, err)
		}
		return []string{p}, nil
	}
	p, err := exec.LookPath("xcrun")
	if err != nil {
		return nil, ErrNoCompiler
	}
	return []string{p, "coreai-build"}, nil
}

// Run compiles the .aimodel directory aimodel with the real
// compiler (or opts.Compiler) and measures the result: exit code, wall
// time, the .aimodelc as read (ANE regions counted once each), and the
// parsed stderr. A compiler
// that exits non-zero is not an error here (the result says so); errors are
// for a missing compiler (ErrNoCompiler), an unreadable output or log, or a
// timeout.
func Run(ctx context.Context, opts Options, aimodel string) (*Result, error) {
	argv, err := Command(opts)
	if err != nil {
		return nil, err
	}
	outRoot := opts.Keep
	if outRoot == "" {
		tmp, err := tempDir("anefix-compile-")
		if err != nil {
			return nil, err
		}
		defer removeTemp(tmp)
		outRoot = tmp
	} else if err := os.MkdirAll(outRoot, 0o755); err != nil {
		return nil, fmt.Errorf("--keep %s: %w", outRoot, err)
	}
	// --output names a directory the compiler writes the .aimodelc into
	// (public build scripts create it, pass it and then look for the one
	// *.aimodelc inside: john-rocky/coreai-model-zoo
	// conversion/laya/aot_laya.py). A fresh one per compile, so that a
	// --keep directory's earlier outputs are never counted.
	name := strings.TrimSuffix(filepath.Base(strings.TrimRight(aimodel, "/")), ".aimodel")
	out := filepath.Join(outRoot, name+".coreai-build")
	logPath := out + ".log"
	for _, p := range []string{out, logPath} {
		if _, err := os.Lstat(p); err == nil {
			return nil, fmt.Errorf("%s already exists; remove it or choose another --keep directory", p)
		}
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		return nil, err
	}
	argv = append(argv, "compile", aimodel, "--platform", opts.Platform, "--preferred-compute", opts.PreferredCompute,
		"--architecture", opts.Architecture, "--output", out)
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	// The log is parsed as it arrives, never held whole (compilerlog's
	// bounds); under --keep it also streams to a file.
	parser := compilerlog.NewParser()
	head := &headWriter{max: maxStderrKept}
	sinks := []io.Writer{parser, head}
	if opts.Keep != "" {
		// O_EXCL: a file created now, never one that appeared since the
		// check (a link is not followed, nothing is truncated).
		f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		sinks = append(sinks, f)
	}
	sink := io.MultiWriter(sinks...)
	cmd := exec.Command(argv[0], argv[1:]...)
	start := time.Now()
	// coreai-build's stdout is progress text; it goes with the log.
	runErr := runTracked(ctx, cmd, sink)
	res := &Result{Command: argv, Duration: time.Since(start), Stderr: head.buf, StderrTruncated: head.cut}
	if ctx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("%s did not finish within %s (--timeout); its process group was killed", argv[0], opts.Timeout)
	}
	if errors.Is(runErr, errStopping) {
		return nil, runErr
	}
	// The shell's convention: a death by signal N is 128+N (SIGSEGV 139).
	if res.ExitCode = proc.ExitStatus(runErr); res.ExitCode < 0 {
		return nil, fmt.Errorf("running %s: %w", argv[0], runErr)
	}
	res.Log = parser.Finish()
	// Only this compile's output: a --keep directory may hold the
	// .aimodelc of earlier compiles, whose regions are not this one's.
	pkg, err := locatePackage(out)
	if err != nil {
		return nil, err
	}
	if pkg != "" {
		if res.Package, err = aimodelc.Open(pkg, aimodelc.Options{}); err != nil {
			return nil, fmt.Errorf("reading the compiler's output: %w", err)
		}
	}
	if res.Package != nil {
		c := res.Package.ANERegions()
		res.Regions, res.RegionsKnown = c.N, c.Known
		for _, rd := range res.Package.RegionDirs {
			res.RegionFiles = append(res.RegionFiles, rd.Rel)
		}
	}
	if opts.Keep != "" {
		res.Kept = out
		if pkg != "" {
			res.Kept = pkg
		}
	}
	return res, nil
}

// locatePackage finds the compiled package in the --output directory: the
// directory itself when the compiler wrote the package there, else the one
// *.aimodelc inside it; "" when there is none (the compiler wrote nothing;
// the caller decides from the exit status what that means).
func locatePackage(out string) (string, error) {
	if aimodelc.IsPackage(out) {
		return out, nil
	}
	des, err := os.ReadDir(out)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("reading the compiler's output: %w", err)
	}
	var found []string
	for _, de := range des {
		if de.IsDir() && strings.HasSuffix(de.Name(), ".aimodelc") {
			found = append(found, filepath.Join(out, de.Name()))
		}
	}
	switch len(found) {
	case 0:
		return "", nil
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("the compiler wrote %d .aimodelc packages into %s; one compile writes one", len(found), out)
}

// maxStderrKept bounds Result.Stderr.
const maxStderrKept = 64 << 10

// headWriter keeps the first max bytes written to it.
type headWriter struct {
	buf []byte
	max int
	cut bool
}

func (h *headWriter) Write(b []byte) (int, error) {
	if room := h.max - len(h.buf); room < len(b) {
		h.buf = append(h.buf, b[:max(room, 0)]...)
		h.cut = true
	} else {
		h.buf = append(h.buf, b...)
	}
	return len(b), nil
}
