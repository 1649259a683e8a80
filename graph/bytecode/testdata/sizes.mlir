// Hand-written generic-form module of shapes and arrays whose sizes need care:
// element counts past int64 (legal MLIR types; only splats can hold them) and
// dense arrays of every integer and float width, NaN payloads included.
"builtin.module"() ({
  %0 = "t.o"() {a = dense<1.000000e+00> : tensor<1x4294967296x4294967296xf16>, b = dense<true> : tensor<9223372036854775807x2xi1>, c = dense<7> : tensor<4611686018427387904xi32>} : () -> tensor<1x4294967296x4294967296xf16>
  "t.p"(%0) {d = array<i8: -128, 127, 0>, e = array<i16: -32768, 7>, f = array<i32: 2147483647, -1>, g = array<i1: true, false, true>, h = array<f32: 1.5, -0.0, 0x7FC00001>, i = array<f64: 2.5, 0x7FF8000000000001>, j = array<ui8: 255, 0>, k = array<si16: -3>, l = array<i64>, m = array<f16: 1.0, 0x7E01>, n = array<bf16: 2.0>} : (tensor<1x4294967296x4294967296xf16>) -> ()
}) : () -> ()
