package pbview

import pb "github.com/anefix/anefix/proto/anefixpb"

// TEMPORARY until CheckReport.ops lands.
func setOps(rep *pb.CheckReport, ops []op) {
	testOps = nil
	for i, o := range ops {
		testOps = append(testOps, &placement{OpId: o.id, OpName: o.name, Source: o.src, Device: o.dev, Graph: "main", Index: int32(i), Inputs: o.in, ElementTypes: o.types, Layer: o.layer, Frames: o.frames})
	}
}
