package pbprint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// A double that is not finite has no JSON number, and protojson writes it
// as the strings "NaN", "Infinity" and "-Infinity": a script comparing the
// field with a number then fails on a type error, or compares strings.
// Marshal writes null in its place instead (proto/common.proto, "Doubles"),
// and the field's comment says what a non-finite value means there (e.g.
// logits_psnr_db: the outputs are identical, and logits_identical says so).

// hasNonFinite reports whether a double or float of m (at any depth) is
// NaN or infinite: only then is protojson's output rewritten.
func hasNonFinite(m protoreflect.Message) bool {
	found := false
	nonFinite := func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch fd.Kind() {
		case protoreflect.DoubleKind, protoreflect.FloatKind:
			f := v.Float()
			return math.IsNaN(f) || math.IsInf(f, 0)
		case protoreflect.MessageKind, protoreflect.GroupKind:
			return hasNonFinite(v.Message())
		}
		return false
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
				found = nonFinite(fd.MapValue(), mv)
				return !found
			})
		case fd.IsList():
			for i := 0; i < v.List().Len() && !found; i++ {
				found = nonFinite(fd, v.List().Get(i))
			}
		default:
			found = nonFinite(fd, v)
		}
		return !found
	})
	return found
}

// nullNonFinite returns raw, protojson of a message of type md, with the
// value of every double or float field (google.protobuf.DoubleValue and
// FloatValue included) that protojson wrote as a string replaced by null.
// It follows the descriptor key by key, so a string field that happens to
// hold "NaN" is left as it is. Keys and values keep their order.
func nullNonFinite(raw []byte, md protoreflect.MessageDescriptor) ([]byte, error) {
	w := &nullWriter{dec: json.NewDecoder(bytes.NewReader(raw))}
	w.dec.UseNumber()
	tok, err := w.dec.Token()
	if err != nil {
		return nil, err
	}
	if tok != json.Delim('{') {
		return nil, fmt.Errorf("pbprint: %s: JSON does not start with an object", md.FullName())
	}
	if err := w.object(md); err != nil {
		return nil, err
	}
	return w.out.Bytes(), nil
}

type nullWriter struct {
	dec *json.Decoder
	out bytes.Buffer
}

// object copies the members of an object of type md; its '{' is read.
func (w *nullWriter) object(md protoreflect.MessageDescriptor) error {
	w.out.WriteByte('{')
	for i := 0; w.dec.More(); i++ {
		if i > 0 {
			w.out.WriteByte(',')
		}
		k, err := w.dec.Token()
		if err != nil {
			return err
		}
		key, _ := k.(string)
		fd := md.Fields().ByJSONName(key)
		if fd == nil {
			return fmt.Errorf("pbprint: %s has no field with JSON name %q", md.FullName(), key)
		}
		w.str(key)
		w.out.WriteByte(':')
		if err := w.field(fd); err != nil {
			return err
		}
	}
	return w.end('}')
}

// field copies the value of fd: a list, a map or a single value.
func (w *nullWriter) field(fd protoreflect.FieldDescriptor) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	switch {
	case fd.IsList() && tok == json.Delim('['):
		w.out.WriteByte('[')
		for i := 0; w.dec.More(); i++ {
			if i > 0 {
				w.out.WriteByte(',')
			}
			t, err := w.dec.Token()
			if err != nil {
				return err
			}
			if err := w.single(fd, t); err != nil {
				return err
			}
		}
		return w.end(']')
	case fd.IsMap() && tok == json.Delim('{'):
		w.out.WriteByte('{')
		for i := 0; w.dec.More(); i++ {
			if i > 0 {
				w.out.WriteByte(',')
			}
			k, err := w.dec.Token()
			if err != nil {
				return err
			}
			key, _ := k.(string)
			w.str(key)
			w.out.WriteByte(':')
			t, err := w.dec.Token()
			if err != nil {
				return err
			}
			if err := w.single(fd.MapValue(), t); err != nil {
				return err
			}
		}
		return w.end('}')
	}
	return w.single(fd, tok)
}

// single copies one value of fd's type whose first token is tok.
func (w *nullWriter) single(fd protoreflect.FieldDescriptor, tok json.Token) error {
	if s, ok := tok.(string); ok && isFloat(fd) && (s == "NaN" || s == "Infinity" || s == "-Infinity") {
		w.out.WriteString("null")
		return nil
	}
	switch t := tok.(type) {
	case json.Delim:
		if t != '{' || fd.Message() == nil {
			return fmt.Errorf("pbprint: %s: unexpected %v", fd.FullName(), t)
		}
		return w.object(fd.Message())
	case string:
		w.str(t)
	case json.Number:
		w.out.WriteString(t.String())
	case bool:
		fmt.Fprint(&w.out, t)
	case nil:
		w.out.WriteString("null")
	}
	return nil
}

// isFloat reports whether fd holds a double or float, plain or wrapped.
func isFloat(fd protoreflect.FieldDescriptor) bool {
	switch fd.Kind() {
	case protoreflect.DoubleKind, protoreflect.FloatKind:
		return true
	case protoreflect.MessageKind:
		n := fd.Message().FullName()
		return n == "google.protobuf.DoubleValue" || n == "google.protobuf.FloatValue"
	}
	return false
}

// end reads the closing delimiter d and writes it.
func (w *nullWriter) end(d json.Delim) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	if tok != d {
		return fmt.Errorf("pbprint: want %v, got %v", d, tok)
	}
	w.out.WriteString(d.String())
	return nil
}

// str writes s as a JSON string, with <, > and & as they are.
func (w *nullWriter) str(s string) {
	e := json.NewEncoder(&w.out)
	e.SetEscapeHTML(false)
	_ = e.Encode(s)                 // a string always encodes
	w.out.Truncate(w.out.Len() - 1) // Encode's newline
}
