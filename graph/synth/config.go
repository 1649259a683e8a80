package synth

import (
	"github.com/anefix/anefix/graph/nearest"

	"fmt"
	"slices"
	"strings"
)

// Arm selects which of the seed's experiment graphs to build
// (README "Test graphs").
type Arm byte

const (
	// ArmA is the community iOS builder's hybrid main graph as-is: conv/rec
	// state as plain graph I/O, KV caches as states.
	ArmA Arm = 'A'
	// ArmB is A with conv/rec as states too.
	ArmB Arm = 'B'
	// ArmC is A cut to its first 6 layers.
	ArmC Arm = 'C'
	// ArmD is A after the arm-D pass (recurrence, per-head SDPA and RoPE
	// replaced by shape-preserving pass-throughs).
	ArmD Arm = 'D'
	// ArmE is the control: an Apple-style dense Qwen3-0.6B-shaped decoder,
	// fp16 end to end, BC1S, 19 static functions.
	ArmE Arm = 'E'
)

// ParseArm reads "A".."E" (case-insensitive).
func ParseArm(s string) (Arm, error) {
	if len(s) == 1 {
		a := Arm(strings.ToUpper(s)[0])
		if a >= ArmA && a <= ArmE {
			return a, nil
		}
	}
	return 0, fmt.Errorf("unknown arm %q: want one of A, B, C, D, E%s", s, nearest.Hint(s, Arms(), ""))
}

// Arms names every arm, in order (for completion and suggestions).
func Arms() []string {
	var out []string
	for a := ArmA; a <= ArmE; a++ {
		out = append(out, a.String())
	}
	return out
}

func (a Arm) String() string { return string(rune(a)) }

// Scale selects model dimensions.
type Scale string

const (
	// Tiny has small dims and a small vocabulary: what testdata ships.
	Tiny Scale = "tiny"
	// Full has the real models' dims (Qwen3.5-0.8B for A–D, Qwen3-0.6B for
	// E): about 1.5 GB of fp16 weights for arm A.
	Full Scale = "full"
)

// ParseScale reads "tiny" or "full".
func ParseScale(s string) (Scale, error) {
	if err := oneOf("--scale", s, Choices.Scale); err != nil {
		return "", err
	}
	return Scale(s), nil
}

// Choices are the words each string option of Options takes (the first is
// the default): normalize refuses any other, and anefix synth's flags
// complete and list them.
var Choices = struct{ Scale, StateForm, StateRead, Recurrence, Locations, Weights []string }{
	Scale:      []string{string(Tiny), string(Full)},
	StateForm:  []string{StateTensor, StateHandle},
	StateRead:  []string{stateReadSum, StateReadMatmul},
	Recurrence: []string{recurrenceInline, RecurrenceComposite},
	Locations:  []string{locBuiltin, LocDebugInfo},
	Weights:    []string{weightsF16, WeightsLinearInt4, WeightsPalettized},
}

// oneOf refuses s unless it is one of choices, naming them and the option
// (flag: as anefix synth spells it).
func oneOf(flag, s string, choices []string) error {
	if slices.Contains(choices, s) {
		return nil
	}
	want := strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
	return fmt.Errorf("unknown %s value %q: want %s%s", flag, s, want, nearest.Hint(s, choices, ""))
}

// orDefault is s, or the default (the first choice) when s is empty.
func orDefault(s string, choices []string) string {
	if s == "" {
		return choices[0]
	}
	return s
}

