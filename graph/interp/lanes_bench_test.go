package interp

import (
	"testing"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/graph/oracle"
	"github.com/anefix/anefix/graph/synth"
)

// BenchmarkRunLanes8 steps eight streams of arm A together (tiny, or the
// model named by ANEFIX_FULL_MODEL, e.g. `anefix synth --arm A --scale
// full` and its rewrite); one op is one position for all eight, so ns/op,
// B/op and a -cpuprofile compare with BenchmarkRunLanes1's one stream.
// cpu-ms/op is the process's CPU time per position (every thread, the
// garbage collector's included): on a shared machine it moves less with
// the load than ns/op does.
func BenchmarkRunLanes8(b *testing.B) { benchLanes(b, 8, false) }

// BenchmarkRunLanes1 is BenchmarkRunLanes8 with one stream (Run's path).
func BenchmarkRunLanes1(b *testing.B) { benchLanes(b, 1, false) }

// BenchmarkRunLanes8Donated and BenchmarkRunLanes1Donated hand each
// position's states over (Options.DonateInputs): no state is copied.
func BenchmarkRunLanes8Donated(b *testing.B) { benchLanes(b, 8, true) }

func BenchmarkRunLanes1Donated(b *testing.B) { benchLanes(b, 1, true) }

func benchLanes(b *testing.B, lanes int, donate bool) {
	var m *graph.Module
	if path, full := oracle.OptedIn("ANEFIX_FULL_MODEL"); full {
		ld, err := modelio.Load(path, modelio.LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		defer ld.Close()
		// The main.hash check runs in the background (DeferHash): let it
		// finish, or its CPU time lands in cpu-ms/op.
		if err := ld.Input.CheckHash(); err != nil {
			b.Fatal(err)
		}
		m = ld.Module
	} else {
		var err error
		if m, err = synth.Generate(synth.Options{Arm: synth.ArmA, Scale: synth.Tiny}); err != nil {
			b.Fatal(err)
		}
	}
	g := m.Graph("main")
	in := New(m, Options{donateInputs: donate})
	defer in.Close()
	ls := newArmALanes(b, g, lanes)
	b.ReportAllocs()
	b.ResetTimer() // loading (and hashing) a full-scale model is not a position
	cpu0 := processCPU()
	for i := 0; i < b.N; i++ {
		pos := i % 8
		ls.step(b, in, pos, func(l int) int64 { return int64((l*37 + pos*11 + 1) % 256) })
	}
	b.StopTimer()
	b.ReportMetric((processCPU()-cpu0)/float64(b.N)*1e3, "cpu-ms/op")
}
