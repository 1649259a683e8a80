// Uses before definitions in an unregistered op's region (MLIR does not
// check dominance there), so the reader meets operands defined later:
// before that point it sets operands as it reads, after it at the end, and
// use lists must come out in op order either way.
"builtin.module"() ({
  %0 = "t.c"() : () -> i32
  "t.e"(%0, %0) : (i32, i32) -> ()
  "t.g"() ({
    %1 = "t.a"(%0, %2) : (i32, i32) -> i32
    %2 = "t.b"(%0) : (i32) -> i32
    "t.d"(%1, %0, %2, %2) : (i32, i32, i32, i32) -> ()
    %3 = "t.f"(%2, %0) : (i32, i32) -> i32
  }) : () -> ()
  "t.e"(%0, %0) : (i32, i32) -> ()
}) : () -> ()
