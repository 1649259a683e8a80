// Package expect is what a generated model must become under anefix's
// default rewrite, as its generator intends it: the property tests
// (cmd/anefix property_test.go) compare the rewrite's output against it,
// not against anefix's own analyses (passes/anefacts, graph's state
// pairing, check). A generator fills an Expect from its own parameters
// (which layers are linear attention, how it named the state ports, where
// it put the fp32 casts and the rank ops on its ports); nothing here reads
// a module.
package expect

// Pair is a state port pair of every entry graph, by the names the
// generator gave its input and output. After the default rewrite the input
// In is a state, MutableBuffers.buffer_mutation naming the state, and the
// output the generator wrote as Out, at its position, carries the state's
// name: In for a Plain pair (promote-states names the state after its
// input), Out for a pair the generator wrote as a state.
type Pair struct {
	In, Out string
	Plain   bool
}

// State is the pair's state name after the default rewrite.
func (p Pair) State() string {
	if p.Plain {
		return p.In
	}
	return p.Out
}

// Frame is a source location the generator gave ops: a file (matched as a
// suffix of a location's file name) and an inclusive line range; To 0
// means every line of the file.
type Frame struct {
	File     string
	From, To int
}

// Has reports whether file:line lies in the frame.
func (f Frame) Has(file string, line int) bool {
	if len(file) < len(f.File) || file[len(file)-len(f.File):] != f.File {
		return false
	}
	return f.To == 0 || line >= f.From && line <= f.To
}

// Expect is a generated model's intended result under the default rewrite.
type Expect struct {
	// Pairs are the state port pairs of every entry graph.
	Pairs []Pair
	// NoF32: every fp32 value of the model belongs to an island that blocks
	// the Neural Engine, so the default rewrite leaves no f32 value.
	NoF32 bool
	// Retype are where the fp32 islands that block are (the gated-delta
	// recurrence): after the default rewrite no op located there touches
	// an f32 value. The input must have such ops, or the expectation
	// could not fail.
	Retype []Frame
	// Keep are where fp32 islands sit that do not block (norms, RoPE): the
	// default rewrite leaves them f32 (strip-fp32-casts retypes only
	// blocking islands by default). The input must have them too.
	Keep []Frame
	// Refuses are the passes that must refuse the model, with why (it lacks
	// what the pass works on, as the pass's documentation says: anefix
	// passes NAME); every other pass must accept it (TestPassComposition).
	Refuses map[string]string
	// Vocab, when not 0, is how many token ids the model's embedding table
	// has rows for: verify is fed ids below it (its default draws ids over
	// the compared output's last axis, which is wider than the table in a
	// stand-in whose output is hidden states, not logits).
	Vocab int
	// Published, when set, is a real compile's region count of the model
	// (the calibration set, testdata/calibration/manifest.json): check IN
	// must predict it (P8).
	Published *Published
	// Ports, when not nil, are every entry graph's ports whose type the
	// default rewrite changes ("input NAME" or "output NAME", by the name
	// after the rewrite) with their type after it (what fold-io-unsqueeze
	// folds, what strip-fp32-casts retypes); every other port keeps its
	// type. Nil: ports are not checked.
	Ports map[string]string
}

// Published is what a published compile of a model measured (or stated).
type Published struct {
	ID           string // the calibration case
	Architecture string // check --architecture
	// Regions is the Neural Engine region count of the model's entry
	// graphs together (a calibration stand-in is one function: its
	// compile's count per function).
	Regions int
	// Disagree is the recorded reason check's prediction differs ("" when
	// it must agree).
	Disagree string
}
