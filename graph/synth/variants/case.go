package variants

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/anefix/anefix/graph/bundle"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/modelio"
	"github.com/anefix/anefix/graph/synth/expect"
)

// The values of each axis, in order.
var (
	// states: the conv and recurrent states as attribute-form states
	// (MutableBuffers.buffer_mutation), as handles read and written through
	// tokens, as plain pairs of one stacked buffer per kind written per
	// layer by slice_update into the input, or as plain per-layer pairs
	// whose new values are returned as outputs of their own.
	states = []string{"attr", "handle", "plain-update", "plain-return"}
	// namings of a state port pair (portName): conv_state_0 → …_out,
	// new_…, next_…, updated_…, past_…/present_…, conv_cache_0 →
	// updated_conv_cache_0, convState0 → newConvState0, layers.0.conv_state
	// → layers.0.new_conv_state, and names with no state word: c0.0 → c1.0,
	// w0_in → w0_out.
	namings = []string{"out", "new", "next", "updated", "past-present", "cache", "camel", "layers", "h01", "in-out"}
	// recurrences: the gated-delta step inline, or in a private noinline
	// gated_delta_update composite called with coreai.invoke.
	recurrences = []string{"inline", "composite"}
	// castSites: where the fp32 casts sit. site: every operand of the
	// recurrence is cast at the call site (the composite's interface is
	// fp32); inside: the recurrence l2-normalises in fp16 and casts inside
	// (coreai-torch's composite); state-ports: as inside, but the recurrent
	// state is cast where it enters and leaves the graph; f32-state: the
	// recurrent state's port is fp32 itself.
	castSites = []string{"site", "inside", "state-ports", "f32-state"}
	// encodings: how Write stores the case: printed text (as coreai-torch
	// prints it), generic text, a bytecode file, an .aimodel directory.
	encodings = []string{"printed", "generic", "mlirb", "aimodel"}
	// graphs: the entry graph's name, or two entry graphs of different
	// context lengths (extend_8_1, extend_16_1). The names are labels: every
	// entry graph takes one token (extend_1024_16's context is 8 too).
	graphs = []string{"main", "extend_1024_16", "forward", "multi"}
	// locations: none, MLIR name locations ("fx"("file":line:0)), or
	// #debuginfo.location attributes.
	locations = []string{"none", "name", "debuginfo"}
	// convShifts: how the conv state's next value is made from the
	// window: slice the concatenated window (window), or concatenate a
	// slice of the state with the step (roll).
	convShifts = []string{"window", "roll"}
)

// Axes is one case's point on every axis.
type Axes struct {
	State, Naming, Recurrence, Casts string // the structural product
	Encoding, Graphs, Locations      string // spread over it (rotate)
	ConvShift                        string
}

// Name is the case's name: its axis values joined by dots.
func (a Axes) Name() string {
	return strings.Join([]string{a.State, a.Naming, a.Recurrence, a.Casts, a.Encoding, a.Graphs, a.Locations, a.ConvShift}, ".")
}

// Map is the axes by name, for reports.
func (a Axes) Map() map[string]string {
	return map[string]string{
		"state": a.State, "naming": a.Naming, "recurrence": a.Recurrence, "casts": a.Casts,
		"encoding": a.Encoding, "graphs": a.Graphs, "locations": a.Locations, "conv-shift": a.ConvShift,
	}
}

// axisNames lists the keys of Map in a fixed order.
var axisNames = []string{"state", "naming", "recurrence", "casts", "encoding", "graphs", "locations", "conv-shift"}

// Case is one generated model.
type Case struct {
	Name string
	Axes Axes
	// Form is how Write stores the case: printed, generic, mlirb or aimodel
	// (Axes.Encoding).
	Form string
	// Text is the module in the printed form coreai-torch prints, whatever
	// the Form; Write converts it.
	Text []byte
	// States are the conv and recurrent state inputs of every entry graph
	// (attribute, handle or plain; a plain pair by its input's name): what
	// anefix's default rewrite must leave as states (README: it promotes
	// conv/rec states).
	States []string
	// Expect is what the default rewrite must make of the case, from its
	// axes (expected.go), for the property tests.
	Expect expect.Expect
}

// All returns every case, in a fixed order: the full product of State,
// Naming, Recurrence and Casts (320 cases), each with an encoding,
// graph names, location style and conv shift picked by a fixed hash of its
// index, so that every value of those axes meets every value of the others
// (TestAxesCovered). Same call, same cases, same bytes. The cases are built
// once; the slice is the caller's, the Text bytes are shared: do not modify
// them.
func All() []Case {
	allOnce.Do(func() { allCases = buildAll() })
	return append([]Case(nil), allCases...)
}

var (
	allOnce  sync.Once
	allCases []Case
)

