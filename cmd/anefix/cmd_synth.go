package main

import (
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/graph/synth"
	"github.com/anefix/anefix/passes/synthd"
)

func init() {
	register(&command{
		Name:        "synth",
		StdoutModel: true,
		NoInput:     true,
		Usage:       "synth --arm A|B|C|D|E [--layers N] [--scale tiny|full] [--ctx N] [--seed N] [--state-form tensor|handle] [--recurrence inline|composite] [--state-read sum|matmul] [--locations builtin|debuginfo] [--weights f16|linear-int4|palettized] [--trained-gates=false] [--massive-activations=false] -o OUT",
		Summary:     "generate stand-in Qwen3.5 hybrid (arms A-D) or dense iOS control (E) graphs",
		Help: `Writes a stand-in for the exports the seed measured, with deterministic
pseudo-random fp16 weights (same flags, same bytes):
  A  the community iOS builder's hybrid main, conv/rec state as plain I/O
  B  A with conv/rec as states
  C  A cut to its first 6 layers
  D  A after the arm-D pass (recurrence, per-head SDPA, RoPE removed)
  E  Apple-style dense Qwen3 control: fp16, BC1S, 19 static functions
--scale full uses the real dims (Qwen3.5-0.8B: about 1.5 GB of weights,
streamed to disk). OUT is an .aimodel directory, a .mlirb or .mlir file, or
"-" for stdout (bytecode unless --emit generic|pretty).

Examples:
  anefix synth --arm A -o armA.mlir
  anefix synth --arm B --scale full -o armB.aimodel
  anefix synth --arm E --ctx 512 --emit generic -o - | less
  anefix synth --arm A --weights linear-int4 -o armA-int4.aimodel`,
		Setup: runWith((*synthFlags).declare, runSynth),
	})
}

// synthFlags are synth's flags.
type synthFlags struct {
	arm, scale, stateForm, stateRead string
	recurrence, weights, locations   string
	layers, ctx                      int
	seed                             uint64
	out, emit                        string
	force                            bool
	trainedGates, massive            bool
}

func (f *synthFlags) declare(fs *pflag.FlagSet) {
	fs.StringVar(&f.arm, "arm", "", "which graph: A, B, C, D or E (required)")
	markRequired(fs, "arm", "--arm", "A, B, C, D or E")
	flagValues(fs, "arm", synth.Arms()...)
	fs.IntVar(&f.layers, "layers", 0, "number of decoder layers (default: 4 tiny / 24 full; C: 6; E: 2 tiny / 28 full)")
	fs.StringVar(&f.scale, "scale", "tiny", "tiny (small dims, what testdata ships) or full (real model dims)")
	fs.IntVar(&f.ctx, "ctx", 0, "KV cache length (A-D, default 256) or largest cache length of E's 256, 512, ... ladder (default 1024)")
	declareSeed(fs, &f.seed)
	fs.StringVar(&f.stateForm, "state-form", "tensor", "states as tensor inputs with MutableBuffers.buffer_mutation (tensor) or as !coreai.handle/!coreai.token (handle, as after Core AI's optimize)")
	fs.StringVar(&f.stateRead, "state-read", "sum", "A-D: how the gated-delta step reads its state: elementwise multiply and a sum over dim -2 (sum, as coreai-torch's gated_delta_update composite does) or batch matmuls (matmul)")
	fs.StringVar(&f.recurrence, "recurrence", "inline", "A-D: the gated-delta step as inline f32 ops (inline, the seed's iOS builder) or a call to a gated_delta_update composite graph (composite, as coreai-models' macOS builder exports it)")
	fs.StringVar(&f.weights, "weights", "f16", "A-E: weight storage: fp16 blobs (f16), linear blockwise INT4 (linear-int4: quantize-weights dtype=si4, per-block 32; check's linear-int4 blocker) or 4-bit palettes over 32 channels (palettized: palettize at its defaults)")
	fs.StringVar(&f.locations, "locations", "builtin", "op locations as MLIR fused locations (builtin) or as coreai-torch's #debuginfo.location dialect attributes (debuginfo; its body is anefix's guess, graph/synth/dialectlocs.go)")
	fs.BoolVar(&f.trainedGates, "trained-gates", true, "A-D: recurrence gates as trained gated-delta/Mamba2 models initialise them (dt log-uniform in [0.001, 0.1], A log-uniform in [1, 16]: decay near 1); false restores the fast-forgetting gates (decay <= 0.24)")
	fs.BoolVar(&f.massive, "massive-activations", true, "A-D: a few residual channels with magnitudes in the hundreds (tiny) to thousands (full), growing with depth, written by one MLP super neuron per channel and layer (graph/synth/massive.go); false leaves them out")
	for name, vals := range map[string][]string{"scale": synth.Choices.Scale, "state-form": synth.Choices.StateForm, "state-read": synth.Choices.StateRead,
		"recurrence": synth.Choices.Recurrence, "weights": synth.Choices.Weights, "locations": synth.Choices.Locations} {
		flagValues(fs, name, vals...)
	}
	declareOutput(fs, &f.out)
	markRequired(fs, "output", "-o OUT", "an .aimodel directory, .mlirb, .mlir, or - for stdout")
	declareEmit(fs, &f.emit)
	declareForce(fs, &f.force)
}

// runSynth is `anefix synth`.
func runSynth(env *Env, f *synthFlags, args []string) error {
	if len(args) != 0 {
		return usagef("synth takes no positional arguments (got %q); name the output with -o", args[0])
	}
	plan, err := planOutput(env, f.out, nil, f.emit, 0, f.force)
	if err != nil {
		return err
	}
	a, err := synth.ParseArm(f.arm)
	if err != nil {
		return usagef("--arm: %v", err)
	}
	if f.layers < 0 {
		return usagef("--layers must be positive, got %d", f.layers)
	}
	if f.ctx < 0 {
		return usagef("--ctx must be positive, got %d", f.ctx)
	}
	o := synth.Options{Arm: a, Scale: synth.Scale(f.scale), Layers: f.layers, Ctx: f.ctx, Seed: f.seed, StateForm: f.stateForm, Recurrence: f.recurrence, StateRead: f.stateRead, Locations: f.locations, Weights: f.weights,
		NoTrainedGates: !f.trainedGates, NoMassiveActivations: !f.massive}
	if err := o.Check(); err != nil {
		// run prefixes "anefix synth: " already.
		return usagef("%s", strings.TrimPrefix(err.Error(), "synth: "))
	}
	m, err := synthd.Generate(o)
	if err != nil {
		return err
	}
	var prog *os.File
	if env.StderrIsTTY {
		prog = os.Stderr
	}
	meta, err := synth.Metadata(o)
	if err != nil {
		return err
	}
	_, err = plan.Save(m, nil, modelio.SaveOptions{
		Stdout: env.Stdout, Progress: prog,
		Files: map[string][]byte{"metadata.json": meta},
	})
	return err
}
