// Package record is anefix's record of a rewrite: what each pass changed
// in the model's interface (I/O types and roles, states, constants made
// inputs, rescaled states), so that a caller, and anefix verify, can feed
// the new inputs and bind the new states.
//
// It is the one definition of that record. A pass fills its entries
// (passes.Change holds them), the pipeline assembles a Record from a run
// (passes.Result.Record), graph/modelio writes it into a directory output
// as graph/bundle's RecordFile (anefix.json), graph/bundle reads it back
// (bundle.ReadRecord) and verify turns it into the comparison's inputs
// (graph/interp/compare.RecordInputs). The rewrite report (proto
// anefix.v1.RewriteReport) is converted from the same entries, in
// cmd/anefix. The package imports nothing of anefix's, so every layer may
// import it.
//
// The file carries its format version ("version": formatVersion; a record
// without one is version 1, as anefix wrote them before). A reader reads
// the versions up to its own and refuses a newer one, naming the file,
// the version found and the versions it reads; members it does not know
// survive a read, a compose (Then) and a write (unknown.go).
package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// formatVersion is the version of anefix.json this anefix writes, in its
// "version" member. Version 1 is the record before it had one (no
// "version" member); version 2 adds the member and keeps members a reader
// does not know (a later version's additions) through a read, a compose
// and a write. A change an older reader could misread (a member whose
// meaning changes, an entry a host must act on) makes a new version,
// which older readers refuse.
const formatVersion = 2

// oldestVersion is the oldest version this anefix reads.
const oldestVersion = 1

// Record is the content of anefix.json.
type Record struct {
	Tool   string   `json:"tool"`
	Passes []string `json:"passes"`
	Entries
	// Pipelines are the pipelines that made this model from the export,
	// one per rewrite in order, as rewrite --print-pipeline prints them:
	// rewrite --pipeline '<each>' reproduces the model. Omitted in records
	// written before it was kept.
	Pipelines []string `json:"pipelines,omitempty"`
	// unknown are the members this anefix does not know (unknown.go).
	unknown unknown
}

// recordFields is Record without methods, written after its version.
type recordFields Record

type versionedRecord struct {
	Version int `json:"version"`
	recordFields
}

// MarshalJSON writes the record at formatVersion, its unknown members
// last.
func (r Record) MarshalJSON() ([]byte, error) {
	return encodeKeeping(versionedRecord{formatVersion, recordFields(r)}, r.unknown)
}

// UnmarshalJSON reads the members of a record; Parse checks the version
// first.
func (r *Record) UnmarshalJSON(b []byte) error {
	var v versionedRecord
	u, err := decodeKeeping(b, &v)
	*r = Record(v.recordFields)
	r.unknown = u
	return err
}

// Entries are what a rewrite records about the model's interface. A pass
// fills them (passes.Change embeds them), a Record holds those of a whole
// run (Add). A new kind of entry is a field here, a line in Add and, when
// a reader must bound it, one in check.
type Entries struct {
	IOChanges []IOChange `json:"ioChanges"`
	// States are pairs promoted to runtime states (promote-states).
	States []State `json:"states"`
	// PlainStates are states turned back into a plain input and output
	// (states-as-outputs); omitted when there are none, so records of
	// rewrites without it keep their bytes.
	PlainStates []State `json:"plainStates,omitempty"`
	// ConstantInputs are in-graph constants turned into graph inputs
	// (externalize-constant): which input carries which constant.
	ConstantInputs []ConstantInput `json:"constantInputs,omitempty"`
	// StateScales are states scale-state rescaled by a power of two.
	StateScales []StateScale `json:"stateScales,omitempty"`
}

// Add appends the entries of e to r's, in order.
func (r *Entries) Add(e Entries) {
	r.IOChanges = append(r.IOChanges, e.IOChanges...)
	r.States = append(r.States, e.States...)
	r.PlainStates = append(r.PlainStates, e.PlainStates...)
	r.ConstantInputs = append(r.ConstantInputs, e.ConstantInputs...)
	r.StateScales = append(r.StateScales, e.StateScales...)
}

// By is e as pass made them for a record: each I/O change names pass, each
// state scale says in words what a host does (ScaleNote). e is not changed.
func (e Entries) By(pass string) Entries {
	out := e
	out.IOChanges = make([]IOChange, len(e.IOChanges))
	for i, c := range e.IOChanges {
		c.Pass = pass
		out.IOChanges[i] = c
	}
	out.StateScales = make([]StateScale, len(e.StateScales))
	for i, sc := range e.StateScales {
		sc.Note = ScaleNote(sc.Log2)
		out.StateScales[i] = sc
	}
	return out
}

