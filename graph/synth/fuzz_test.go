package synth

import (
	"testing"

	"github.com/anefix/anefix/graph"
)

// FuzzOptions: any options either fail with an error or give a module that
// verifies (Generate runs the verifier) and whose every graph ends in
// coreai.output; never a panic. Layers and ctx are bounded so an input
// stays fast.
func FuzzOptions(f *testing.F) {
	for _, s := range ShippedArms {
		f.Add(byte(s.Options.Arm), uint8(s.Options.Layers), uint16(s.Options.Ctx), s.Options.Seed, false, false)
	}
	f.Add(byte('A'), uint8(1), uint16(2), uint64(1), true, true)
	f.Add(byte('E'), uint8(1), uint16(256), uint64(7), true, false)
	f.Add(byte('D'), uint8(5), uint16(17), uint64(3), false, true)
	f.Add(byte('B'), uint8(2), uint16(16), uint64(1)<<63|5, true, false)
	f.Add(byte('C'), uint8(8), uint16(9), uint64(3)<<61|11, false, true) // both trained-like additions off
	f.Add(byte('A'), uint8(8), uint16(5), uint64(1)<<61|4, false, false) // massive channels off, 8 layers
	f.Fuzz(func(t *testing.T, arm byte, layers uint8, ctx uint16, seed uint64, handle, composite bool) {
		o := Options{Arm: Arm(arm), Layers: int(layers % 9), Ctx: int(ctx % 2049), Seed: seed}
		if handle {
			o.StateForm = StateHandle
		}
		if composite {
			o.Recurrence = RecurrenceComposite
		}
		if seed>>63 != 0 { // the top seed bit picks coreai-torch's dialect locations
			o.Locations = LocDebugInfo
		}
		// The next two turn the trained-like additions off (massive.go).
		o.NoTrainedGates = seed>>62&1 != 0
		o.NoMassiveActivations = seed>>61&1 != 0
		m, err := GenerateWith(o, armDPass)
		if err != nil {
			if m != nil {
				t.Fatalf("%+v: error %v with a module", o, err)
			}
			return
		}
		for _, g := range m.Graphs() {
			if g.Terminator() == nil {
				t.Fatalf("%+v: @%s has no coreai.output", o, g.Name())
			}
		}
		if err := graph.Verify(m); err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
	})
}
