package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"
)

// Validate checks doc, one JSON document, against the $defs entry def of
// schema ("" for the schema's root) and returns every place where it does
// not match, each with its JSON path. It knows the keywords Generate writes
// (type, properties, required, additionalProperties, items, enum, const,
// pattern, minimum, maximum, $ref, anyOf) and refuses a schema with any
// other, so that no rule of the schema goes unchecked.
func Validate(schema []byte, def string, doc []byte) error {
	var root map[string]any
	if err := json.Unmarshal(schema, &root); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return fmt.Errorf("document: %w", err)
	}
	if d.More() {
		return errors.New("document: more than one JSON value")
	}
	c := &checker{root: root}
	node := any(root)
	if def != "" {
		node = ref(def)
	}
	c.check(node, v, "$")
	return errors.Join(c.errs...)
}

type checker struct {
	root map[string]any
	errs []error
}

func (c *checker) fail(path, format string, args ...any) {
	c.errs = append(c.errs, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, args...)))
}

// annotations are keywords that say nothing about validity.
var annotations = map[string]bool{"$schema": true, "$id": true, "$defs": true, "title": true, "description": true, "$comment": true}

func (c *checker) check(node, v any, path string) {
	s, ok := node.(map[string]any)
	if !ok {
		c.fail(path, "schema node is %T, not an object", node)
		return
	}
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		kv := s[k]
		switch k {
		case "$ref":
			c.checkRef(kv, v, path)
		case "anyOf":
			c.checkAnyOf(kv, v, path)
		case "type":
			c.checkType(kv, v, path)
		case "enum":
			if !slices.ContainsFunc(kv.([]any), func(e any) bool { return equal(e, v) }) {
				c.fail(path, "%s is not one of %v", show(v), kv)
			}
		case "const":
			if !equal(kv, v) {
				c.fail(path, "%s is not %v", show(v), kv)
			}
		case "pattern":
			if str, ok := v.(string); ok && !regexp.MustCompile(kv.(string)).MatchString(str) {
				c.fail(path, "%q does not match %s", str, kv)
			}
		case "minimum", "maximum":
			c.checkBound(k, kv, v, path)
		case "properties", "required", "additionalProperties":
			if obj, ok := v.(map[string]any); ok {
				c.checkObject(k, s, obj, path)
			}
		case "items":
			if arr, ok := v.([]any); ok {
				for i, e := range arr {
					c.check(kv, e, fmt.Sprintf("%s[%d]", path, i))
				}
			}
		default:
			if !annotations[k] {
				c.fail(path, "schema keyword %q is not known to this validator", k)
			}
		}
	}
}

func (c *checker) checkRef(kv, v any, path string) {
	r, _ := kv.(string)
	name, ok := strings.CutPrefix(r, "#/$defs/")
	defs, _ := c.root["$defs"].(map[string]any)
	target, found := defs[name]
	if !ok || !found {
		c.fail(path, "$ref %q names no $defs entry", r)
		return
	}
	c.check(target, v, path)
}

func (c *checker) checkAnyOf(kv, v any, path string) {
	alts, _ := kv.([]any)
	var why []string
	for _, a := range alts {
		sub := &checker{root: c.root}
		sub.check(a, v, path)
		if len(sub.errs) == 0 {
			return
		}
		why = append(why, errors.Join(sub.errs...).Error())
	}
	c.fail(path, "matches none of anyOf:\n  %s", strings.Join(why, "\n  "))
}

func (c *checker) checkType(kv, v any, path string) {
	var types []any
	switch t := kv.(type) {
	case string:
		types = []any{t}
	case []any:
		types = t
	}
	got := typeOf(v)
	for _, t := range types {
		if t == got || t == "number" && got == "integer" {
			return
		}
	}
	c.fail(path, "%s is %s, want %v", show(v), got, kv)
}

func (c *checker) checkBound(k string, kv, v any, path string) {
	n, ok := v.(json.Number)
	if !ok {
		return
	}
	x, _ := new(big.Float).SetString(n.String())
	b := new(big.Float).SetFloat64(kv.(float64))
	if x == nil || k == "minimum" && x.Cmp(b) < 0 || k == "maximum" && x.Cmp(b) > 0 {
		c.fail(path, "%s is out of range (%s %v)", n, k, kv)
	}
}

func (c *checker) checkObject(k string, s, obj map[string]any, path string) {
	props, _ := s["properties"].(map[string]any)
	switch k {
	case "properties":
		for name, sub := range props {
			if v, ok := obj[name]; ok {
				c.check(sub, v, path+"."+name)
			}
		}
	case "required":
		for _, r := range s["required"].([]any) {
			if _, ok := obj[r.(string)]; !ok {
				c.fail(path, "required key %q is missing", r)
			}
		}
	case "additionalProperties":
		names := make([]string, 0, len(obj))
		for name := range obj {
			if _, ok := props[name]; !ok {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		for _, name := range names {
			if s[k] == false {
				c.fail(path, "key %q is not in the schema", name)
			} else {
				c.check(s[k], obj[name], path+"."+name)
			}
		}
	}
}

func typeOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// equal compares a schema value (decoded as float64) with a document value
// (numbers as json.Number).
func equal(schema, doc any) bool {
	if n, ok := doc.(json.Number); ok {
		f, err := n.Float64()
		return err == nil && schema == f
	}
	return schema == doc
}

func show(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 60 {
		return string(b[:57]) + "..."
	}
	return string(b)
}
