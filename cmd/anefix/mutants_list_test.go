package main

// mutants is the mutation suite's list of deliberate bugs (TestMutants,
// mutants_test.go). Each is the kind of slip a real change makes; find
// must occur exactly once in file (a refactor that moves it makes the
// suite fail until the anchor is updated), and every catch must fail on
// the mutated tree and pass on the unmutated one. The first seven are
// issue 30's; the rest cover the codecs, the passes, check and verify.
//
// Anchors are kept to small, stable spots (one line or a short block), so
// that the refactors of issue 30 move as few of them as possible.
var mutants = []mutant{
	{
		name:    "islands-no-round-trip",
		file:    "passes/anefacts/islands.go",
		find:    "f.WrittenInputs(u.Op.Result(0), is.writes)",
		replace: "// round-trip evidence dropped",
		breaks:  "an island that reads and writes back one input buffer (the recurrence) no longer has a Why: check stops naming it, strip-fp32-casts' islands=blockers stops retyping it",
		catch:   []mutantCatch{{"./passes/ane", "TestRuleElementType$"}, {"./cmd/anefix", "TestProperties$"}},
	},
	{
		name:    "pass-refuses-every-model",
		file:    "passes/residual_scale.go",
		find:    "func residualScale(m *graph.Module, opts *residualScaleOptions) (*Change, error) {\n",
		replace: "func residualScale(m *graph.Module, opts *residualScaleOptions) (*Change, error) {\n\tfor _, g := range graph.EntryGraphs(m, graph.EntryNotPrivate) {\n\t\treturn nil, fmt.Errorf(\"graph @%s: residual-scale: no residual stream found; what to do: leave the pass off\", g.Name())\n\t}\n",
		breaks:  "residual-scale refuses every model with a clear message naming @main (a refusal composition used to accept)",
		catch:   []mutantCatch{{"./passes", "TestResidualScale"}, {"./cmd/anefix", "TestPassComposition$"}},
	},
	{
		name:    "pass-errors-on-every-model",
		file:    "passes/fold_io_unsqueeze.go",
		find:    "\t\tf.graph(g)\n\t}\n\treturn f.ch, nil\n",
		replace: "\t\tf.graph(g)\n\t}\n\treturn f.ch, fmt.Errorf(\"fold-io-unsqueeze: %d index-only rank ops left\", len(f.indexLeft))\n",
		breaks:  "fold-io-unsqueeze returns an error on every model",
		catch:   []mutantCatch{{"./passes", "TestFoldIOUnsqueeze$"}, {"./graph/interp/compare", "TestStructuralPassesBitIdentical$"}},
	},
	{
		name:    "pass-quadratic-scan",
		file:    "passes/fold_casts.go",
		find:    "\tfor _, op := range casts {\n\t\tif op.IsErased() {\n",
		replace: "\tfor i, op := range casts {\n\t\tdup := false\n\t\tfor _, prev := range casts[:i] {\n\t\t\tdup = dup || prev == op\n\t\t}\n\t\tif dup || op.IsErased() {\n",
		breaks:  "fold-casts scans every earlier cast for each cast (a dedup by linear search): quadratic in the casts, same output",
		catch:   []mutantCatch{{"./passes", "TestPassStatementsLinear$"}},
	},
	{
		name:    "dce-reads-every-blob",
		file:    "passes/dce.go",
		find:    "\t\t\tkeep = append(keep, r)\n",
		replace: "\t\t\tif _, err := r.Bytes(); err != nil {\n\t\t\t\treturn nil, fmt.Errorf(\"resource %q: %v\", r.Key, err)\n\t\t\t}\n\t\t\tkeep = append(keep, r)\n",
		breaks:  "dce reads each blob it keeps (a readability check): every weight is read once more per rewrite",
		catch:   []mutantCatch{{"./passes", "TestPassReadsOnlyConvertedBlobs$"}},
	},
	{
		name:    "states-swap-two-pairs",
		file:    "graph/states.go",
		find:    "sort.SliceStable(sa.Pairs, func(i, j int) bool { return sa.Pairs[i].In < sa.Pairs[j].In })\n",
		replace: "sort.SliceStable(sa.Pairs, func(i, j int) bool { return sa.Pairs[i].In < sa.Pairs[j].In })\n\tif len(sa.Pairs) > 1 && sa.Pairs[0].Form == sa.Pairs[1].Form {\n\t\tsa.Pairs[0].Out, sa.Pairs[1].Out = sa.Pairs[1].Out, sa.Pairs[0].Out\n\t\tsa.Pairs[0].OutName, sa.Pairs[1].OutName = sa.Pairs[1].OutName, sa.Pairs[0].OutName\n\t}\n",
		breaks:  "the first two state pairs of a graph swap outputs: each state's new value is taken from the other's output",
		catch:   []mutantCatch{{"./graph", "TestStatesTwoLayersSameType$"}, {"./passes", "TestPromoteStates"}, {"./cmd/anefix", "TestHandleStatesEndToEnd$|TestStatesTestdataRoundTrip$"}},
	},
	{
		name:    "printer-drops-arg-loc",
		file:    "graph/mlirtext/print.go",
		find:    "\t\tif !decl {\n\t\t\tpr.loc(r.Blocks[0].Arg(i).Loc)\n\t\t}\n",
		replace: "",
		breaks:  "the text printer drops the location of a function-like op's arguments (graph inputs)",
		catch:   []mutantCatch{{"./graph/mlirtext", "TestDebuginfoLocations$|TestFixedPoint$"}},
	},
	// Ten more: codecs.
	{
		name:    "bytecode-unzigzag-sign",
		file:    "graph/bytecode/wire.go",
		find:    "func unzigzag(v uint64) int64 { return int64(v>>1) ^ -int64(v&1) }",
		replace: "func unzigzag(v uint64) int64 { return int64(v>>1) ^ int64(v&1) }",
		breaks:  "the bytecode reader decodes negative signed varints wrong (-1 reads as 1)",
		catch:   []mutantCatch{{"./graph/bytecode", "TestBigAttrRoundTrip$|TestDecodedAsText$"}},
	},
	{
		name:    "bytecode-writer-pads-zero",
		file:    "graph/bytecode/wire.go",
		find:    "\t\t\t\tout = append(out, alignmentByte)\n\t\t\t\tcur++\n",
		replace: "\t\t\t\tout = append(out, 0)\n\t\t\t\tcur++\n",
		breaks:  "the bytecode writer pads an aligned section with 0x00 instead of MLIR's 0xCB",
		catch:   []mutantCatch{{"./graph/bytecode", "TestAlignmentLimit$|TestRemovedResource$"}},
	},
	{
		name:    "mlirtext-unquote-hex-escape",
		file:    "graph/mlirtext/lexer.go",
		find:    "\t\t\tb = append(b, byte(v))\n\t\t\ti++\n",
		replace: "\t\t\tb = append(b, byte(v))\n",
		breaks:  "a \\XX escape in a quoted string keeps its second hex digit as a character",
		catch:   []mutantCatch{{"./graph/mlirtext", "TestQuoteUnquote$"}},
	},
	{
		name:    "f16-ties-away",
		file:    "graph/f16/f16.go",
		find:    "half := uint32(1) << (shift - 1)\n\tif rem > half || (rem == half && q&1 == 1) {",
		replace: "half := uint32(1) << (shift - 1)\n\tif rem >= half {",
		breaks:  "float32 to half rounds ties away from zero instead of to even",
		catch:   []mutantCatch{{"./graph/f16", "TestTiesToEven$|TestAgainstNumpy$"}},
	},
	// Passes.
	{
		name:    "fold-casts-swapped-widening",
		file:    "passes/fold_casts.go",
		find:    "exactWidening(graph.ElementType(x0.Type()), graph.ElementType(x.Type()))",
		replace: "exactWidening(graph.ElementType(x.Type()), graph.ElementType(x0.Type()))",
		breaks:  "fold-casts asks whether the outer cast widens instead of the inner one: it folds a rounding f32→f16→f32 and keeps an exact f16→f32→f16",
		catch:   []mutantCatch{{"./passes", "TestFoldCasts"}},
	},
	{
		name:    "strip-clamp-inverted",
		file:    "passes/strip_fp32_casts.go",
		find:    "if st.Overflow > 0 && !sf.clamp {",
		replace: "if st.Overflow > 0 && sf.clamp {",
		breaks:  "strip-fp32-casts turns an out-of-range f32 constant into ±inf silently and refuses when asked to clamp",
		catch:   []mutantCatch{{"./passes", "TestStripFP32Casts$"}},
	},
	{
		name:    "scale-state-write-sign",
		file:    "passes/scale_state.go",
		find:    "wr, err := ssMul(v, -k, term.Loc",
		replace: "wr, err := ssMul(v, k, term.Loc",
		breaks:  "scale-state multiplies a state by 2^k on the write as on the read: the stored state grows 4^k a step",
		catch:   []mutantCatch{{"./passes", "TestScaleState"}},
	},
	// check: a rule and the calibration.
	{
		name:    "rule-rank-off-by-one",
		file:    "passes/ane/rule_rank.go",
		find:    "t.Rank() > 5 &&",
		replace: "t.Rank() > 6 &&",
		breaks:  "check's rank rule lets a rank-6 tensor through",
		catch:   []mutantCatch{{"./passes/ane", "TestRuleRank$"}},
	},
	{
		name:    "calib-runs-merge",
		file:    "passes/ane/calib.go",
		find:    "\t\tif bad {\n\t\t\tin = false\n",
		replace: "\t\tif bad {\n",
		breaks:  "the partitioning model joins the runs on either side of a GPU island: one region where h16g compiled several",
		catch:   []mutantCatch{{"./passes/ane", "TestCalibration$|TestArchitectureRegions$"}},
	},
	// verify: metrics, KL, teacher forcing, the gate.
	{
		name:    "psnr-sign",
		file:    "graph/interp/compare/compare.go",
		find:    "return 20*math.Log10(peak) - 10*math.Log10(mse)",
		replace: "return 20*math.Log10(peak) + 10*math.Log10(mse)",
		breaks:  "verify's PSNR adds the error's log instead of subtracting it: more error reads as more dB",
		catch:   []mutantCatch{{"./graph/interp/compare", "TestFP16SafeReductionsVerify$"}},
	},
	{
		name:    "kl-swapped-operands",
		file:    "graph/interp/compare/teacher.go",
		find:    "kl += p * (a - lc[i])",
		replace: "kl += p * (lc[i] - a)",
		breaks:  "the teacher-forced KL divergence has its log ratio reversed (always ≤ 0, clamped to 0): every gate on KL passes",
		catch:   []mutantCatch{{"./graph/interp/compare", "TestTeacherMeasuresMatchNumpy$"}},
	},
	{
		name:    "teacher-drops-state-carry",
		file:    "graph/interp/compare/teacher.go",
		find:    "\t\t\tls.lanes[l][i] = t\n\t\t}\n\t}\n\treturn outs, nil\n",
		replace: "\t\t}\n\t}\n\treturn outs, nil\n",
		breaks:  "teacher forcing feeds every position the initial state instead of the previous step's: both sides run a stateless model",
		catch:   []mutantCatch{{"./graph/interp/compare", "TestTeacherPalettizeRanks$|TestScaleStateVerify$"}},
	},
	{
		name:    "gate-either-suffices",
		file:    "cmd/anefix/cmd_verify_teacher.go",
		find:    "(tr.MaxKLD < 0 || r.MeanKLD <= tr.MaxKLD) && (tr.MinSameTop1 < 0",
		replace: "(tr.MaxKLD < 0 || r.MeanKLD <= tr.MaxKLD) || (tr.MinSameTop1 < 0",
		breaks:  "verify's teacher-forced gate passes when either the KL or the same-top-1 gate is met, not both",
		catch:   []mutantCatch{{"./cmd/anefix", "TestVerifyTeacher"}},
	},
	{
		name:    "progress-jumps-over-weights",
		file:    "passes/compress.go",
		find:    "stop := countReads(ctx, w, read-w.bytes(), total)",
		replace: "stop := func() {}",
		breaks:  "a compression's progress moves only between weights: the bar stands still through an embedding (a third of a model, seconds at full scale)",
		catch:   []mutantCatch{{"./passes", "TestCompressProgress$"}},
	},
}
