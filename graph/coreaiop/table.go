package coreaiop

// Where the facts come from (files of apple/coreai-torch unless said).
const (
	srcOpsIR    = "tests/ops/test_ops_ir.py"
	srcOps      = "tests/ops/test_ops.py"
	srcStateful = "tests/test_stateful.py"
	srcCompress = "tests/compression/test_compression.py"
	srcCustom   = "coreai_torch/_custom_to_core.py"
	srcAten     = "coreai_torch/_aten_to_core.py"
	srcUtils    = "coreai_torch/_utils.py"
	srcConvert  = "coreai_torch/converter.py"
	srcComposit = "tests/composite_ops/test_gated_delta_update.py"
	srcAnefix   = "anefix's earlier safe-op list (not emitted by coreai-torch: its tests show the op decomposed or absent)"
)

// in is a graph-input operand of type t; k is a constant operand.
func in(t string) Arg       { return Arg{Type: t} }
func k(t, value string) Arg { return Arg{Type: t, Value: value} }
func ex(res string, ops ...Arg) *Example {
	return &Example{Operands: ops, Results: []string{res}}
}

// unary is a one-operand elementwise op that keeps its operand's type.
func unary(name string, seen, torch bool, src string) *Op {
	o := &Op{Name: name, Operands: []Role{Data}, Result: FollowsData, Seen: seen, Torch: torch, Source: src,
		Example: ex("tensor<2x3xF>", in("tensor<2x3xF>"))}
	return o
}

// binary is a broadcasting elementwise op printed with "decomposable.".
func binary(name string, res Result, elem string, seen bool) *Op {
	out := "tensor<2x3x" + elem + ">"
	if res == Bool {
		out = "tensor<2x3xi1>"
	}
	return &Op{Name: name, Decomposable: true, Operands: []Role{Data, Data}, Result: res, Seen: seen, Torch: true, Source: srcOpsIR,
		Example: ex(out, in("tensor<2x3x"+elem+">"), in("tensor<2x3x"+elem+">"))}
}