// Options are the generator's inputs. Zero values mean the defaults.
type Options struct {
	Arm   Arm
	Scale Scale // default Tiny
	// Layers overrides the layer count (A, B, D: default the scale's; C:
	// default 6; E: default the scale's).
	Layers int
	// Ctx is the KV-cache / mask length for A–D (default 256) and the largest
	// cache length of E's static ladder 256, 512, … (default 1024).
	Ctx int
	// Seed seeds the weights (default 0 is a valid seed).
	Seed uint64
	// StateForm is how states are typed: StateTensor (default: tensor
	// inputs marked by MutableBuffers.buffer_mutation, as coreai-torch's
	// converter and mlx2coreai emit) or StateHandle (!coreai.handle /
	// !coreai.token with read_handle/write_handle, as after
	// AIProgram.optimize()).
	StateForm string
	// Recurrence is how arms A–D compute the gated-delta step:
	// recurrenceInline (default: the seed's iOS builder, inline f32 ops
	// under qwen3_5_ios.py:290) or RecurrenceComposite (a coreai.invoke of
	// a private `gated_delta_update` composite graph, as the current
	// coreai-models macOS builder exports it).
	Recurrence string
	// Locations is how op locations are written: locBuiltin (default,
	// MLIR fused locations) or LocDebugInfo (coreai-torch's
	// #debuginfo.location dialect attributes; see dialectlocs.go).
	Locations string
	// StateRead is how the gated-delta step reads its state (S·k and S·q):
	// stateReadSum (default: elementwise multiply, then a sum over dim -2,
	// as coreai-torch's gated_delta_update composite computes it, which
	// exercises the narrow reductions of the Neural Engine profile) or
	// StateReadMatmul (batch matmuls, synth's structure before issue 13).
	StateRead string
	// Weights is how the weights are stored: weightsF16 (default, fp16
	// dense_resource blobs), WeightsLinearInt4 (linear blockwise INT4, the
	// form check's linear-int4 rule blocks) or WeightsPalettized (4-bit
	// palettes over groups of 32 channels). graph/synth writes fp16;
	// passes/synthd applies the compression pass (quantize-weights,
	// palettize) that makes the other two, as arm D takes the arm-d pass.
	Weights string
	// NoTrainedGates (A–D) keeps synth's recurrence gates from before issue
	// 29 (dt_bias ~ N(1, 0.5), A_log ~ U(0.1, 2.7): decay exp(g) ≤ 0.24)
	// instead of the trained initialisation (massive.go).
	NoTrainedGates bool
	// NoMassiveActivations (A–D) leaves out the massive residual channels
	// (massive.go): the embedding, MLP and norm weights are i.i.d. again.
	NoMassiveActivations bool
}

// Weight storage forms.
const (
	weightsF16        = "f16"
	WeightsLinearInt4 = "linear-int4"
	WeightsPalettized = "palettized"
)

// State-read forms.
const (
	stateReadSum    = "sum"
	StateReadMatmul = "matmul"
)

// Recurrence forms.
const (
	recurrenceInline    = "inline"
	RecurrenceComposite = "composite"
)

// hybridDims are Qwen3.5-style hybrid decoder dims (arms A–D).
type hybridDims struct {
	Hidden, Intermediate, Vocab, Layers int
	// Full attention.
	Heads, KVHeads, HeadDim, RotaryDim int
	RopeTheta                          float64
	// Gated delta net (linear attention).
	LinKHeads, LinVHeads, LinKDim, LinVDim, ConvKernel int
	Eps                                                float64
}

// fullAttentionInterval: every 4th layer is full attention (Qwen3.5's
// layer_types pattern L, L, L, F).
const fullAttentionInterval = 4

// IsFull reports whether layer i is a full-attention layer.
func (d hybridDims) IsFull(i int) bool { return i%fullAttentionInterval == fullAttentionInterval-1 }

// Counts returns the number of linear and full-attention layers.
func (d hybridDims) Counts() (lin, full int) {
	for i := 0; i < d.Layers; i++ {
		if d.IsFull(i) {
			full++
		} else {
			lin++
		}
	}
	return lin, full
}

// KeyDim is the gated delta net's total key width (heads × dim).
func (d hybridDims) KeyDim() int { return d.LinKHeads * d.LinKDim }

// ValueDim is the gated delta net's total value width.
func (d hybridDims) ValueDim() int { return d.LinVHeads * d.LinVDim }

// ConvDim is the width of the short causal conv (q | k | v).
func (d hybridDims) ConvDim() int { return 2*d.KeyDim() + d.ValueDim() }

// qwen35Full are Qwen3.5-0.8B's text dims (public config.json).
var qwen35Full = hybridDims{
	Hidden: 1024, Intermediate: 3584, Vocab: 248320, Layers: 24,
	Heads: 8, KVHeads: 2, HeadDim: 256, RotaryDim: 64, RopeTheta: 1e7,
	LinKHeads: 16, LinVHeads: 16, LinKDim: 128, LinVDim: 128, ConvKernel: 4,
	Eps: 1e-6,
}

// qwen35Tiny keeps every structural feature of qwen35Full (GQA, partial
// rotary, several heads, kernel 4) at a size whose text form is a few
// hundred KB.
var qwen35Tiny = hybridDims{
	Hidden: 32, Intermediate: 64, Vocab: 256, Layers: 4,
	Heads: 2, KVHeads: 1, HeadDim: 16, RotaryDim: 4, RopeTheta: 1e7,
	LinKHeads: 2, LinVHeads: 2, LinKDim: 8, LinVDim: 8, ConvKernel: 4,
	Eps: 1e-6,
}

