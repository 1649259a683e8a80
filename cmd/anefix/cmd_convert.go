package main

import (
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
followed, within --max-memory) and copied file by file, unchanged, holes in
sparse files kept; it is never re-encoded. What the reader could not read
besides main.hash is copied as it is, with a warning (inspect lists it).`,
		Setup: func(fs *pflag.FlagSet) func(*Env, []string) error {
			out := fs.StringP("output", "o", "", "output path, or - for stdout (required)")
			emit := fs.String("emit", "", "output encoding: generic, pretty or bytecode (default: keep the input's)")
			force := fs.Bool("force", false, "replace an existing output")
			version := fs.Int("bytecode-version", 0, "bytecode version to write, 1 to 6 (default: the input's, or 6)")
			ignoreHash := fs.Bool("ignore-hash", false, "proceed when main.hash does not match main.mlirb (with a warning)")
			maxMem := sizeFlag(8 << 30)
			fs.Var(&maxMem, "max-memory", "for a compiled package: refuse (exit 1) when reading one of its files needs more heap than SIZE by the reader's estimates, e.g. 512MiB, 8GiB")
			return func(env *Env, args []string) error {
				if len(args) != 1 {
					return usagef("want exactly one input, got %d", len(args))
				}
				if *out == "" {
					return usagef("-o OUT is required")
				}
				if isCompiledPackage(args[0]) {
					return convertCompiled(env, args[0], *out, *emit, *version, *force, *ignoreHash, int64(maxMem))
				}
				if fs.Changed("max-memory") {
					return usagef("--max-memory applies to a compiled package (.aimodelc) here; %s is not one", args[0])
				}
				if err := checkOutputFlags(*emit, *version); err != nil {
					return err
				}
				ld, err := loadInput(env, args[0], *ignoreHash)
				if err != nil {
					return err
				}
				defer ld.Close()
				plan, err := planOutput(*out, ld, *emit, *version, *force)
				if err != nil {
					return err
				}
				// The writer's own whole-module check, made here to name the
				// input: convert runs no pass, so what it would refuse is IN's.
				if err := graph.VerifyWritable(ld.Module); err != nil {
					return fmt.Errorf("%s: %w", args[0], err)
				}
				res, err := plan.Save(ld.Module, ld, modelio.SaveOptions{Stdout: env.Stdout, Progress: progressFile(env)})
				if err != nil {
					return err
				}
				if res.Path != "-" {
					fmt.Fprintf(env.Stderr, "wrote %s (%s, %d bytes)\n", res.Path, res.Kind, res.MainSize)
				}
				return nil
			}
		},
	})
}
