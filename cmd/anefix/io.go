package main

import (
	"fmt"
	"os"
	"runtime"

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
	if os.Getenv("GOMAXPROCS") == "" && runtime.GOMAXPROCS(0) < minProcs {
		runtime.GOMAXPROCS(minProcs)
	}
	return modelio.Load(path, modelio.LoadOptions{
		IgnoreHash: ignoreHash,
		Stdin:      env.Stdin,
		Progress:   progressFile(env),
		Warn:       func(msg string) { fmt.Fprintf(env.Stderr, "anefix: warning: %s\n", msg) },
	})
}