// denseDims are Qwen3-style dense decoder dims (arm E).
type denseDims struct {
	Hidden, Intermediate, Vocab, Layers int
	Heads, KVHeads, HeadDim             int
	RopeTheta                           float64
	MaxPositions                        int // rows of the RoPE cos/sin tables
	Eps                                 float64
}

// qwen3Full are Qwen3-0.6B's dims (public config.json).
var qwen3Full = denseDims{
	Hidden: 1024, Intermediate: 3072, Vocab: 151936, Layers: 28,
	Heads: 16, KVHeads: 8, HeadDim: 128, RopeTheta: 1e6, MaxPositions: 40960, Eps: 1e-6,
}

// qwen3Tiny is a small Qwen3-shaped decoder with GQA.
var qwen3Tiny = denseDims{
	Hidden: 32, Intermediate: 64, Vocab: 256, Layers: 2,
	Heads: 2, KVHeads: 1, HeadDim: 16, RopeTheta: 1e6, MaxPositions: 1024, Eps: 1e-6,
}

// Apple's iOS static ladder (coreai-models BaseForCausalLMForiOS).
var (
	// queryBuckets are the static query lengths.
	queryBuckets = []int{8, 16, 64}
	// minCacheLen is the smallest static cache length; it doubles up to ctx.
	minCacheLen = 256
	// gatherLen is the query length of arm E's one gather_embeddings function.
	gatherLen = 64
)

// normalize fills defaults and checks ranges.
func (o Options) normalize() (Options, error) {
	if o.Arm < ArmA || o.Arm > ArmE {
		return o, fmt.Errorf("synth: no arm chosen: want one of A, B, C, D, E")
	}
	o.Scale = Scale(orDefault(string(o.Scale), Choices.Scale))
	o.StateForm = orDefault(o.StateForm, Choices.StateForm)
	o.Recurrence = orDefault(o.Recurrence, Choices.Recurrence)
	o.StateRead = orDefault(o.StateRead, Choices.StateRead)
	o.Locations = orDefault(o.Locations, Choices.Locations)
	o.Weights = orDefault(o.Weights, Choices.Weights)
	for _, c := range []struct {
		flag, v string
		choices []string
	}{
		{"--scale", string(o.Scale), Choices.Scale},
		{"--state-form", o.StateForm, Choices.StateForm},
		{"--recurrence", o.Recurrence, Choices.Recurrence},
		{"--state-read", o.StateRead, Choices.StateRead},
		{"--locations", o.Locations, Choices.Locations},
		{"--weights", o.Weights, Choices.Weights},
	} {
		if err := oneOf(c.flag, c.v, c.choices); err != nil {
			return o, fmt.Errorf("synth: %w", err)
		}
	}
	if o.Recurrence == RecurrenceComposite && o.Arm == ArmE {
		return o, fmt.Errorf("synth: arm E is a dense decoder with no recurrence; --recurrence composite applies to arms A-D")
	}
	if o.Layers < 0 || o.Layers > 512 {
		return o, fmt.Errorf("synth: --layers %d out of range 1..512", o.Layers)
	}
	if o.Ctx == 0 {
		o.Ctx = 256
		if o.Arm == ArmE {
			o.Ctx = 1024
		}
	}
	if o.Arm == ArmE {
		if o.Ctx < minCacheLen || o.Ctx > 1<<16 {
			return o, fmt.Errorf("synth: --ctx %d out of range %d..65536 for arm E", o.Ctx, minCacheLen)
		}
	} else if o.Ctx < 2 || o.Ctx > 1<<20 {
		return o, fmt.Errorf("synth: --ctx %d out of range 2..1048576", o.Ctx)
	}
	return o, nil
}

// hybridDims returns the dims for arms A–D after options.
func (o Options) hybridDims() hybridDims {
	d := qwen35Tiny
	if o.Scale == Full {
		d = qwen35Full
	}
	if o.Arm == ArmC {
		d.Layers = 6
	}
	if o.Layers > 0 {
		d.Layers = o.Layers
	}
	return d
}

// denseDims returns the dims for arm E after options.
func (o Options) denseDims() denseDims {
	d := qwen3Tiny
	if o.Scale == Full {
		d = qwen3Full
	}
	if o.Layers > 0 {
		d.Layers = o.Layers
	}
	if d.MaxPositions < o.Ctx {
		d.MaxPositions = o.Ctx
	}
	return d
}

// Check reports whether o is a valid request (the error Generate would
// return for it before building anything).
func (o Options) Check() error {
	_, err := o.normalize()
	return err
}
