// Package jsonschema writes the JSON Schema (draft 2020-12) of the JSON
// anefix's reports print (proto/pbprint, rules in proto/common.proto), from
// the compiled descriptors of proto/anefixpb, and checks a document against
// it (validate.go). The schema is committed at File; `go generate ./proto`
// rewrites it and TestSchemaIsFresh fails when it is stale.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/samber/lo"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/anefix/anefix/proto/anefixpb" // registers anefix.v1
	"github.com/anefix/anefix/proto/pbprint"
)

// File is where the schema is committed, relative to the module root.
const File = "proto/schema/anefix.schema.json"

const pkg = "anefix.v1"

// Generate returns the schema: one $defs entry per message of anefix.v1,
// named without the package ("CheckReport", "CompiledPackage.Function"),
// and at the root anyOf the reports, the messages with a schema_version
// field (what a command's --json prints).
func Generate() ([]byte, error) {
	defs := map[string]any{}
	var reports []string
	var err error
	var add func(protoreflect.MessageDescriptors)
	add = func(ms protoreflect.MessageDescriptors) {
		for i := 0; i < ms.Len(); i++ {
			md := ms.Get(i)
			if md.IsMapEntry() {
				continue
			}
			var s map[string]any
			if s, err = messageSchema(md); err != nil {
				return
			}
			defs[defName(md)] = s
			if md.Fields().ByName("schema_version") != nil {
				reports = append(reports, defName(md))
			}
			add(md.Messages())
		}
	}
	protoregistry.GlobalFiles.RangeFilesByPackage(pkg, func(fd protoreflect.FileDescriptor) bool {
		add(fd.Messages())
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if len(reports) == 0 {
		return nil, fmt.Errorf("jsonschema: no message of %s has schema_version", pkg)
	}
	slices.Sort(reports)
	root := map[string]any{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"$id":     "urn:anefix:" + pkg + ":reports",
		"title":   "anefix --json reports",
		"description": "What `anefix COMMAND --json` and `anefix rewrite --report` print, generated from proto/*.proto " +
			"(go generate ./proto). Every field is present except fields declared optional, which are absent when unknown; " +
			"a message field is an object or null; a double is a number or null when not finite; 64-bit integers are strings. " +
			"proto/common.proto states these rules.",
		"anyOf": lo.Map(reports, func(n string, _ int) any { return ref(n) }),
		"$defs": defs,
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(root); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// defName is md's $defs entry: its full name without the package.
func defName(md protoreflect.MessageDescriptor) string {
	return strings.TrimPrefix(string(md.FullName()), pkg+".")
}

func ref(name string) map[string]any { return map[string]any{"$ref": "#/$defs/" + name} }

// messageSchema is md as an object: every field a property, required
// unless protojson leaves it out when unset (a field of a oneof, which
// includes those declared optional), and no other key.
func messageSchema(md protoreflect.MessageDescriptor) (map[string]any, error) {
	props := map[string]any{}
	required := []string{}
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		s, err := fieldSchema(fd)
		if err != nil {
			return nil, err
		}
		props[fd.JSONName()] = s
		if fd.ContainingOneof() == nil {
			required = append(required, fd.JSONName())
		}
	}
	slices.Sort(required)
	return map[string]any{
		"description":          fmt.Sprintf("%s (proto/%s)", md.FullName(), md.ParentFile().Path()),
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}, nil
}

func fieldSchema(fd protoreflect.FieldDescriptor) (map[string]any, error) {
	if fd.Name() == "schema_version" {
		return map[string]any{"const": pbprint.SchemaVersion}, nil
	}
	switch {
	case fd.IsMap():
		v, err := valueSchema(fd.MapValue())
		return map[string]any{"type": "object", "additionalProperties": v}, err
	case fd.IsList():
		v, err := valueSchema(fd)
		return map[string]any{"type": "array", "items": v}, err
	}
	v, err := valueSchema(fd)
	if err == nil && fd.Kind() == protoreflect.MessageKind && v["$ref"] != nil {
		v = map[string]any{"anyOf": []any{v, map[string]any{"type": "null"}}}
	}
	return v, err
}

// valueSchema is one value of fd's type as protojson prints it.
func valueSchema(fd protoreflect.FieldDescriptor) (map[string]any, error) {
	integer := func(lo, hi float64) map[string]any {
		return map[string]any{"type": "integer", "minimum": lo, "maximum": hi}
	}
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return map[string]any{"type": "boolean"}, nil
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return integer(math.MinInt32, math.MaxInt32), nil
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return integer(0, math.MaxUint32), nil
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return map[string]any{"type": "string", "pattern": "^-?[0-9]+$"}, nil
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return map[string]any{"type": "string", "pattern": "^[0-9]+$"}, nil
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return map[string]any{"type": []any{"number", "null"}}, nil
	case protoreflect.StringKind:
		return map[string]any{"type": "string"}, nil
	case protoreflect.EnumKind:
		vs := fd.Enum().Values()
		names := make([]any, vs.Len())
		for i := range names {
			names[i] = string(vs.Get(i).Name())
		}
		return map[string]any{"type": "string", "enum": names}, nil
	case protoreflect.MessageKind:
		if md := fd.Message(); md.ParentFile().Package() == pkg {
			return ref(defName(md)), nil
		}
	}
	return nil, fmt.Errorf("jsonschema: %s: %v %s has no rule here; add one to proto/jsonschema", fd.FullName(), fd.Kind(), typeName(fd))
}

func typeName(fd protoreflect.FieldDescriptor) string {
	if fd.Message() != nil {
		return string(fd.Message().FullName())
	}
	return ""
}
