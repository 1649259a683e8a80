package bundle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// Record is the content of RecordFile (anefix.json): what a rewrite did
// that a host calling the model must know. cmd/anefix's rewrite writes it,
// verify reads the state scales back.
type Record struct {
	Tool        string             `json:"tool"`
	Passes      []string           `json:"passes"`
	IOChanges   []RecordIOChange   `json:"ioChanges"`
	States      []RecordState      `json:"states"`
	StateScales []RecordStateScale `json:"stateScales,omitempty"`
}

// RecordIOChange is one graph input/output whose type or role changed.
type RecordIOChange struct {
	Pass     string `json:"pass"`
	Graph    string `json:"graph"`
	Port     string `json:"port"`
	IsOutput bool   `json:"isOutput"`
	Before   string `json:"before"`
	After    string `json:"after"`
	Why      string `json:"why"`
}

// RecordState is one promoted state.
type RecordState struct {
	Graph  string `json:"graph"`
	Input  string `json:"input"`
	Output string `json:"output"`
}

// RecordStateScale is one state scale-state rescaled: the stored state is
// the value the graph computes times 2^-Log2 (a host that sets the state
// multiplies by 2^-Log2, one that reads it multiplies by 2^Log2).
type RecordStateScale struct {
	Graph string `json:"graph"`
	State string `json:"state"`
	Log2  int    `json:"log2"`
	Form  string `json:"form"`
	Note  string `json:"note"`
}

// maxRecordSize bounds anefix.json (a record lists ports and states).
const maxRecordSize = 16 << 20

// Encode renders r as indented JSON (types stay readable: no HTML escaping).
func (r *Record) Encode() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // types read tensor<…>, not tensor\u003c…
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ParseRecord decodes an anefix.json; name labels errors.
func ParseRecord(name string, b []byte) (*Record, error) {
	var r Record
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("%s: not valid JSON at byte %d: %v; what to do: rewrite the model again or delete the file", name, se.Offset, err)
		}
		return nil, fmt.Errorf("%s: %v; what to do: rewrite the model again or delete the file", name, err)
	}
	return &r, nil
}

// ReadRecord reads dir's RecordFile; it returns nil, nil when there is none
// (an export anefix did not write, a single file).
func ReadRecord(dir string) (*Record, error) {
	if dir == "" {
		return nil, nil
	}
	p := filepath.Join(dir, RecordFile)
	b, err := ReadSmallFile(p, p, maxRecordSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseRecord(p, b)
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
