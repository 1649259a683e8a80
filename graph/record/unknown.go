package record

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// unknown holds the members of a JSON object that this anefix does not
// know: a later anefix's additions, or a host's. Parse keeps them and
// Encode writes them back after the known members, sorted by name, so a
// record read, composed with another rewrite's and written keeps them
// (protobuf-go keeps unknown fields the same way). They are held as the
// members' compact text, sorted by name ("\"a\":1,\"b\":[2]"), so the
// entry types stay comparable.
type unknown string

// members splits u into its members.
func (u unknown) members() map[string]json.RawMessage {
	if u == "" {
		return nil
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal([]byte("{"+u+"}"), &out); err != nil {
		panic("record: unknown members that do not parse: " + err.Error()) // made by unknownOf only
	}
	return out
}

// unknownOf is the members of m as unknown.
func unknownOf(m map[string]json.RawMessage) (unknown, error) {
	var out []byte
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if len(out) > 0 {
			out = append(out, ',')
		}
		kb, err := encodeCompact(k)
		if err != nil {
			return "", err
		}
		var c bytes.Buffer
		if err := json.Compact(&c, m[k]); err != nil {
			return "", err
		}
		out = append(append(append(out, kb...), ':'), c.Bytes()...)
	}
	return unknown(out), nil
}

// decodeKeeping decodes the object b into v (a type without methods, so
// that encoding/json decodes it field by field) and returns the members
// v's fields do not name.
func decodeKeeping(b []byte, v any) (unknown, error) {
	if err := json.Unmarshal(b, v); err != nil {
		return "", err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return "", err
	}
	known := jsonNames(reflect.TypeOf(v).Elem())
	maps.DeleteFunc(all, func(k string, _ json.RawMessage) bool { return foldMatch(known, k) })
	return unknownOf(all)
}

// foldMatch reports whether k names a known member under encoding/json's
// case-insensitive matching (it decoded into that field, so it is no
// unknown member).
func foldMatch(known map[string]bool, k string) bool {
	if known[k] {
		return true
	}
	for n := range known {
		if strings.EqualFold(n, k) {
			return true
		}
	}
	return false
}

// jsonNames are the member names of struct type t, embedded structs'
// included, as encoding/json names them.
func jsonNames(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-":
		case f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct:
			// encoding/json flattens an embedded struct, exported or not.
			maps.Copy(out, jsonNames(f.Type))
		case !f.IsExported():
		case name == "":
			out[f.Name] = true
		default:
			out[name] = true
		}
	}
	return out
}

// encodeKeeping encodes v (a type without methods) and appends the
// unknown members u, sorted by name. '<' and '>' stay unescaped (types
// read tensor<…>).
func encodeKeeping(v any, u unknown) ([]byte, error) {
	b, err := encodeCompact(v)
	if err != nil || u == "" {
		return b, err
	}
	out := bytes.TrimSuffix(b, []byte("}"))
	if len(out) > 1 {
		out = append(out, ',')
	}
	return append(append(out, u...), '}'), nil
}

func encodeCompact(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// with is u with the members of v added, v's winning (the later
// rewrite's record knows better).
func (u unknown) with(v unknown) unknown {
	if u == "" || v == "" {
		return u + v
	}
	m := u.members()
	maps.Copy(m, v.members())
	out, err := unknownOf(m)
	if err != nil {
		panic("record: " + err.Error()) // members that parsed compact again
	}
	return out
}

// Each entry type decodes and encodes through a copy of itself without
// methods, keeping its unknown members.

type ioChangeFields IOChange

func (c *IOChange) UnmarshalJSON(b []byte) error {
	var f ioChangeFields
	u, err := decodeKeeping(b, &f)
	*c = IOChange(f)
	c.unknown = u
	return err
}

func (c IOChange) MarshalJSON() ([]byte, error) { return encodeKeeping(ioChangeFields(c), c.unknown) }

type stateFields State

func (s *State) UnmarshalJSON(b []byte) error {
	var f stateFields
	u, err := decodeKeeping(b, &f)
	*s = State(f)
	s.unknown = u
	return err
}

func (s State) MarshalJSON() ([]byte, error) { return encodeKeeping(stateFields(s), s.unknown) }

type constantInputFields ConstantInput

func (c *ConstantInput) UnmarshalJSON(b []byte) error {
	var f constantInputFields
	u, err := decodeKeeping(b, &f)
	*c = ConstantInput(f)
	c.unknown = u
	return err
}

func (c ConstantInput) MarshalJSON() ([]byte, error) {
	return encodeKeeping(constantInputFields(c), c.unknown)
}

type stateScaleFields StateScale

func (s *StateScale) UnmarshalJSON(b []byte) error {
	var f stateScaleFields
	u, err := decodeKeeping(b, &f)
	*s = StateScale(f)
	s.unknown = u
	return err
}

func (s StateScale) MarshalJSON() ([]byte, error) {
	return encodeKeeping(stateScaleFields(s), s.unknown)
}
