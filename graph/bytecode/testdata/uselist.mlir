// Run through --cse before conversion: replacing the duplicate addi leaves
// use lists out of order, so mlir-opt writes use-list orders (version 3+).
func.func @f(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  %1 = arith.addi %a, %b : i32
  %2 = arith.muli %1, %0 : i32
  %3 = arith.muli %0, %1 : i32
  %4 = arith.subi %1, %3 : i32
  %5 = arith.subi %2, %4 : i32
  %6 = arith.subi %5, %1 : i32
  return %6 : i32
}
