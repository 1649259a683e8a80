package main

import (
	"errors"

	"github.com/anefix/anefix/graph/modelio"
)

// usage makes modelio's flag refusals usage errors (exit 2).
func usage(err error) error {
	var ue *modelio.UsageError
	if errors.As(err, &ue) {
		return usagef("%v", ue)
	}
	return err
}

// checkOutputFlags vets --emit and --bytecode-version before any input is
// read (0 = the input's version).
func checkOutputFlags(emit string, version int) error {
	return usage(modelio.CheckFlags(emit, version))
}

// planOutput vets an output against its input (src is nil for synth)
// before any work and decides what it will be (modelio.PlanOutput); it
// refuses bytecode for a stdout that is a terminal.
func planOutput(env *Env, out string, src *modelio.Loaded, emit string, version int, force bool) (*modelio.Plan, error) {
	p, err := modelio.PlanOutput(out, src, emit, version, force)
	if err == nil {
		err = p.RefuseTerminal(env.StdoutIsTTY)
	}
	return p, usage(err)
}
