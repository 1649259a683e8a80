package main

// The compiler wrapper shared by `anefix compile` and `anefix rewrite
// --compile`: it runs coreai-build on an .aimodel, times it, reads the
// .aimodelc it wrote with graph/aimodelc (which counts each ANE region once)
// and parses its stderr.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/aimodelc"
	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/passes/ane/compilerlog"
)

// compilerEnv names another compiler binary for every compile anefix runs
// (the --compiler default; rewrite --compile has no flag of its own).
const compilerEnv = "ANEFIX_COMPILER"

// compileOptions are the settings of one compiler run.
type compileOptions struct {
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

func defaultCompileOptions() compileOptions {
	return compileOptions{Platform: "iOS", PreferredCompute: "neural-engine", Architecture: "h18p", Timeout: time.Hour}
}

// compileResult is one measured compiler run.
type compileResult struct {
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
	Stderr       []byte
	Kept         string // where the output was kept, "" when removed
}

// errNoCompiler is returned when neither --compiler, $ANEFIX_COMPILER nor
// xcrun is available (any machine but a Mac with Xcode).
var errNoCompiler = errors.New("the Neural Engine compiler is not available here (no xcrun on PATH; coreai-build ships with Xcode on macOS): " +
	"run 'anefix check IN' for a prediction, or give --compiler PATH")

// compilerCommand returns the argv prefix that runs the compiler.
func compilerCommand(opts compileOptions) ([]string, error) {
	c := opts.Compiler
	if c == "" {
		c = os.Getenv(compilerEnv)
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
		return nil, errNoCompiler
	}
	return []string{p, "coreai-build"}, nil
}

// compileRegions compiles the .aimodel directory aimodel with the real
// compiler (or opts.Compiler) and measures the result: exit code, wall
// time, the .aimodelc as read (ANE regions counted once each), and the
// parsed stderr. A compiler
// that exits non-zero is not an error here (the result says so); errors are
// for a missing compiler (errNoCompiler), an unreadable output or log, or a
// timeout.
func compileRegions(ctx context.Context, opts compileOptions, aimodel string) (*compileResult, error) {
	argv, err := compilerCommand(opts)
	if err != nil {
		return nil, err
	}
	outRoot := opts.Keep
	if outRoot == "" {
		tmp, err := os.MkdirTemp("", "anefix-compile-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		outRoot = tmp
	} else if err := os.MkdirAll(outRoot, 0o755); err != nil {
		return nil, fmt.Errorf("--keep %s: %w", outRoot, err)
	}
	name := strings.TrimSuffix(filepath.Base(strings.TrimRight(aimodel, "/")), ".aimodel") + ".aimodelc"
	out := filepath.Join(outRoot, name)
	if _, err := os.Lstat(out); err == nil {
		return nil, fmt.Errorf("%s already exists; remove it or choose another --keep directory", out)
	}
	argv = append(argv, "compile", aimodel, "--platform", opts.Platform, "--preferred-compute", opts.PreferredCompute,
		"--architecture", opts.Architecture, "--output", out)
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr // coreai-build's stdout is progress text; keep it with the log
	start := time.Now()
	runErr := cmd.Run()
	res := &compileResult{Command: argv, Duration: time.Since(start), Stderr: stderr.Bytes()}
	if ctx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("%s did not finish within %s (--timeout)", argv[0], opts.Timeout)
	}
	var ee *exec.ExitError
	switch {
	case runErr == nil:
	case errors.As(runErr, &ee):
		res.ExitCode = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			res.ExitCode = 128 + int(ws.Signal()) // shell convention: SIGSEGV = 139
		}
	default:
		return nil, fmt.Errorf("running %s: %w", argv[0], runErr)
	}
	res.Log, err = compilerlog.Parse(bytes.NewReader(res.Stderr))
	if err != nil {
		return nil, err
	}
	// Only this compile's output: a --keep directory may hold the
	// .aimodelc of earlier compiles, whose regions are not this one's.
	if res.Package, err = readCompiled(out); err != nil {
		return nil, err
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
		if err := os.WriteFile(filepath.Join(outRoot, strings.TrimSuffix(name, ".aimodelc")+".coreai-build.log"), res.Stderr, 0o644); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// readCompiled reads the .aimodelc the compiler wrote with graph/aimodelc.
// A root that does not exist (the compiler wrote nothing) gives nil; the
// caller decides what that means from the exit status.
func readCompiled(root string) (*aimodelc.Package, error) {
	if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	p, err := aimodelc.Open(root, aimodelc.Options{})
	if err != nil {
		return nil, fmt.Errorf("reading the compiler's output: %w", err)
	}
	return p, nil
}

// compileInput is a loaded input made ready for the compiler: the .aimodel
// directory to hand it, and the module for prediction and mapping.
type compileInput struct {
	Loaded  *modelio.Loaded
	AIModel string
	cleanup func()
}

func (c *compileInput) Close() {
	if c.cleanup != nil {
		c.cleanup()
	}
	c.Loaded.Close()
}

// prepareCompileInput loads path and, when it is not an .aimodel (or an LLM
// bundle holding one), writes the module into a temporary .aimodel, since
// coreai-build compiles .aimodel directories.
func prepareCompileInput(env *Env, path string, ignoreHash bool) (*compileInput, error) {
	ld, err := loadInput(env, path, ignoreHash)
	if err != nil {
		return nil, err
	}
	ci := &compileInput{Loaded: ld}
	switch ld.Input.Kind {
	case bundle.KindAIModel, bundle.KindLLMBundle:
		ci.AIModel = ld.Input.AIModelDir
		return ci, nil
	}
	tmp, err := os.MkdirTemp("", "anefix-aimodel-")
	if err != nil {
		ld.Close()
		return nil, err
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if path == "-" || base == "" || base == "." {
		base = "model"
	}
	ci.AIModel = filepath.Join(tmp, base+".aimodel")
	ci.cleanup = func() { os.RemoveAll(tmp) }
	if _, err := modelio.Save(ci.AIModel, ld.Module, ld, modelio.SaveOptions{}); err != nil {
		ci.Close()
		return nil, fmt.Errorf("preparing %s for the compiler: %w", path, err)
	}
	return ci, nil
}

func (c *compileInput) module() *graph.Module { return c.Loaded.Module }
