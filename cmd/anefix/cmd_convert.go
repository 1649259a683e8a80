package main

import (
	"errors"
	"fmt"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/spf13/pflag"
)

func init() {
	register(&command{
		Name:        "convert",
		StdoutModel: true,
		Usage:       "convert IN -o OUT [--emit generic|pretty|bytecode] [--force]",
		Summary:     "convert between .aimodel, MLIR bytecode and MLIR text without running passes",
		Help: `IN and OUT may be an .aimodel directory, an LLM bundle, a .mlirb bytecode file,
a .mlir text file, or - for stdin/stdout. The output kind follows OUT's extension
(.aimodel, .mlirb, .mlir), else mirrors IN; --emit picks the encoding. The input
is verified by the IR verifier and never modified; the output is written to a
temporary sibling and renamed into place.

Examples:
  anefix convert model.aimodel -o model.mlir              # read an export as text
  anefix convert model.mlir -o model.aimodel              # edited text back to a bundle
  anefix convert model.aimodel -o - --emit pretty | less  # coreai printed form on stdout
  anefix convert - -o out.mlirb < in.mlir                 # a pipe
  anefix convert model.h18p.aimodelc -o copy.h18p.aimodelc  # a compiled package, copied whole

A compiled package (.aimodelc) is read (main.hash checked, links not
followed, --max-memory bounding the heap reading one of its files needs)
and copied file by file, unchanged, holes in sparse files kept; it is
never re-encoded. What the reader could not read besides main.hash is
copied as it is, with a warning (inspect lists it).`,
		Setup: runWith((*convertFlags).declare, runConvert),
	})
}

// convertFlags are convert's flags.
type convertFlags struct {
	fs                *pflag.FlagSet // for Changed
	out, emit         string
	force, ignoreHash bool
	version           int
	maxMem            sizeFlag
}

func (f *convertFlags) declare(fs *pflag.FlagSet) {
	f.fs = fs
	declareOutput(fs, &f.out)
	markRequired(fs, "output", "-o OUT", "an .aimodel directory, .mlirb, .mlir, or - for stdout")
	declareEmit(fs, &f.emit)
	declareForce(fs, &f.force)
	declareBytecodeVersion(fs, &f.version)
	declareIgnoreHash(fs, &f.ignoreHash)
	declareMaxMemory(fs, &f.maxMem)
}

// runConvert is `anefix convert`.
func runConvert(env *Env, f *convertFlags, args []string) error {
	if len(args) != 1 {
		return usagef("want exactly one input, got %d", len(args))
	}
	if isCompiledPackage(args[0]) {
		return convertCompiled(env, args[0], f.out, f.emit, f.version, f.force, f.ignoreHash, int64(f.maxMem))
	}
	if f.fs.Changed("max-memory") {
		return usagef("--max-memory applies to a compiled package (.aimodelc) here; %s is not one", args[0])
	}
	if err := checkOutputFlags(f.emit, f.version); err != nil {
		return err
	}
	defer codecGC()()
	ld, err := loadInput(env, args[0], f.ignoreHash)
	if err != nil {
		return err
	}
	defer ld.Close()
	plan, err := planOutput(env, f.out, ld, f.emit, f.version, f.force)
	if err != nil {
		return err
	}
	res, err := plan.Save(ld.Module, ld, modelio.SaveOptions{Stdout: env.Stdout, Progress: progressFile(env)})
	// Save's whole-module check (graph.VerifyWritable, before a
	// byte is written) names the input: convert runs no pass, so
	// what it refuses is IN's. Checked once, not here and again
	// in Save.
	if ve := (*graph.VerifyError)(nil); errors.As(err, &ve) {
		return fmt.Errorf("%s: %w", args[0], ve)
	}
	if err != nil {
		return err
	}
	if res.Path != "-" {
		// The path as the user gave it, as rewrite prints it.
		fmt.Fprintf(env.Stderr, "wrote %s (%s, %d bytes)\n", f.out, res.Kind, res.MainSize)
	}
	return nil
}
