// Package ane is anefix's model of what Apple's Neural Engine compiler
// (coreai-build) accepts. It gives every op of every graph a verdict from
// one versioned rule table (Rules), groups the findings so a person can act
// on them, predicts how many Neural Engine regions the compiler will write,
// lists the seed's unconfirmed suspects for the arm-D blocker, and maps the
// real compiler's diagnostics (package compilerlog) back to ops.
//
// Like every pass it never opens a file and never prints; cmd/anefix does.
//
// Everything here is a prediction. The real answer is `anefix compile` on a
// Mac; the rule table records, for each rule, what it rests on.
package ane

import (
	"strings"

	"github.com/anefix/anefix/graph/coreaiop"
)

// RuleSetVersion names this rule table. Bump it whenever a rule's condition
// changes, so reports say which model produced them.
const RuleSetVersion = "ane-rules-4 (calibrated to coreai-build 3600.83.1, per architecture)"

// CompilerVersion is the coreai-build whose observed behaviour the region
// prediction follows.
const CompilerVersion = "3600.83.1"

// Severity says what a finding means for the prediction.
type Severity int

const (
	// Blocker: the op makes the graph's Neural Engine compile fail (under
	// the observed behaviour) or splits it (under a partitioning compiler).
	Blocker Severity = iota
	// Suspect: unconfirmed; never changes a verdict or the exit code.
	Suspect
	// Info: worth knowing, no effect on the prediction.
	Info
	// Hazard: the fp16 numbers may go wrong (hazards.go); advisory, kept
	// apart from the legality findings, never changes a verdict or the
	// exit code.
	Hazard
	// Advice: performance guidance (calib.go); kept apart like hazards,
	// never changes a verdict, a region prediction or the exit code.
	Advice
)

func (s Severity) String() string {
	switch s {
	case Blocker:
		return "blocker"
	case Suspect:
		return "suspect"
	case Hazard:
		return "hazard"
	case Advice:
		return "advice"
	}
	return "info"
}

// Rule is one row of the table.
type Rule struct {
	ID    string // stable code: "element-type"; reports use "ane."+ID
	Title string // short human title
	// Message is what the finding says. When CompilersWords is set it is the
	// compiler's own wording (so a user can search their log for it);
	// otherwise it is anefix's wording because no compiler message is on
	// record.
	Message        string
	CompilersWords bool
	// Evidence says which public record or measurement the rule rests on.
	Evidence string
	// Fix is the anefix pass that removes the finding ("" when none).
	Fix      string
	Severity Severity
	// Experiment (suspects) is what to run on a Mac to settle the question.
	Experiment string
	// ExperimentRewrite, when set, makes the experiment one rewrite: the
	// arguments after `anefix rewrite IN -o OUT` (before --compile). check
	// prints the whole command with the input's path (RewriteCommand).
	ExperimentRewrite []string
	// FromCompiler marks rows that classify compiler diagnostics only (the
	// rule model itself never emits them).
	FromCompiler bool
}

