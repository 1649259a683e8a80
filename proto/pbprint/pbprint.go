// Package pbprint prints anefix's reports: as JSON (`--json`, Marshal) and,
// through ForText, with every string made safe for the text reports.
//
// Names, locations and strings come from the model, and MLIR lets them hold
// any bytes. JSON: proto3 strings must be UTF-8 and protojson refuses the
// whole report ("proto: invalid UTF-8") over one such name, so each byte
// that is not part of valid UTF-8 is shown as the four characters \xNN
// (hex, lower case); valid UTF-8, backslashes included, is left as it is
// (proto/common.proto says so). Text: a newline, carriage return or
// terminal escape in a name would start a forged report line or recolour
// the terminal, so every string holding one (or bytes that are not UTF-8)
// is printed Go-quoted: graph/bundle's DisplayName, the one rule for names
// anefix prints.
package pbprint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/anefix/anefix/graph/bundle"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// SchemaVersion is the version of the JSON every report prints as
// schemaVersion (proto/common.proto, "JSON"): it goes up when a field is
// renamed or removed or changes meaning, not when one is added. Each
// command sets it in the report it builds (cmd/anefix); the schema
// (proto/jsonschema) requires it, so TestJSONReportsMatchSchema fails for a
// command that forgets it. Version 2 removed CheckReport.regions_predicted
// and GraphCheck.regions_observed (one name per concept: predicted_regions).
const SchemaVersion = 2

// jsonOptions print every field a script may test, also when it is false,
// zero, empty or unset (proto/common.proto, "JSON"): proto3 JSON leaves
// such fields out by default, so a failed check had no "legal" key at all.
// Fields declared optional stay absent when unset: there absent means
// unknown or not computed.
var jsonOptions = protojson.MarshalOptions{EmitUnpopulated: true}

// Marshal prints m as indented JSON ending in a newline: protojson
// re-indented by encoding/json, whose whitespace is stable (protojson's is
// deliberately not), with null for doubles that are not finite
// (finite.go). m is not modified.
func Marshal(m proto.Message) ([]byte, error) {
	m = mapStrings(m, EscapeInvalid)
	raw, err := jsonOptions.Marshal(m)
	if err != nil {
		return nil, err
	}
	if hasNonFinite(m.ProtoReflect()) {
		if raw, err = nullNonFinite(raw, m.ProtoReflect().Descriptor()); err != nil {
			return nil, err
		}
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return escapeRawControls(out.Bytes()), nil
}

// escapeRawControls writes DEL and the C1 controls, which JSON allows raw in
// strings (and protojson leaves raw), as \u00XX: the output then holds no
// control character a terminal acts on, and the text escaper cmd/anefix
// puts on stdout finds nothing to rewrite inside it.
func escapeRawControls(b []byte) []byte {
	raw := func(r rune) bool { return r == 0x7f || r >= 0x80 && r <= 0x9f }
	if bytes.IndexFunc(b, raw) < 0 {
		return b
	}
	var out bytes.Buffer
	for _, r := range string(b) {
		if raw(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
		} else {
			out.WriteRune(r)
		}
	}
	return out.Bytes()
}

// ForText returns m with every string passed through bundle.DisplayName,
// for the text reports: no string can start a line or an escape sequence.
func ForText[M proto.Message](m M) M { return mapStrings(m, bundle.DisplayName) }

// ForJSON returns m with proto/common.proto's \xNN rule applied to every
// string, as Marshal prints it, for writers of other formats (pbview).
func ForJSON[M proto.Message](m M) M { return mapStrings(m, EscapeInvalid) }

// EscapeInvalid returns s with each byte that is not part of valid UTF-8
// replaced by \xNN; valid strings are returned as they are.
func EscapeInvalid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// mapStrings returns m with f applied to every string (singular, repeated,
// map key or value) of it and of the messages it holds. m is not modified:
// when f changes a string the result is a copy, else m itself (reports are
// large and hostile names rare).
func mapStrings[M proto.Message](m M, f func(string) string) M {
	if !rewrite(m.ProtoReflect(), f, false) {
		return m
	}
	c := proto.Clone(m).(M)
	rewrite(c.ProtoReflect(), f, true)
	return c
}

// rewrite reports whether f changes a string of m; with set, it stores the
// changed strings (and visits everything), else it stops at the first.
func rewrite(m protoreflect.Message, f func(string) string, set bool) bool {
	changed := false
	str := func(fd protoreflect.FieldDescriptor) bool { return fd.Kind() == protoreflect.StringKind }
	msg := func(fd protoreflect.FieldDescriptor) bool {
		return fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind
	}
	// Changes are collected and applied after Range: a message or map is
	// not modified while it is ranged over.
	var fields []func()
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			mp := v.Map()
			kd, vd := fd.MapKey(), fd.MapValue()
			mp.Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				nk, nv, moved := k, mv, false
				if str(kd) {
					if s := f(k.String()); s != k.String() {
						nk, moved = protoreflect.ValueOfString(s).MapKey(), true
					}
				}
				if str(vd) {
					if s := f(mv.String()); s != mv.String() {
						nv, moved = protoreflect.ValueOfString(s), true
					}
				} else if msg(vd) && rewrite(mv.Message(), f, set) {
					changed = true
				}
				if moved {
					changed = true
					fields = append(fields, func() { mp.Clear(k); mp.Set(nk, nv) })
				}
				return set || !changed
			})
		case fd.IsList():
			l := v.List()
			for i := 0; i < l.Len() && (set || !changed); i++ {
				switch {
				case str(fd):
					if s := f(l.Get(i).String()); s != l.Get(i).String() {
						changed = true
						if set {
							l.Set(i, protoreflect.ValueOfString(s))
						}
					}
				case msg(fd):
					changed = rewrite(l.Get(i).Message(), f, set) || changed
				}
			}
		case str(fd):
			if s := f(v.String()); s != v.String() {
				changed = true
				fields = append(fields, func() { m.Set(fd, protoreflect.ValueOfString(s)) })
			}
		case msg(fd):
			changed = rewrite(v.Message(), f, set) || changed
		}
		return set || !changed
	})
	if set {
		for _, apply := range fields {
			apply()
		}
	}
	return changed
}