func buildAll() []Case {
	var out []Case
	i := uint64(0)
	for _, s := range states {
		for _, n := range namings {
			for _, r := range recurrences {
				for _, c := range castSites {
					a := Axes{State: s, Naming: n, Recurrence: r, Casts: c,
						Encoding:  encodings[pick(i, 1, len(encodings))],
						Graphs:    graphs[pick(i, 2, len(graphs))],
						Locations: locations[pick(i, 3, len(locations))],
						ConvShift: convShifts[pick(i, 4, len(convShifts))],
					}
					out = append(out, Case{Name: a.Name(), Axes: a, Form: a.Encoding, Text: build(a), States: stateInputs(a), Expect: expected(a)})
					i++
				}
			}
		}
	}
	return out
}

// pick is a fixed hash of (i, salt) reduced to [0, n).
func pick(i, salt uint64, n int) int {
	r := rng{s: i*0x9e3779b97f4a7c15 ^ salt<<56}
	r.next()
	return int(r.next() % uint64(n))
}

// Sample returns n cases of All (all of them when n ≥ len(All)), chosen
// deterministically so that every value of every axis appears at least once
// when n is at least the largest axis's size (10, Namings); ties go by a
// fixed order. The result keeps All's order.
func Sample(n int) []Case {
	all := All()
	if n >= len(all) {
		return all
	}
	order := make([]int, len(all))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return pick(uint64(order[a]), 9, 1<<30) < pick(uint64(order[b]), 9, 1<<30) })
	seen := map[string]bool{}
	remaining := map[string]int{} // axis -> values not yet seen
	for _, c := range all {
		for ax, v := range c.Axes.Map() {
			if !seen[ax+"="+v] {
				seen[ax+"="+v] = true
				remaining[ax]++
			}
		}
	}
	clear(seen)
	taken := make([]bool, len(all))
	var idx []int
	// gain ranks a case first by the most values left of an axis it adds a
	// value to (so that the widest axis is covered within as many picks as
	// it has values), then by how many new values it adds.
	gain := func(c Case) (int, int) {
		first, total := 0, 0
		for ax, v := range c.Axes.Map() {
			if !seen[ax+"="+v] {
				first = max(first, remaining[ax])
				total++
			}
		}
		return first, total
	}
	for len(idx) < n {
		best, bf, bt := -1, -1, -1
		for _, i := range order {
			if taken[i] {
				continue
			}
			if f, tot := gain(all[i]); f > bf || f == bf && tot > bt {
				best, bf, bt = i, f, tot
			}
		}
		taken[best] = true
		idx = append(idx, best)
		for ax, v := range all[best].Axes.Map() {
			if !seen[ax+"="+v] {
				seen[ax+"="+v] = true
				remaining[ax]--
			}
		}
	}
	sort.Ints(idx)
	out := make([]Case, len(idx))
	for i, j := range idx {
		out[i] = all[j]
	}
	return out
}

// Ext is the file name extension of a case's Form.
func (c Case) Ext() string {
	switch c.Form {
	case "mlirb":
		return ".mlirb"
	case "aimodel":
		return ".aimodel"
	}
	return ".mlir"
}

// appleMetadata is the metadata.json of an .aimodel case, in the form the
// README quotes from Apple's exports (the date is fixed, a stand-in).
const appleMetadata = "{\"producer\" : \"coreai-core 1.0.0b2\", \"assetVersion\" : \"2.0\", \"creationDate\" : \"2026-01-01T00:00:00Z\"}\n"

// Write stores the case in dir as Name+Ext and returns the path. Printed
// text is written as generated; the other forms are the text read by
// graph/mlirtext and written by graph/modelio (anefix's own writers).
func (c Case) Write(dir string) (string, error) {
	dst := filepath.Join(dir, c.Name+c.Ext())
	if c.Form == "printed" {
		return dst, bundle.WriteFile(dst, c.Text, false, nil)
	}
	text := string(c.Text)
	m, _, err := mlirtext.Parse(c.Name+".mlir", text)
	if err != nil {
		return "", fmt.Errorf("variants: case %s does not parse: %w", c.Name, err)
	}
	opts := modelio.SaveOptions{Emit: modelio.FormBytecode}
	switch c.Form {
	case "generic":
		opts.Emit = modelio.FormGeneric
	case "aimodel":
		opts.Files = map[string][]byte{"metadata.json": []byte(appleMetadata)}
	case "mlirb":
	default:
		return "", fmt.Errorf("variants: case %s: unknown form %q", c.Name, c.Form)
	}
	if _, err := modelio.Save(dst, m, nil, opts); err != nil {
		return "", fmt.Errorf("variants: case %s: %w", c.Name, err)
	}
	return dst, nil
}
