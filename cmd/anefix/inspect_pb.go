package main

import (
	"github.com/samber/lo"

	"github.com/anefix/anefix/graph/inspect"
	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
)

// inspectPB converts graph/inspect's report to the report schema; the
// caller fills Input (and Compiled for a compiled package).
func inspectPB(r *inspect.Inspection) *pb.InspectReport {
	return &pb.InspectReport{SchemaVersion: pbprint.SchemaVersion,
		TopLevelOp:        r.TopLevelOp,
		ModuleOpCounts:    lo.Map(r.ModuleOpCounts, opCountPB),
		Dialects:          lo.Map(r.Dialects, dialectUsePB),
		OpaquePropertyOps: lo.Map(r.OpaquePropertyOps, opCountPB),
		Graphs:            lo.Map(r.Graphs, graphInspectionPB),
	}
}

func graphInspectionPB(g *inspect.GraphInspection, _ int) *pb.GraphInspection {
	return &pb.GraphInspection{
		Name:          g.Name,
		Visibility:    g.Visibility,
		Noinline:      g.Noinline,
		CompositeDecl: g.CompositeDecl,
		Inputs:        lo.Map(g.Inputs, portPB),
		Outputs:       lo.Map(g.Outputs, portPB),
		OpTotal:       g.OpTotal,
		OpCounts:      lo.Map(g.OpCounts, opCountPB),
		ElementTypes: lo.Map(g.ElementTypes, func(t *inspect.TypeCount, _ int) *pb.TypeCount {
			return &pb.TypeCount{Type: t.Type, Count: t.Count}
		}),
		Fp32Islands: lo.Map(g.Fp32Islands, func(is *inspect.Fp32Island, _ int) *pb.Fp32Island {
			return &pb.Fp32Island{
				Values: lo.Map(is.Values, func(v *inspect.Value, _ int) *pb.Value {
					return &pb.Value{Name: v.Name, Type: v.Type, DefinedBy: opRefPB(v.DefinedBy, 0), InputName: v.InputName}
				}),
				EntryCasts: lo.Map(is.EntryCasts, opRefPB),
				ExitCasts:  lo.Map(is.ExitCasts, opRefPB),
				FromInputs: is.FromInputs,
				ToOutputs:  is.ToOutputs,
				Ops:        lo.Map(is.Ops, opRefPB),
			}
		}),
		IoReshapes: lo.Map(g.IoReshapes, func(r *inspect.IOReshape, _ int) *pb.IOReshape {
			return &pb.IOReshape{Op: opRefPB(r.Op, 0), Port: r.Port, IsOutput: r.IsOutput, FromType: r.FromType, ToType: r.ToType}
		}),
		Invocations: lo.Map(g.Invocations, func(c *inspect.Invocation, _ int) *pb.Invocation {
			return &pb.Invocation{Callee: c.Callee, Count: c.Count, Composite: c.Composite}
		}),
		StateNotes: g.StateNotes,
	}
}

func portPB(p *inspect.Port, _ int) *pb.Port {
	out := &pb.Port{Name: p.Name, Index: p.Index, Type: p.Type, IsState: p.IsState, StatePartner: p.StatePartner, Attributes: p.Attributes}
	if p.State != nil {
		out.State = &pb.StatePair{Form: p.State.Form, Kind: p.State.Kind, Evidence: p.State.Evidence}
	}
	return out
}

func opRefPB(r *inspect.OpRef, _ int) *pb.OpRef {
	if r == nil {
		return nil
	}
	return &pb.OpRef{OpId: r.OpID, OpName: r.OpName, Source: r.Source, Graph: r.Graph, Index: r.Index, OpNumber: r.OpNumber}
}

func opCountPB(c *inspect.OpCount, _ int) *pb.OpCount {
	return &pb.OpCount{OpName: c.OpName, Count: c.Count}
}

func dialectUsePB(d *inspect.DialectUse, _ int) *pb.DialectUse {
	return &pb.DialectUse{Name: d.Name, Ops: d.Ops, HasVersion: d.HasVersion, VersionHex: d.VersionHex}
}