// The rules, in report order. Conditions are implemented in check.go; each
// function there names the rule it implements.
var (
	RuleElementType = &Rule{
		ID:             "element-type",
		Title:          "element type the Neural Engine cannot hold",
		Message:        "Incompatible element type for ANE: expected fp16, f8E4M3, si8, ui8, si16, or ui16",
		CompilersWords: true,
		Evidence: "coreai-build 3600.83.1 ane_validation_message (coreai-facts §1, §4). Calibrated on the seed: " +
			"arms A–C cite the casts that open the gated-delta recurrence (models/macos/qwen3_5.py:199 via " +
			"qwen3_5_ios.py:290; arm C: 5 layers, 30 warnings = 6 per layer); the builder's fp32 norms and RoPE are " +
			"never cited and arm D, which kept them, had 0 warnings; arm D's si32 in_step was not cited. So: an fp32 " +
			"island is reported (at the ops that open it) when it holds a graph port or is a round trip through a " +
			"buffer the graph is given (read, updated in fp32, written back); other fp32 chains are suspects; integer " +
			"values that only feed axes/shape/index operands or casts are skipped",
		Fix:      "strip-fp32-casts",
		Severity: Blocker,
	}
	RuleIOOp = &Rule{
		ID:             "io-op",
		Title:          "graph input/output passes through a squeeze/expand_dims, cast or non-ANE type",
		Message:        "ANE I/O op isn't a squeeze / expandDims",
		CompilersWords: true,
		Evidence: "coreai-build 3600.83.1 warning (coreai-facts §1); seed arms A–C cite it at unsqueeze_*, _to_copy_* " +
			"and add_* ops on the graph boundary. Modelled as: an op that reads a graph input or produces a graph " +
			"output must not be coreai.expand_dims / coreai.shrink_dims (fold-io-unsqueeze folds them into the " +
			"port), and must not read or write the port in a non-ANE element type, as a boundary cast or add on " +
			"an fp32 port does (strip-fp32-casts); integer inputs that only feed indices are not ports in this sense. " +
			"Per architecture (calib.go): a blocker under h18p's all-or-nothing model; under h16g a GPU island, since " +
			"Granite-Embedding-97M with an fp32 pooled output still got 1 region (4rg0naut/silicon-ledger-public " +
			"results/EXP-005-ane-residency/README.md, v1/v2)",
		Fix:      "fold-io-unsqueeze",
		Severity: Blocker,
	}
	RuleRank = &Rule{
		ID:       "rank",
		Title:    "tensor rank above 5",
		Message:  "tensor of rank > 5: the Neural Engine takes at most 5 dimensions",
		Evidence: "coreai-facts §4 (Apple's iOS builders keep every tensor at rank ≤ 5, e.g. the 5-D KV cache); no compiler message on record. Apple's authoring guide states the limit (apple/coreai-models skills/skills/model-authoring/references/neural_engine_rules.md: intermediates of rank 6 or more are rejected); no measured compile of a rank-6 graph is on record. Compressed-weight storage (a lut_to_dense LUT, rank + 2 of its weight) is not judged",
		Severity: Blocker,
	}
	RuleStatic = &Rule{
		ID:       "static-shape",
		Title:    "dynamic or unranked shape",
		Message:  "dynamic shape: the Neural Engine compiles only fully static shapes (one function per shape)",
		Evidence: "coreai-facts §4 (Apple's iOS export writes one static function per (context, query) shape); no compiler message on record",
		Severity: Blocker,
	}
	RuleNoLowering = &Rule{
		ID:       "no-lowering",
		Title:    "op outside the coreai dialect",
		Message:  "op has no Neural Engine lowering: coreai-build compiles coreai dialect ops",
		Evidence: "coreai-facts §2 (the coreai op set coreai-torch and mlx2coreai emit); no compiler message on record",
		Severity: Blocker,
	}
	RuleLinearInt4 = &Rule{
		ID:    "linear-int4",
		Title: "linear blockwise INT4 weights (blockwise_shift_scale)",
		Message: "ANECCompileOffline() failed: OSStatus=0, aneCompileStatus=1 (empty ErrorList) for linear-INT4 weights; " +
			"the palettized (lut_to_dense) program of the same structure compiles",
		CompilersWords: false,
		Evidence:       "apple/coreai-models #55 (SIGSEGV in 3600.67) and #205 (exit 0, GPU-only .aimodelc, 3600.82.1)",
		Fix:            "legalize-weights",
		Severity:       Blocker,
	}
	RuleUnverifiedOp = &Rule{
		ID:       "unverified-op",
		Title:    "coreai op not seen in a graph that compiled for the Neural Engine",
		Message:  "no record either way of this op on the Neural Engine",
		Evidence: "the op table's rows marked seen (graph/coreaiop: Op.Seen) were seen in Apple's iOS builders (arm E compiles 19/19) or in the seed's graphs",
		Severity: Info,
	}
	SuspectTiedHead = &Rule{
		ID:    "suspect.tied-head-constant",
		Title: "tied embedding/LM head as an in-graph constant",
		Message: "UNCONFIRMED: the tied embedding/head table is an in-graph constant of this graph; " +
			"Apple's extend passes the embedding table as an input instead",
		Evidence: "seed arm D: untested candidate for the second blocker (248320×1024 head as an in-graph constant in a single main)",
		Severity: Suspect,
		Experiment: "the table becomes a graph input (Apple's extend signature); compare the regions with the default " +
			"rewrite's; anefix verify feeds the input the table's values",
		ExperimentRewrite: []string{"--enable", "externalize-constant"},
	}
	SuspectFp32Chain = &Rule{
		ID:    "suspect.fp32-chain",
		Title: "inline fp32 chain between casts (norms, RoPE)",
		Message: "UNCONFIRMED: fp32 chain bounded by casts inside the graph; the compiler never cited these, " +
			"but they remain fp32",
		Evidence: "seed arm D: untested candidate for the second blocker (inline fp32 norm chains)",
		Fix:      "strip-fp32-casts",
		Severity: Suspect,
		Experiment: "converts these chains to fp16 too (islands=norms takes the normalization chains only); " +
			"compare the regions with the default rewrite's",
		ExperimentRewrite: []string{"--set", "strip-fp32-casts.islands=all"},
	}
	SuspectStateWrite = &Rule{
		ID:    "suspect.state-write",
		Title: "slice_update writes into a state",
		Message: "UNCONFIRMED: a slice_update (`slice_update %x with %u at (…)`) updates a buffer the graph is given and " +
			"the result is stored back (write_handle on the state's handle, or returned as the state's new value), " +
			"other than the rank-5 KV-cache states Apple's dense control writes and compiles",
		Evidence: "seed arm D: untested candidate for the second blocker (the seed's note calls these " +
			"mutable_slice_update state writes; no such op is in the IR, where a state write is slice_update " +
			"then write_handle, or slice_update returned as a state output, coreai-facts §0); " +
			"arm E's KV-cache writes compile 19/19, so those are not listed",
		Severity: Suspect,
		Experiment: "the conv/recurrent states become a plain input and output, so the update is returned instead " +
			"of written (handle states too); compare the regions with the default rewrite's",
		ExperimentRewrite: []string{"--enable", "states-as-outputs"},
	}
	// fp16 hazards (hazards.go): advisory, about the numbers, not placement.
	HazardRange = &Rule{
		ID:    "fp16.out-of-range",
		Title: "constant that is ±inf or beyond the fp16 range (|x| > 65504)",
		Message: "constant holds -inf/+inf or a magnitude past 65504, fp16's largest finite value (e.g. an attention " +
			"mask written as -inf or -1e9): in fp16 it is ±inf (or saturates to ±65504), and inf - inf = NaN, as in a " +
			"softmax's max subtraction over a row that is masked throughout",
		Evidence: "IEEE 754 binary16 (graph/f16): largest finite value 65504; |x| >= 65520 rounds to ±inf. f16 " +
			"constants are checked for ±inf, wider ones also for finite values past 65504",
		Severity: Hazard,
	}
	HazardFlush = &Rule{
		ID:       "fp16.flush-to-zero",
		Title:    "nonzero constant that rounds to zero in fp16",
		Message:  "constant holds nonzero values whose fp16 rounding is ±0 (|x| < 2^-25): converted to fp16 they vanish",
		Evidence: "IEEE 754 binary16 (graph/f16): smallest subnormal 2^-24 ≈ 5.96e-08, so nonzero |x| < 2^-25 rounds to ±0; checked on constants wider than f16",
		Severity: Hazard,
	}
	HazardExp = &Rule{
		ID:    "fp16.exp-overflow",
		Title: "exp of an input proven able to exceed ln(65504) ≈ 11.09",
		Message: "exp whose input can exceed ln(65504) ≈ 11.09 overflows fp16 to +inf; the bound is proven from the graph " +
			"(constants, clamps as broadcasting_maximum/minimum, data movement, add/sub/mul of bounded values), never guessed",
		Evidence: "IEEE 754 binary16: exp(x) > 65504 for x > ln(65504) ≈ 11.0898; inputs without a provable bound are not reported",
		Severity: Hazard,
	}
	// Rows for compiler diagnostics the model does not predict.
	RuleReorder = &Rule{
		ID:             "reorder-distance",
		Title:          "scheduler reordering limit reached",
		Message:        "Reached maxReorderingDistance",
		CompilersWords: true,
		Evidence:       "seed arm D: ×7 at the residual adds, in a compile that failed for another reason; not known to block",
		Severity:       Info,
		FromCompiler:   true,
	}
	RuleCompilerOther = &Rule{
		ID:           "compiler-other",
		Title:        "other compiler diagnostic",
		Message:      "diagnostic the rule table has no row for",
		Evidence:     "the compiler's stderr",
		Severity:     Info,
		FromCompiler: true,
	}
)