func reduce(name string, seen bool) *Op {
	return &Op{Name: name, Operands: []Role{Data, Param}, Result: FollowsData, Seen: seen, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2x1xF>", in("tensor<2x5xF>"), k("tensor<1xsi32>", "1"))}
}

// table is every row. Seen follows the ops anefix's rule model has seen in
// graphs that compiled (Apple's iOS builders, the seed's graphs): the
// constant, cast, shape, slicing, gather/scatter_nd, conv2d, pad, softmax,
// the unary ops below marked so, every reduce_* of theirs, the compression
// ops, invoke, output and the state ops, and every broadcasting_* op.
var table = []*Op{
	// Elementwise unary (tests/ops/test_ops_ir.py TestUnaryOpsIR and the
	// per-op classes).
	unary("coreai.abs", true, true, srcOpsIR),
	unary("coreai.acos", false, true, srcOpsIR),
	unary("coreai.acosh", false, true, srcOpsIR),
	unary("coreai.asin", false, true, srcOpsIR),
	unary("coreai.asinh", false, true, srcOpsIR),
	unary("coreai.atan", false, true, srcOpsIR),
	unary("coreai.atanh", false, true, srcOpsIR),
	unary("coreai.cos", true, true, srcOpsIR),
	unary("coreai.cosh", false, true, srcOpsIR),
	unary("coreai.erf", false, true, srcOpsIR),
	unary("coreai.exp", true, true, srcOpsIR),
	unary("coreai.log", true, true, srcOpsIR),
	unary("coreai.round", true, true, srcOpsIR),
	unary("coreai.rsqrt", true, true, srcOpsIR),
	unary("coreai.sin", true, true, srcOpsIR),
	unary("coreai.sinh", false, true, srcOpsIR),
	unary("coreai.sqrt", true, true, srcOpsIR),
	unary("coreai.tan", false, true, srcOpsIR),
	unary("coreai.tanh", true, true, srcOpsIR),
	unary("coreai.relu", true, true, srcOpsIR),
	unary("coreai.sigmoid", true, true, srcOpsIR),
	{Name: "coreai.silu", Operands: []Role{Data}, Result: FollowsData, Seen: true, Torch: true, Source: srcAten,
		Guess:   "printed form: coreai-torch's tests show silu decomposed (sigmoid·x, TestSiluIR); the lowering table maps silu.default to coreai.silu, printed here like abs",
		Example: ex("tensor<2x3xF>", in("tensor<2x3xF>"))},
	{Name: "coreai.gelu", Operands: []Role{Data}, Result: FollowsData, Seen: true, Torch: true, Source: srcOpsIR,
		Example: &Example{Operands: []Arg{in("tensor<2x3xF>")}, Results: []string{"tensor<2x3xF>"}, Props: "approximate = #coreai.approximate<tanh>"}},
	{Name: "coreai.not", Operands: []Role{Data}, Result: Bool, Seen: true, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2x3xi1>", in("tensor<2x3xi1>"))},

	// Names anefix's earlier lists accepted that coreai-torch does not emit.
	unary("coreai.neg", false, false, srcAnefix),
	unary("coreai.ceil", false, false, srcAnefix),
	unary("coreai.floor", false, false, srcAnefix),
	unary("coreai.reciprocal", false, false, srcAnefix),
	unary("coreai.sign", false, false, srcAnefix),
	unary("coreai.square", false, false, srcAnefix),
	{Name: "coreai.clip", Rest: Data, Result: FollowsData, Source: srcAnefix, Guess: "operands (x and its bounds, all of the data's type)"},
	{Name: "coreai.log_softmax", Operands: []Role{Data, Param}, Result: FollowsData, Source: srcAnefix, Guess: "operands (like softmax)"},
	{Name: "coreai.cumsum", Operands: []Role{Data, Param}, Result: FollowsData, Source: srcAnefix, Guess: "operands (coreai-torch lowers cumsum to coreai.scan)"},
	{Name: "coreai.flip", Operands: []Role{Data, Param}, Result: FollowsData, Source: srcAnefix, Guess: "operands (coreai-torch lowers flip to coreai.reverse)"},
	{Name: "coreai.matmul", Operands: []Role{Data, Data}, Result: FollowsData, Source: srcAnefix, Guess: "operands"},

	// Broadcasting binary ops, printed "coreai.decomposable.broadcasting_*".
	binary("coreai.broadcasting_add", FollowsData, "F", true),
	binary("coreai.broadcasting_sub", FollowsData, "F", true),
	binary("coreai.broadcasting_mul", FollowsData, "F", true),
	binary("coreai.broadcasting_divide", FollowsData, "F", true),
	binary("coreai.broadcasting_floor_divide", FollowsData, "F", true),
	binary("coreai.broadcasting_modulo", FollowsData, "F", true),
	binary("coreai.broadcasting_pow", FollowsData, "F", true),
	binary("coreai.broadcasting_maximum", FollowsData, "F", true),
	binary("coreai.broadcasting_minimum", FollowsData, "F", true),
	binary("coreai.broadcasting_equal", Bool, "F", true),
	binary("coreai.broadcasting_not_equal", Bool, "F", true),
	binary("coreai.broadcasting_greater", Bool, "F", true),
	binary("coreai.broadcasting_and", Bool, "i1", true),
	binary("coreai.broadcasting_or", Bool, "i1", true),
	binary("coreai.broadcasting_xor", Bool, "i1", true),
	binary("coreai.broadcasting_bitwise_and", FollowsData, "si32", true),
	binary("coreai.broadcasting_bitwise_or", FollowsData, "si32", true),
	binary("coreai.broadcasting_bitwise_xor", FollowsData, "si32", true),
	{Name: "coreai.broadcasting_batch_matmul", Decomposable: true, Operands: []Role{Data, Data}, Result: FollowsData, Seen: true, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2x3xF>", in("tensor<2x4xF>"), in("tensor<4x3xF>"))},
	{Name: "coreai.broadcasting_where", Decomposable: true, Operands: []Role{Cond, Data, Data}, Result: FollowsData, Seen: true, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2x3xF>", in("tensor<2x3xi1>"), in("tensor<2x3xF>"), in("tensor<2x3xF>"))},
	{Name: "coreai.batch_matmul", Operands: []Role{Data, Data}, Result: FollowsData, Torch: true, Source: srcCompress,
		Example: ex("tensor<2x32xF>", in("tensor<2x24xF>"), in("tensor<24x32xF>"))},

	// Reductions and scans.
	reduce("coreai.reduce_sum", true),
	reduce("coreai.reduce_mean", true),
	reduce("coreai.reduce_max", true),
	reduce("coreai.reduce_min", true),
	reduce("coreai.reduce_product", true),
	{Name: "coreai.any", Operands: []Role{Data, Param}, Result: Bool, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2x1xi1>", in("tensor<2x3xi1>"), k("tensor<1xsi32>", "1"))},
	{Name: "coreai.softmax", Operands: []Role{Data, Param}, Result: FollowsData, Seen: true, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2x5xF>", in("tensor<2x5xF>"), k("tensor<si32>", "1"))},
	{Name: "coreai.scan", Operands: []Role{Data, Param, Param}, Result: FollowsData, Torch: true, Source: srcOpsIR,
		Guess: "the generic spelling of combiner = <sum> (#coreai.combiner<sum>, graph/mlirtext enumAttrText)",
		Example: &Example{Operands: []Arg{in("tensor<2x5xF>"), k("tensor<ui32>", "1"), k("tensor<i1>", "false")},
			Results: []string{"tensor<2x5xF>"}, Props: "combiner = #coreai.combiner<sum>"}},
	{Name: "coreai.argmax", Operands: []Role{Data, Param}, Result: Integer, resultElem: "ui32", Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2x1xui32>", in("tensor<2x5xF>"), k("tensor<si32>", "1"))},
	{Name: "coreai.sort", Operands: []Role{Data, Param, Param, Param}, Result: FollowsData, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2x5xF>", in("tensor<2x5xF>"), k("tensor<si32>", "1"), k("tensor<i1>", "true"), k("tensor<i1>", "true"))},
	{Name: "coreai.argsort", Operands: []Role{Data, Param, Param, Param}, Result: Integer, resultElem: "si32", Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2x5xsi32>", in("tensor<2x5xF>"), k("tensor<si32>", "1"), k("tensor<i1>", "true"), k("tensor<i1>", "true"))},
	{Name: "coreai.non_zero", Operands: []Role{Data}, Result: Integer, resultElem: "si32", Torch: true, Source: srcOpsIR,
		Example: ex("tensor<?x2xsi32>", in("tensor<2x3xF>"))},
	{Name: "coreai.get_shape", Operands: []Role{Data}, Result: Integer, resultElem: "ui32", Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2xui32>", in("tensor<2x3xF>"))},
	{Name: "coreai.range", Rest: Data, Result: FollowsData, Torch: true, Source: srcOpsIR,
		Guess:   "float operands (coreai-torch keeps range si32 when every operand is an integer, coreai_torch/_aten_to_core.py; the float form is not printed)",
		Example: ex("tensor<?xsi32>", k("tensor<si32>", "0"), k("tensor<si32>", "6"), k("tensor<si32>", "2"))},
	{Name: "coreai.broadcast_shapes", Operands: []Role{Data, Data}, Result: FollowsData, Torch: true, Source: srcUtils,
		Guess:   "printed signature (no test prints it; ui32 shapes in, ui32 shape out as its uses in coreai_torch/_utils.py imply)",
		Example: ex("tensor<2xui32>", in("tensor<2xui32>"), in("tensor<2xui32>"))},

	// Shape and data movement.
	{Name: "coreai.reshape", Operands: []Role{Data, Param}, Result: FollowsData, Moves: true, Seen: true, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<6xF>", in("tensor<2x3xF>"), k("tensor<1xsi32>", "6"))},
	{Name: "coreai.expand_dims", Operands: []Role{Data, Param}, Result: FollowsData, Moves: true, Seen: true, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2x1x3xF>", in("tensor<2x3xF>"), k("tensor<1xsi32>", "1"))},
	{Name: "coreai.shrink_dims", Operands: []Role{Data, Param}, Result: FollowsData, Moves: true, Seen: true, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2xF>", in("tensor<2x1xF>"), k("tensor<1xsi32>", "1"))},
	{Name: "coreai.transpose", Operands: []Role{Data, Param}, Result: FollowsData, Moves: true, Seen: true, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<4x3xF>", in("tensor<3x4xF>"), k("tensor<2xui32>", "[1, 0]"))},
	{Name: "coreai.reverse", Operands: []Role{Data, Param}, Result: FollowsData, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2x3xF>", in("tensor<2x3xF>"), k("tensor<1xsi32>", "1"))},
	{Name: "coreai.tile", Operands: []Role{Data, Param}, Result: FollowsData, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<4x9xF>", in("tensor<2x3xF>"), k("tensor<2xui32>", "[2, 3]"))},
	{Name: "coreai.broadcast_to", Operands: []Role{Data, Param}, Result: FollowsData, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<4x3xF>", in("tensor<1x3xF>"), k("tensor<2xui32>", "[4, 3]"))},
	{Name: "coreai.broadcast_in_dims", Operands: []Role{Data, Param, Param}, Result: FollowsData, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<4x3xF>", in("tensor<1x3xF>"), k("tensor<1xui32>", "4"), k("tensor<1xsi32>", "0"))},
	{Name: "coreai.concat", Operands: []Role{Param}, Rest: Data, Result: FollowsData, Seen: true, Torch: true, Source: srcOps,
		Example: ex("tensor<4x3xF>", k("tensor<si32>", "0"), in("tensor<2x3xF>"), in("tensor<2x3xF>"))},
	{Name: "coreai.split", Operands: []Role{Data, Param, Param}, Result: FollowsData, Seen: true, Torch: true, Source: srcOpsIR,
		Example: &Example{Operands: []Arg{in("tensor<4x3xF>"), k("tensor<2xui32>", "2"), k("tensor<si32>", "0")}, Results: []string{"tensor<2x3xF>", "tensor<2x3xF>"}}},
	{Name: "coreai.slice", Operands: []Role{Data, Param, Param, Param}, Result: FollowsData, Moves: true, Seen: true, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2x2x3xF>", in("tensor<2x4x3xF>"), k("tensor<3xsi32>", "[0, 1, 0]"), k("tensor<3xsi32>", "[2147483647, 3, 2147483647]"), k("tensor<3xsi32>", "1"))},
	{Name: "coreai.slice_update", Operands: []Role{Data, Data, Param, Param, Param}, Result: FollowsData, Moves: true, Seen: true, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2x4x3xF>", in("tensor<2x4x3xF>"), in("tensor<2x2x3xF>"), k("tensor<3xsi32>", "[0, 1, 0]"), k("tensor<3xsi32>", "[2, 3, 3]"), k("tensor<3xsi32>", "1"))},
	{Name: "coreai.pad", Operands: []Role{Data, Param, Scalar}, Result: FollowsData, Seen: true, Torch: true, Source: srcOpsIR,
		Guess: "the generic spelling of mode = <constant> (#coreai.mode<constant>, graph/mlirtext enumAttrText)",
		Example: &Example{Operands: []Arg{in("tensor<2x3xF>"), k("tensor<4xui32>", "[0, 0, 1, 2]"), k("tensor<F>", "0.0")},
			Results: []string{"tensor<2x6xF>"}, Props: "mode = #coreai.mode<constant>"}},

	// Gather and scatter.
	{Name: "coreai.gather_nd", Operands: []Role{Data, Index}, Result: FollowsData, Seen: true, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2x3x4xF>", in("tensor<10x4xF>"), in("tensor<2x3x1xsi32>"))},
	{Name: "coreai.gather_along_axis", Operands: []Role{Data, Index, Param}, Result: FollowsData, Seen: true, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<2x3xF>", in("tensor<2x3xF>"), in("tensor<2x3xsi32>"), k("tensor<si32>", "1"))},
	{Name: "coreai.scatter_nd", Operands: []Role{Data, Data, Index}, Result: FollowsData, Regions: Combiner, Seen: true, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<5x3xF>", in("tensor<5x3xF>"), in("tensor<2x3xF>"), in("tensor<2x1xsi32>"))},
	{Name: "coreai.scatter_along_axis", Operands: []Role{Data, Index, Data, Param}, Result: FollowsData, Torch: true, Source: srcOpsIR,
		Guess: "the generic spelling of scatter_mode = <add> (#coreai.scatter_mode<add>, graph/mlirtext enumAttrText)",
		Example: &Example{Operands: []Arg{in("tensor<3x5xF>"), in("tensor<2x5xsi32>"), in("tensor<2x5xF>"), k("tensor<si32>", "0")},
			Results: []string{"tensor<3x5xF>"}, Props: "scatter_mode = #coreai.scatter_mode<add>"}},

	// Convolution, pooling, resampling.
	{Name: "coreai.conv2d", Operands: []Role{Data, Data, Param, Param, Param}, Result: FollowsData, Seen: true, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<1x8x6x6xF>", in("tensor<1x3x8x8xF>"), in("tensor<8x3x3x3xF>"), k("tensor<2xui32>", "1"), k("tensor<2xui32>", "1"), k("tensor<ui32>", "1"))},
	{Name: "coreai.conv3d", Operands: []Role{Data, Data, Param, Param, Param}, Result: FollowsData, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<1x4x4x4x4xF>", in("tensor<1x3x6x6x6xF>"), in("tensor<4x3x3x3x3xF>"), k("tensor<3xui32>", "1"), k("tensor<3xui32>", "1"), k("tensor<ui32>", "1"))},
	{Name: "coreai.conv_transpose2d", Operands: []Role{Data, Data, Param, Param, Param, Param, Param}, Result: FollowsData, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<1x8x8x8xF>", in("tensor<1x3x4x4xF>"), in("tensor<3x8x3x3xF>"), k("tensor<2xui32>", "2"), k("tensor<2xui32>", "1"), k("tensor<2xui32>", "1"), k("tensor<2xui32>", "1"), k("tensor<ui32>", "1"))},
	{Name: "coreai.max_pool_2d", Operands: []Role{Data, Param, Param, Param, Param}, Result: FollowsData, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<1x3x2x2xF>", in("tensor<1x3x4x4xF>"), k("tensor<2xui32>", "2"), k("tensor<2xui32>", "2"), k("tensor<2xui32>", "1"), k("tensor<i1>", "false"))},
	{Name: "coreai.sum_pool_2d", Operands: []Role{Data, Param, Param, Param}, Result: FollowsData, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<1x3x2x2xF>", in("tensor<1x3x8x8xF>"), k("tensor<2xui32>", "4"), k("tensor<2xui32>", "4"), k("tensor<2xui32>", "1"))},
	{Name: "coreai.sum_pool_3d", Operands: []Role{Data, Param, Param, Param}, Result: FollowsData, Torch: true, Source: srcOpsIR,
		Example: ex("tensor<1x3x2x2x2xF>", in("tensor<1x3x4x4x4xF>"), k("tensor<3xui32>", "2"), k("tensor<3xui32>", "2"), k("tensor<3xui32>", "1"))},
	{Name: "coreai.interpolate", Operands: []Role{Data, Param, FloatParam, FloatParam}, Result: FollowsData, Torch: true, Source: srcOpsIR,
		Guess: "that scale and offset stay f32 when the data is f16 (coreai-torch builds them as float32 lists or casts to np.float32 whatever the input's type, coreai_torch/_utils.py upsample_halfpixel_scale; no f16 interpolate is printed)",
		Example: &Example{Operands: []Arg{in("tensor<1x3x4x4xF>"), k("tensor<4xsi32>", "[1, 3, 8, 8]"), k("tensor<4xf32>", "[1.0, 1.0, 2.0, 2.0]"), k("tensor<4xf32>", "0.0")},
			Results: []string{"tensor<1x3x8x8xF>"}, Attrs: "interpolation_mode = #coreai.interpolation_mode<linear>"}},

	// Types, constants, complex numbers.
	{Name: "coreai.constant", Result: SetByOp, Seen: true, Torch: true, Source: srcOpsIR},
	{Name: "coreai.cast", Operands: []Role{Data}, Result: SetByOp, Moves: true, Seen: true, Torch: true, Source: srcOps,
		Example: ex("tensor<2x3xsi32>", in("tensor<2x3xF>"))},
	{Name: "coreai.create_complex", Operands: []Role{Data, Data}, Result: Complex, Torch: true, Source: srcOpsIR,
		fixed:   "its result is complex<f32>, and no complex<f16> is on record (coreai-torch prints complex<f32> only)",
		Example: ex("tensor<2x3xcomplex<F>>", in("tensor<2x3xF>"), in("tensor<2x3xF>"))},
	{Name: "coreai.real_part", Operands: []Role{Data}, Result: PartOfComplex, Torch: true, Source: srcOpsIR,
		fixed:   "its f32 result is part of a complex<f32> operand, and no complex<f16> is on record",
		Example: ex("tensor<2x3xF>", in("tensor<2x3xcomplex<F>>"))},
	{Name: "coreai.imaginary_part", Operands: []Role{Data}, Result: PartOfComplex, Torch: true, Source: srcOpsIR,
		fixed:   "its f32 result is part of a complex<f32> operand, and no complex<f16> is on record",
		Example: ex("tensor<2x3xF>", in("tensor<2x3xcomplex<F>>"))},

	// Compressed weights (coreai_torch/_custom_to_core.py: offset1 is in the
	// storage type, offset2 in the float type).
	{Name: "coreai.lut_to_dense", Operands: []Role{Storage, Storage, Param}, Result: SetByOp, Seen: true, Torch: true, Source: srcCompress,
		Example: ex("tensor<2x3xF>", k("tensor<2x3xui2>", "1"), k("tensor<1x1x4x1xF>", "0.5"), k("tensor<si16>", "0"))},
	{Name: "coreai.blockwise_shift_scale", Operands: []Role{Storage, Storage}, Rest: Storage, Result: SetByOp, Seen: true, Torch: true, Source: srcCustom,
		Guess:   "printed signature (coreai-torch's tests print only the si4 data and the f32 result); operands (data, scale, offset1, offset2) from the lowering; data of a float type (a cast of lut_to_dense's si8 output, with float offsets) is apple/coreai-optimization's weight_palettization.py form",
		Example: ex("tensor<4x3xF>", k("tensor<4x3xsi8>", "3"), k("tensor<4x1xF>", "0.5"), k("tensor<4x1xsi8>", "0"), k("tensor<4x1xF>", "0.0"))},
	{Name: "coreai.quantize", Operands: []Role{Data, Data}, Rest: Storage, tail: []Role{Param}, Result: SetByOp, Seen: true, Torch: true, Source: srcCompress,
		Guess:   "that the scale (and offset2) take the data's float type when it becomes f16 (coreai-torch prints f32 only)",
		Example: ex("tensor<2x32xsi8>", in("tensor<2x32xF>"), k("tensor<32xF>", "1.0"), k("tensor<32xsi8>", "0"), k("tensor<si32>", "1"))},
	{Name: "coreai.dequantize", Operands: []Role{Storage, Storage}, Rest: Storage, tail: []Role{Param}, Result: SetByOp, Seen: true, Torch: true, Source: srcCompress,
		Guess:   "that the result follows the scale's float type when it becomes f16 (coreai-torch prints f32 only)",
		Example: ex("tensor<2x32xF>", in("tensor<2x32xsi8>"), k("tensor<32xF>", "1.0"), k("tensor<32xsi8>", "0"), k("tensor<si32>", "1"))},
	{Name: "coreai.build_sparse_with_bitmask", Operands: []Role{Storage, Storage}, Result: SetByOp, Torch: true, Source: srcCompress,
		fixed: "the type of the sparse value it returns is not public (coreai-torch's tests leave it out), so its data cannot be retyped",
		Guess: "operand roles (non-zero values, ui1 mask)"},
	{Name: "coreai.sparse_with_bitmask_to_dense", Operands: []Role{Storage}, Result: SetByOp, Torch: true, Source: srcCompress,
		fixed: "its operand's sparse type is not public (coreai-torch's tests leave it out), so its result cannot be retyped"},

	// Control flow. Region facts: coreai.if and scatter_nd's combiner are
	// printed in tests/ops/test_ops_ir.py; coreai.while only by op names.
	{Name: "coreai.if", Operands: []Role{Cond}, Result: FromRegions, Regions: IfElse, Torch: true, Source: srcOpsIR},
	{Name: "coreai.while", Rest: Data, Result: FromRegions, Regions: WhileLoop, Torch: true, Source: srcOpsIR,
		Guess: "the operand and region layout beyond the op names and `} do {` (testdata/mlir/coreai/while.mlir)"},
	{Name: "coreai.condition", Operands: []Role{Cond}, Rest: Data, Terminator: true, Torch: true, Source: srcOpsIR,
		Guess: "operands (flag first, then the carried values, as scf.condition)"},
	{Name: "coreai.yield", Rest: Data, Terminator: true, Torch: true, Source: srcOpsIR},
	{Name: "coreai.output", Rest: Data, Terminator: true, Seen: true, Torch: true, Source: srcOpsIR},
	{Name: "coreai.invoke", Rest: Data, Result: SetByOp, Call: true, Seen: true, Torch: true, Source: srcComposit},
	{Name: "coreai.metal4_kernel", Rest: Data, Result: SetByOp, Torch: true, Source: srcConvert,
		fixed: "it runs Metal shader code written for its declared types"},

	// States (tests/test_stateful.py).
	{Name: "coreai.create_token", Result: NoResult, Seen: true, Torch: true, Source: srcStateful},
	{Name: "coreai.read_handle", Operands: []Role{Handle, Token}, Result: FollowsData, Moves: true, Seen: true, Torch: true, Source: srcStateful},
	{Name: "coreai.write_handle", Operands: []Role{Handle, Data, Token}, Result: NoResult, Seen: true, Torch: true, Source: srcStateful},
}
