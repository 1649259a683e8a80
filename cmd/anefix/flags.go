package main

import (
	"github.com/spf13/pflag"

	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/passes/ane"
)

// The flags more than one command takes, each declared here once so it has
// one spelling, one default and one help text in every command's --help
// (TestSharedFlagsDeclaredOnce walks every command and holds this). What a
// flag bounds or picks in one command belongs in that command's Help.
// --max-memory and --max-work are declared in size.go, beside their type.

// declareJSON declares --json.
func declareJSON(fs *pflag.FlagSet, p *bool) {
	fs.BoolVar(p, "json", false, "print the report as JSON on stdout (its anefix.v1 message, proto/*.proto; JSON Schema: proto/schema/anefix.schema.json)")
}

// declareTimings declares --timings: what varies from run to run (wall
// times, and verify's work counts beside them) is printed only when asked,
// so that the output is otherwise the same bytes on every run.
func declareTimings(fs *pflag.FlagSet, p *bool) {
	fs.BoolVar(p, "timings", false, "add wall times (verify: and the work done, on stderr) to the output, which is otherwise the same bytes on every run")
}

// declareIgnoreHash declares --ignore-hash.
func declareIgnoreHash(fs *pflag.FlagSet, p *bool) {
	fs.BoolVar(p, "ignore-hash", false, "proceed when main.hash does not match main.mlirb instead of refusing the input")
}

// declareOutput declares -o/--output.
func declareOutput(fs *pflag.FlagSet, p *string) {
	fs.StringVarP(p, "output", "o", "", "output: .aimodel directory, .mlirb, .mlir, or - for stdout where the command allows it (required)")
}

// declareForce declares --force.
func declareForce(fs *pflag.FlagSet, p *bool) {
	fs.BoolVar(p, "force", false, "replace an existing output (in rewrite, also an existing --report FILE)")
}

// declareEmit declares --emit.
func declareEmit(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "emit", "", "output encoding: generic, pretty or bytecode (default: keep the input's; synth: by OUT's extension)")
	flagValues(fs, "emit", modelio.Forms()...)
}

// declareBytecodeVersion declares --bytecode-version.
func declareBytecodeVersion(fs *pflag.FlagSet, p *int) {
	fs.IntVar(p, "bytecode-version", 0, "bytecode version to write, 1 to 6 (default: the input's, or 6)")
	flagValues(fs, "bytecode-version", modelio.BytecodeVersions()...)
}

// declareSeed declares --seed.
func declareSeed(fs *pflag.FlagSet, p *uint64) {
	fs.Uint64Var(p, "seed", 0, "seed of the pseudo-random values (synth: the weights; verify: the token streams and inputs: embeddings, hidden states)")
}

// declareArchitecture declares --architecture with its default, the
// target check predicts for and compile passes to coreai-build.
func declareArchitecture(fs *pflag.FlagSet, p *string) {
	defer flagValues(fs, "architecture", ane.KnownArchitectures()...)
	fs.StringVar(p, "architecture", ane.DefaultArchitecture, "Neural Engine target: h18p or h16g (check: the region prediction's model, other names predict no count; compile: passed to coreai-build)")
}

// requiredAnnotation marks a flag its command cannot run without. run
// refuses a command line that lacks one (exit 2, naming it as required)
// before the command runs; completion offers it like any flag.
const requiredAnnotation = "anefix_required"

// markRequired marks flag name of fs as required: spelled is how the
// message writes it ("--arm", "-o OUT"), what says what it takes.
func markRequired(fs *pflag.FlagSet, name, spelled, what string) {
	if err := fs.SetAnnotation(name, requiredAnnotation, []string{spelled, what}); err != nil {
		panic("anefix: " + err.Error()) // a flag not declared: a programming error
	}
}

// missingRequired is the usage error for the first required flag (in
// declaration order) that the command line does not set, or nil.
func missingRequired(fs *pflag.FlagSet) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if a, ok := f.Annotations[requiredAnnotation]; ok && err == nil && !f.Changed {
			err = usagef("%s is required (%s)", a[0], a[1])
		}
	})
	return err
}