// Rules is the table, in report order.
var Rules = []*Rule{
	RuleElementType, RuleIOOp, RuleRank, RuleStatic, RuleNoLowering, RuleLinearInt4,
	SuspectTiedHead, SuspectFp32Chain, SuspectStateWrite,
	RuleUnverifiedOp, RuleReorder, RuleCompilerOther,
	HazardRange, HazardFlush, HazardExp,
	RuleLUT4SmallGroup, RuleMetalKernel, RuleFp32GatherTable, AppleSilu, AppleGatherRoPE,
	AdviceAlignment, AdviceSingletonLast, AdviceSoftmaxAxis, AdviceLinear,
}

// RewriteCommand is the experiment as one shell command: anefix rewrite on
// in, writing out, with ExperimentRewrite and --compile; quote makes a
// path one shell word. "" when the rule has no rewrite experiment.
func (r *Rule) RewriteCommand(in, out string, quote func(string) string) string {
	if len(r.ExperimentRewrite) == 0 {
		return ""
	}
	parts := []string{"anefix", "rewrite", quote(in), "-o", quote(out)}
	for _, a := range r.ExperimentRewrite {
		parts = append(parts, quote(a))
	}
	return strings.Join(append(parts, "--compile"), " ")
}

// ExperimentText is the experiment as the rule table states it: the
// command with IN and OUT standing for the paths, then Experiment.
func (r *Rule) ExperimentText() string {
	cmd := r.RewriteCommand("IN", "OUT", func(s string) string { return s })
	switch {
	case cmd == "":
		return r.Experiment
	case r.Experiment == "":
		return "on a Mac: `" + cmd + "`"
	}
	return "on a Mac: `" + cmd + "`: " + r.Experiment
}

