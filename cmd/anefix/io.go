package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/anefix/anefix/graph/bundle"
	pb "github.com/anefix/anefix/proto/anefixpb"

	"github.com/anefix/anefix/graph/modelio"
)

// progressFile is where long work may draw a progress bar: stderr, only
// when it is a terminal (never in pipes, logs or CI).
func progressFile(env *Env) *os.File {
	if env.StderrIsTTY {
		return os.Stderr
	}
	return nil
}

// stepBar is the bar of verify's positions, drawn on a terminal only. It
// starts before the run (setting up the graphs can take seconds) and gets
// its total at the first position.
type stepBar struct{ bar bundle.Bar }

func positionBar(env *Env) stepBar {
	return stepBar{bundle.NewCountBar(progressFile(env), "verify", 0, "positions")}
}

func (b stepBar) set(done, total int64) {
	b.bar.SetTotal(total)
	b.bar.Set(done)
}

func (b stepBar) done() { b.bar.Done() }

// minProcs is the least GOMAXPROCS for commands that load a model. Loading
// and writing an .aimodel keeps up to five goroutines busy (two SHA-256
// chains, two read-ahead readers, a pwrite writer), several of them often
// in system calls; with more Ps than the VM's two cores the kernel, not
// Go's scheduler, shares the cores among them, which made full arm A
// rewrite 1.31 -> 1.27 s and convert 0.93 -> 0.90 s (medians of 6). An
// explicit GOMAXPROCS in the environment is kept.
const minProcs = 4

// loadInput opens any input kind for a command, printing warnings (such as
// an ignored main.hash mismatch) to stderr.
func loadInput(env *Env, path string, ignoreHash bool) (*modelio.Loaded, error) {
	if isCompiledPackage(path) {
		return nil, compiledRefusal(path)
	}
	if os.Getenv("GOMAXPROCS") == "" && runtime.GOMAXPROCS(0) < minProcs {
		runtime.GOMAXPROCS(minProcs)
	}
	ld, err := modelio.Load(path, modelio.LoadOptions{
		IgnoreHash: ignoreHash,
		Stdin:      env.Stdin,
		Progress:   progressFile(env),
		Warn:       func(msg string) { fmt.Fprintf(env.Stderr, "anefix: warning: %s\n", msg) },
	})
	if err == nil {
		showNames(env, ld.Module)
	}
	if err == nil && loadedHook != nil {
		loadedHook(ld)
	}
	return ld, err
}

// loadedHook, set only by tests (TestCommandsReadEachWeightOnce), sees
// each module loadInput loads before the command works on it.
var loadedHook func(*modelio.Loaded)

// reportInput describes a loaded input for a report (anefix.v1.Input). The
// main file is spelled from the path the user typed, as the schema says, so
// reports carry no absolute paths and read the same on every machine.
func reportInput(path string, ld *modelio.Loaded) *pb.Input {
	in := &pb.Input{Path: path, MainPath: path, HashChecked: ld.Input.Hash.Checked, HashMatches: ld.Input.Hash.Matches}
	if ld.Input.Kind.IsDir() {
		if rel, err := filepath.Rel(ld.Input.Root, ld.Input.MainPath); err == nil {
			in.MainPath = filepath.Join(path, rel)
		}
	}
	switch ld.Input.Kind {
	case bundle.KindAIModel:
		in.Kind = pb.InputKind_AIMODEL
	case bundle.KindLLMBundle:
		in.Kind = pb.InputKind_LLM_BUNDLE
	case bundle.KindBytecode:
		in.Kind = pb.InputKind_MLIR_BYTECODE
	default:
		in.Kind = pb.InputKind_MLIR_TEXT
	}
	if ld.Form != modelio.FormBytecode {
		in.TextForm = ld.Form
	}
	if ld.Bytecode != nil {
		in.BytecodeVersion = int32(ld.Bytecode.Version)
		in.BytecodeProducer = ld.Bytecode.Producer
	}
	return in
}