// IOChange is a graph input or output whose type or role a pass changed.
// A pass leaves Pass empty; the pipeline names it (passes.Result.Record).
type IOChange struct {
	Pass     string  `json:"pass"`
	Graph    string  `json:"graph"`
	Port     string  `json:"port"` // coreai.name
	IsOutput bool    `json:"isOutput"`
	Before   string  `json:"before"` // type before; "" for a new port
	After    string  `json:"after"`  // type after
	Why      string  `json:"why"`
	unknown  unknown // members this anefix does not know (unknown.go)
}

// State is one state pair: Input is fed, Output holds the new value
// (promote-states makes it a runtime state, states-as-outputs a plain
// input/output pair).
type State struct {
	Graph   string  `json:"graph"`
	Input   string  `json:"input"`
	Output  string  `json:"output"`
	unknown unknown // members this anefix does not know (unknown.go)
}

// ConstantInput says that graph input Input of Graph carries the constant
// that was op OpID, holding dense_resource Resource ("" for an inline
// constant), of type Type (Shape and DType spell it apart). Index and
// OpName are for the report only: a host finds the input by name.
type ConstantInput struct {
	Graph    string  `json:"graph"`
	Input    string  `json:"input"`
	Index    int     `json:"-"` // the new input's position
	OpID     string  `json:"opId"`
	OpName   string  `json:"-"` // the removed constant op's name
	Source   string  `json:"source,omitempty"`
	Resource string  `json:"resource"`
	Type     string  `json:"type"`
	Shape    []int64 `json:"shape"`
	DType    string  `json:"dtype"` // element type ("f16")
	Bytes    int64   `json:"bytes"`
	unknown  unknown // members this anefix does not know (unknown.go)
}

// StateScale is one state scale-state rescaled: the stored state is the
// value the graph computes times 2^-Log2 (a host that sets the state
// multiplies by 2^-Log2, one that reads it multiplies by 2^Log2). A pass
// leaves Note empty; the record says it in words (ScaleNote).
type StateScale struct {
	Graph   string  `json:"graph"`
	State   string  `json:"state"`
	Log2    int     `json:"log2"`
	Form    string  `json:"form"` // attribute, handle or pair (a plain input/output pair)
	Note    string  `json:"note"`
	unknown unknown // members this anefix does not know (unknown.go)
}

// ScaleNote says what a host does with a state scaled by 2^log2.
func ScaleNote(log2 int) string {
	return fmt.Sprintf("stored = value × 2^%d: multiply by 2^%d when setting the state, by 2^%d when reading it", -log2, -log2, log2)
}

// Encode is the record as written: indented JSON, '<' and '>' unescaped
// (types read tensor<…>), one trailing newline.
func (r *Record) Encode() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Parse decodes a record; name stands for the file in errors. It reads
// versions oldestVersion to formatVersion and refuses a newer one (its
// members may mean what this anefix cannot tell), naming the versions it
// reads.
func Parse(b []byte, name string) (*Record, error) {
	var r Record
	err := checkVersion(b)
	var ve *versionError
	if errors.As(err, &ve) {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if err == nil {
		err = json.Unmarshal(b, &r)
	}
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s: not anefix's record: %v at byte offset %d; delete the file or rewrite the model again", name, err, se.Offset)
		}
		return nil, fmt.Errorf("%s: not anefix's record: %v; delete the file or rewrite the model again", name, err)
	}
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("%s: %v; delete the file or rewrite the model again", name, err)
	}
	return &r, nil
}

// versionError is a version this anefix does not read.
type versionError struct{ msg string }

func (e *versionError) Error() string { return e.msg }