// RuleByID finds a rule.
func RuleByID(id string) *Rule {
	for _, r := range Rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}

func ruleOrder(r *Rule) int {
	for i, x := range Rules {
		if x == r {
			return i
		}
	}
	return len(Rules)
}

// isKnownCoreAIOp reports whether the op table (graph/coreaiop) records op
// name as seen in a graph that compiled for the Neural Engine (Apple's iOS
// builders, the seed's graphs; testdata/mlir/coreai/README.md). Other coreai
// ops get an unverified-op info finding, not a blocker.
func isKnownCoreAIOp(name string) bool {
	o := coreaiop.Lookup(name)
	return o != nil && o.Seen
}

// Rules added by the calibration against published compiles (calib.go
// implements them; testdata/calibration holds the cases they were checked
// on). Sources are named by repository and path; the figures are the
// sources', not anefix's.
var (
	RuleLUT4SmallGroup = &Rule{
		ID:    "lut4-small-group",
		Title: "4-bit palettized weights with fewer than 32 channels per palette",
		Message: "4-bit lut_to_dense whose palettes each cover fewer than 32 channels: published compiles of such " +
			"weights wrote no Neural Engine region at all (ANECCompileOffline() failed … CompilationFailure; coreai-build exits 0)",
		Evidence: "4rg0naut/coreai-model-zoo knowledge/ane-vs-gpu-iphone-2026-09.md §9 (MiniCPM5-2B, coreai-build 3600.83.1, " +
			"iOS h18p): 4-bit group 8 and mixed 4-bit g8 + 8-bit → 0 regions; 4-bit g32, mixed 4-bit g32 + 8-bit, 6-bit g8 and " +
			"8-bit g32 → 31/31. 4rg0naut/silicon-ledger-public results/EXP-005-ane-residency/README.md step 7 (Granite-Embedding-97M, " +
			"3600.83.1, macOS h16g): 4-bit group 16 → 0, 6-bit 14, 8-bit 13. The group is read from lut_to_dense's operand shapes " +
			"by passes.LUTGroup, the definition palettize uses too (indices [d…], lut [g…, P, V]: the decompressed weight's dim / lut dim " +
			"channels share a palette, apple/coreai-torch coreai_torch/_compression/custom_layers.py); P = 16 is 4-bit. Guess: a per-tensor palette (no dimension split) is " +
			"not reported, no record covers it; the g32 boundary is measured on h18p only",
		Fix:      "",
		Severity: Blocker,
		Experiment: "re-export with 32 or more channels per 4-bit palette (coreai.llm.export --compression " +
			"4bit_weight_palettized_group32) or 6/8 bits, or palettize the fp16 export with anefix rewrite --enable palettize " +
			"(its defaults are 4-bit, 32 channels), then `anefix compile --require-ane`",
	}
	RuleMetalKernel = &Rule{
		ID:       "metal4-kernel",
		Title:    "custom Metal kernel (metal4_kernel)",
		Message:  "coreai.metal4_kernel runs Metal shader code, which only the GPU executes: the function is predicted GPU-only (0 regions)",
		Evidence: "john-rocky/coreai-model-zoo cli/DOCTOR_RULES.md GRAPH-CUSTOM-METAL-KERNEL (custom MSL is GPU-only by construction; no build or region count given). Guess: that the whole function, not only the kernel, leaves the Neural Engine; no compile of a function mixing both is on record",
		Severity: Blocker,
	}
	RuleFp32GatherTable = &Rule{
		ID:    "fp32-gather-table",
		Title: "fp32 embedding/gather table",
		Message: "gather from a table held in fp32: with the embedding table kept in float32 the published compile " +
			"wrote 0 Neural Engine regions and ran the whole graph on the GPU",
		Evidence: "4rg0naut/coreai-model-zoo knowledge/ane-vs-gpu-iphone-2026-09.md §5 and §7 (Qwen3-1.7B, coreai-build 3600.83.1, " +
			"iOS h18p, --disable-embedding-quantization-ios): 0 regions; the same export with the table quantized (int8) 31/31. " +
			"Under h16g's partitioning model the gather is one more fp32 island",
		Severity:   Blocker,
		Experiment: "keep the table quantized (the iOS export's int8 default) or fp16; no anefix pass rewrites a constant table's type",
	}
	AppleSilu = &Rule{
		ID:    "apple.silu",
		Title: "silu (Apple's guidance: write x·sigmoid(x))",
		Message: "Apple's authoring guide says silu lowers to ops the Neural Engine refuses and to write x·sigmoid(x); " +
			"CONTRADICTED on h18p: Apple's own iOS MLP uses silu and that model compiled 19/19 regions",
		Evidence: "apple/coreai-models skills/skills/model-authoring/references/common_issues.md (silu → mps.cast + mps.swish f32 + " +
			"mps.cast). Contradicting measurement: apple/coreai-models python/src/coreai_models/primitives/ios/mlp.py calls " +
			"nn.functional.silu, and the seed note's arm E (Apple's stock Qwen3-0.6B iOS, coreai-build 3600.83.1, h18p) got 19/19 " +
			"regions. Kept as info: no verdict rests on it",
		Severity: Info,
	}
	AppleGatherRoPE = &Rule{
		ID:    "apple.gather-rope",
		Title: "in-graph gather_nd of a 2-D table giving a rank-3 result (Apple's RoPE guidance)",
		Message: "Apple's authoring guide says indexing a 2-D cos/sin table with position ids (gather_nd, rank-3 result) is " +
			"rejected; CONTRADICTED on h18p: Apple's own iOS RoPE gathers exactly so and that model compiled 19/19 regions",
		Evidence: "apple/coreai-models skills/skills/model-authoring/references/neural_engine_rules.md (RoPE) and common_issues.md. " +
			"Contradicting measurement: apple/coreai-models python/src/coreai_models/export/mlir_ops.py lowers " +
			"rope_gather_cached_cos_sin to gather_nd of the 2-D cache with [B, S, 1] indices, and the seed note's arm E " +
			"(coreai-build 3600.83.1, h18p) got 19/19. Kept as info: no verdict rests on it",
		Severity: Info,
	}
	// Performance advice (Apple's guidance; no measurement of its effect on
	// regions): never changes a verdict, a prediction or the exit code.
	AdviceAlignment = &Rule{
		ID:       "perf.io-alignment",
		Title:    "graph input/output whose last axis is not a multiple of 64 bytes",
		Message:  "the Neural Engine pads the last axis of inputs and outputs to 64 bytes; a last axis that is not a multiple of 64 bytes costs padding",
		Evidence: "apple/coreai-models skills/skills/model-authoring/references/neural_engine_rules.md (tensor memory alignment); performance only",
		Severity: Advice,
	}
	AdviceSingletonLast = &Rule{
		ID:       "perf.singleton-last-axis",
		Title:    "graph input/output whose last axis is 1",
		Message:  "a last axis of size 1 is padded to 64 bytes (32× the memory at fp16); move a larger dimension last",
		Evidence: "apple/coreai-models skills/skills/model-authoring/references/neural_engine_rules.md (tensor memory alignment); checked on graph inputs and outputs of rank ≥ 2 only (the guide lets intermediates that stay in L2 be narrower); performance only",
		Severity: Advice,
	}
	AdviceSoftmaxAxis = &Rule{
		ID:    "perf.softmax-axis",
		Title: "softmax over a spatial axis of a rank-4 tensor",
		Message: "softmax over a spatial axis (not axis 1, the channel axis of B,C,H,W) limits how the compiler splits " +
			"large tensors; Apple advises the channel axis",
		Evidence: "apple/coreai-models skills/skills/model-authoring/references/neural_engine_rules.md (softmax placement); the same " +
			"guide's per-head attention example applies softmax on the last axis, so this is advice for large tensors only",
		Severity: Advice,
	}
	AdviceLinear = &Rule{
		ID:       "perf.linear-not-conv",
		Title:    "matmul against a constant weight (a linear layer) instead of a 1×1 conv2d",
		Message:  "a linear layer is decomposed into less efficient ops; a 1×1 conv2d maps to the Neural Engine's convolution engine",
		Evidence: "apple/coreai-models skills/skills/model-authoring/references/neural_engine_rules.md (Conv2d instead of Linear); performance only",
		Severity: Advice,
	}
)
