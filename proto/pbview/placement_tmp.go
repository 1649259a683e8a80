package pbview

import pb "github.com/anefix/anefix/proto/anefixpb"

// TEMPORARY until h31a's CheckReport.ops lands: the shape of OpPlacement.
type placement struct {
	OpId, Device, Graph string
	Index               int32
	OpName, Source      string
	Region, Segment     int32
	Reason              string
	ElementTypes        []string
	Inputs              []int32
	Layer               string
	MeasuredDevice      *string
	Blocked             bool
	Frames              []string
}

func (p *placement) GetMeasuredDevice() string {
	if p.MeasuredDevice == nil {
		return ""
	}
	return *p.MeasuredDevice
}

var testOps []*placement

func placements(rep *pb.CheckReport) []*placement { return testOps }
