// Hand-written generic-form module of ArrayAttrs (issue 28): arrays of one
// integer or float type (packed by graph.ArrayBuilder) next to arrays that
// mix types, widths, kinds or nesting (kept an attribute per element), an
// integer past 64 bits after small ones, NaN payloads and -0.0.
"builtin.module"() ({
  "t.op"() {a = [1, 1, 1], b = [1 : i8, 2 : i16, 3 : i8], c = [1.5 : f16, 0x7FC00001 : f32], d = [1, 2.5, "s", [1, 2], true], e = [-1 : i8, 255 : i8, 170141183460469231731687303715884105727 : i128, 1 : i128], f = [3 : index, 4 : index], g = [], h = [0x7FF0000000000001 : f64, -0.0 : f64], i = [true, false, true], j = [[1, 2], [3, 4]], k = [4294967295 : ui32, 7 : si32, 7 : ui32]} : () -> ()
  "t.op"() {a = [1, 1, 1], l = [1.0 : bf16, 2.0 : bf16, 0x7F80 : bf16]} : () -> ()
}) : () -> ()
