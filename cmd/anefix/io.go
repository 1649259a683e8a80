package main

import (
	"fmt"
	"os"

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

// loadInput opens any input kind for a command, printing warnings (such as
// an ignored main.hash mismatch) to stderr.
func loadInput(env *Env, path string, ignoreHash bool) (*modelio.Loaded, error) {
	return modelio.Load(path, modelio.LoadOptions{
		IgnoreHash: ignoreHash,
		Stdin:      env.Stdin,
		Progress:   progressFile(env),
		Warn:       func(msg string) { fmt.Fprintf(env.Stderr, "anefix: warning: %s\n", msg) },
	})
}
