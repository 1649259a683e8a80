// Builtin kinds anefix keeps in their encoding (no graph form): memref,
// vector, complex and tuple types, dense string, sparse and distinct
// attributes, an f80 float; plus a textual builtin one (affine map)
// that anefix keeps as text.
"builtin.module"() ({
  %0 = "coreai.opaque"() {m = memref<2x?xf32, strided<[?, 1], offset: ?>>, v = vector<4x[8]xf16>, vv = vector<3xi8>,
                           c = complex<f32>, tu = tuple<i32, f16>, um = memref<*xf32, 1>,
                           ds = dense<["a", "bc"]> : tensor<2x!coreai.str>, dss = dense<"x"> : tensor<3x!coreai.str>,
                           sp = sparse<[[0, 0], [1, 1]], [1.0, 2.0]> : tensor<2x2xf32>,
                           di = distinct[0]<42 : i32>, f = 1.5 : f80,
                           am = affine_map<(d0, d1) -> (d1, d0)>} : () -> memref<2xf32>
  "coreai.use"(%0) : (memref<2xf32>) -> ()
}) : () -> ()
