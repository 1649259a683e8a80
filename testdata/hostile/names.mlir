// Hostile names (issue 28): every name, location and string below holds a
// newline that would start a forged report line, a terminal escape, DEL or
// C1 controls, or bytes that are not UTF-8. Reports must print them on
// their own line, quoted; JSON reports must carry them.
module {
  coreai.graph @"main\0AForged: graph\1B[2J"(%x: tensor<4xf16> {coreai.name = "x\0AForged: port\1B[31m\FF"}, %y: tensor<4xf32> {coreai.name = "y\0AForged: port2\7F\C2\85"}) -> (tensor<4xf16> {coreai.name = "a\0AForged: out"}, tensor<4xf32> {coreai.name = "b\0DForged: cr"}) {
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32> loc("_to_copy\0AForged: id\FF"("m\0AForged: file.py":10:0))
    %1 = coreai.cast %0 : tensor<4xf32> to tensor<4xf16> loc("_to_copy_2\7F"("dir\0AForged: dir/m.py":11:0))
    %2 = "t.evil\0AForged: opname\1B]0;t\07\FE"(%1) {s = "\0AForged: attr"} : (tensor<4xf16>) -> tensor<4xf16> loc("ev\0AForged: evid"("m\0AForged: f2.py":12:0))
    %3 = coreai.cast %y : tensor<4xf32> to tensor<4xf16> loc("_to_copy_4\0AForged: id4"("m.py":13:0))
    %4 = coreai.cast %3 : tensor<4xf16> to tensor<4xf32> loc("_to_copy_5"("m.py":14:0))
    coreai.output %2, %4 : tensor<4xf16>, tensor<4xf32> loc("output\0AForged: output"("m.py":15:0))
  }
}