// checkVersion reads the "version" member of the object b (absent: version
// 1) and refuses one this anefix does not read. A b that is no object is
// left to the decoder's error.
func checkVersion(b []byte) error {
	var probe struct {
		Version json.RawMessage `json:"version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return err
	}
	if probe.Version == nil {
		return nil // version 1, written before records had a version
	}
	reads := fmt.Sprintf("this anefix reads versions %d to %d (version 1 has no \"version\" member)", oldestVersion, formatVersion)
	var v int
	if err := json.Unmarshal(probe.Version, &v); err != nil {
		return &versionError{fmt.Sprintf("record format version %s is not a whole number; %s; delete the file or rewrite the model again", probe.Version, reads)}
	}
	switch {
	case v > formatVersion:
		return &versionError{fmt.Sprintf("record format version %d is newer than this anefix reads: %s; read it with the anefix that wrote it or a newer one", v, reads)}
	case v < oldestVersion:
		return &versionError{fmt.Sprintf("record format version %d is no version anefix wrote: %s; delete the file or rewrite the model again", v, reads)}
	}
	return nil
}

// maxEntries bounds each list of a record. A record lists ports and
// states (an LLM bundle's few dozen functions with their caches make
// thousands), so a list this long is not one a rewrite wrote, and every
// reader's work stays in proportion to a real record.
const maxEntries = 1 << 16

// The exponents a state scale may have: 2^Log2 must be a power of two a
// float state can hold, which f32 bounds (2^-149, its smallest subnormal,
// to 2^127; f16's 2^-24 … 2^15 lies inside). scale-state writes ±15 at
// most; the bound keeps a hand-edited record from wrapping or overflowing
// the scale verify applies.
const (
	minStateLog2 = -149
	maxStateLog2 = 127
)

// check refuses what no rewrite writes: lists past maxEntries, a
// constant input named twice for one graph (verify would do the work once
// per copy), a state scale whose exponent, or whose sum over the records
// Then composed, lies outside minStateLog2…maxStateLog2. (A state may be
// promoted or scaled again by a later rewrite, so those lists may name a
// state twice.)
func (r *Record) check() error {
	for _, l := range []struct {
		name string
		n    int
	}{{"ioChanges", len(r.IOChanges)}, {"states", len(r.States)}, {"plainStates", len(r.PlainStates)},
		{"constantInputs", len(r.ConstantInputs)}, {"stateScales", len(r.StateScales)}, {"passes", len(r.Passes)}} {
		if l.n > maxEntries {
			return fmt.Errorf("%s has %d entries, more than the %d a record holds", l.name, l.n, maxEntries)
		}
	}
	type port struct{ graph, name string }
	seen := map[port]int{}
	once := func(list string, i int, p port) error {
		key := port{list + "\x00" + p.graph, p.name}
		if j, dup := seen[key]; dup {
			return fmt.Errorf("%s[%d] repeats %q of graph %q (first at %s[%d])", list, i, p.name, p.graph, list, j)
		}
		seen[key] = i
		return nil
	}
	for i, c := range r.ConstantInputs {
		if c.Input == "" || c.Resource == "" && c.OpID == "" {
			return fmt.Errorf("constantInputs[%d] names no input, or neither a resource nor an op id", i)
		}
		if err := once("constantInputs", i, port{c.Graph, c.Input}); err != nil {
			return err
		}
	}
	sum := map[port]int{}
	for i, sc := range r.StateScales {
		k := port{sc.Graph, sc.State}
		if sc.Log2 < minStateLog2 || sc.Log2 > maxStateLog2 {
			return fmt.Errorf("stateScales[%d]: log2 %d of state %q is outside %d…%d, the powers of two a float state (f16 or f32) can be scaled by", i, sc.Log2, sc.State, minStateLog2, maxStateLog2)
		}
		// Both bounded, so the sum cannot wrap.
		if sum[k] += sc.Log2; sum[k] < minStateLog2 || sum[k] > maxStateLog2 {
			return fmt.Errorf("stateScales[%d]: the scales of state %q of graph %q add up to 2^%d, outside %d…%d, the powers of two a float state (f16 or f32) can be scaled by", i, sc.State, sc.Graph, sum[k], minStateLog2, maxStateLog2)
		}
	}
	return nil
}

// Then is the record of a model rewritten as r says and then as next says:
// what a host needs is every change since the export, so the entries of
// both are kept in order (with the members of each this anefix does not
// know), and the passes are r's followed by those of next's not in r; of
// the unknown top-level members, next's win. A rewrite that changes nothing (rewriting a rewrite's
// output with the same pipeline) thus leaves the record as it was, byte
// for byte.
func (r *Record) Then(next Record) Record {
	if r == nil {
		return next
	}
	out := Record{Tool: next.Tool, Passes: append([]string{}, r.Passes...),
		Entries: Entries{IOChanges: []IOChange{}, States: []State{}}}
	out.Add(r.Entries)
	out.Add(next.Entries)
	out.Pipelines = append(append([]string(nil), r.Pipelines...), next.Pipelines...)
	out.unknown = r.unknown.with(next.unknown)
	for _, p := range next.Passes {
		if !slices.Contains(out.Passes, p) {
			out.Passes = append(out.Passes, p)
		}
	}
	return out
}

// StateLog2 returns the state scales of graph fn ("" = every graph) by
// state name.
func (r *Record) StateLog2(fn string) map[string]int {
	if r == nil {
		return nil
	}
	out := map[string]int{}
	for _, s := range r.StateScales {
		if fn == "" || s.Graph == fn {
			out[s.State] += s.Log2
		}
	}
	return out
}
