package passes

// A pipeline as one string (rewrite --print-pipeline, --pipeline, the
// bundle record's "pipelines"), in the spirit of mlir-opt's
// --pass-pipeline: every setting group, then every pass in run order, each
// with every option and its value:
//
//	states{pairs="" auto=true …},strip-fp32-casts{clamp=false islands=blockers …},dce{graphs=true resources=true}
//
// A value is written as --set takes it; it is quoted (Go syntax) when it
// is empty or holds a space, a brace, a quote or a backslash, so that a
// list's commas stay inside the braces. ParsePipeline takes any subset of
// options (the others keep their defaults) and checks what Build checks:
// the table's order constraints and each option's parser.

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// String prints p so that ParsePipeline gives it back: the same passes in
// the same order, every option and setting with the same value.
func (p *Pipeline) String() string {
	var b strings.Builder
	settings := defaultSettings()
	if p.Context != nil {
		settings = p.Context.Settings
	}
	for _, g := range settingGroups {
		writeElement(&b, g.Name, g.Values(settings.group(g.Name)))
	}
	for _, s := range p.Steps {
		writeElement(&b, s.Pass.Name, s.Pass.Values(s.Options))
	}
	return b.String()
}

func writeElement(b *strings.Builder, name string, vals []OptionValue) {
	if b.Len() > 0 {
		b.WriteByte(',')
	}
	b.WriteString(name)
	if len(vals) == 0 {
		return
	}
	b.WriteByte('{')
	for i, v := range vals {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v.Name)
		b.WriteByte('=')
		b.WriteString(quoteValue(v.Value))
	}
	b.WriteByte('}')
}

// quoteValue writes v bare when the parser reads it back unchanged.
func quoteValue(v string) string {
	if v == "" || strings.ContainsFunc(v, func(r rune) bool {
		return unicode.IsSpace(r) || !unicode.IsPrint(r) || strings.ContainsRune(`{}"\`, r)
	}) {
		return strconv.Quote(v)
	}
	return v
}

// pipelineElement is one name{…} of a pipeline string.
type pipelineElement struct {
	name string
	opts []OptionValue
}

// ParsePipeline reads a pipeline string (Pipeline.String) into a checked
// pipeline. Options it does not name keep their defaults; a setting group
// or a pass may appear once. Every error is a *UsageError naming the byte
// offset or the pass and option.
func ParsePipeline(s string) (*Pipeline, error) {
	elems, err := splitPipeline(s)
	if err != nil {
		return nil, err
	}
	var names []string
	groups := map[string]bool{}
	for _, e := range elems {
		if settingGroup(e.name) != nil {
			if groups[e.name] {
				return nil, &UsageError{Msg: fmt.Sprintf("--pipeline: setting group %q appears twice", e.name)}
			}
			groups[e.name] = true
			continue
		}
		if _, ok := Lookup(e.name); !ok {
			return nil, &UsageError{Msg: fmt.Sprintf("--pipeline: unknown pass %q", e.name), Valid: append(Names(), settingGroupNames()...), Got: e.name}
		}
		names = append(names, e.name)
	}
	b, err := newBuilder(names)
	if err != nil {
		return nil, err
	}
	for _, e := range elems {
		for _, o := range e.opts {
			what := fmt.Sprintf("--pipeline %s{%s=%s}", e.name, o.Name, quoteValue(o.Value))
			if g := settingGroup(e.name); g != nil {
				err = b.setSetting(g, o.Name, o.Value, what)
			} else {
				pass, _ := Lookup(e.name)
				err = b.setOption(b.index[e.name], pass, o.Name, o.Value, what)
			}
			if err != nil {
				return nil, err
			}
		}
	}
	return b.finish()
}

// splitPipeline reads the syntax: name, or name{opt=value …}, separated by
// commas, with spaces allowed between the parts.
func splitPipeline(s string) ([]pipelineElement, error) {
	r := &pipelineReader{s: s}
	var out []pipelineElement
	for {
		r.space()
		name := r.word()
		if name == "" {
			return nil, r.errorf("want a pass or setting group name")
		}
		e := pipelineElement{name: name}
		r.space()
		if r.peek('{') {
			r.i++
			for {
				r.space()
				if r.peek('}') {
					r.i++
					break
				}
				key := r.word()
				if key == "" || !r.peek('=') {
					return nil, r.errorf("want option=value or } in %s{…}", name)
				}
				r.i++
				val, err := r.value()
				if err != nil {
					return nil, err
				}
				e.opts = append(e.opts, OptionValue{key, val})
			}
		}
		out = append(out, e)
		r.space()
		if r.i == len(s) {
			return out, nil
		}
		if !r.peek(',') {
			return nil, r.errorf("want , between passes")
		}
		r.i++
	}
}

type pipelineReader struct {
	s string
	i int
}

func (r *pipelineReader) errorf(format string, args ...any) error {
	at := "the end"
	if r.i < len(r.s) {
		at = fmt.Sprintf("byte %d (%q)", r.i, r.s[r.i:min(len(r.s), r.i+12)])
	}
	return &UsageError{Msg: fmt.Sprintf("--pipeline: at %s: %s", at, fmt.Sprintf(format, args...))}
}

func (r *pipelineReader) peek(c byte) bool { return r.i < len(r.s) && r.s[r.i] == c }

func (r *pipelineReader) space() {
	for r.i < len(r.s) && (r.s[r.i] == ' ' || r.s[r.i] == '\t' || r.s[r.i] == '\n') {
		r.i++
	}
}

// word reads a pass, group or option name.
func (r *pipelineReader) word() string {
	j := r.i
	for j < len(r.s) {
		c := r.s[j]
		if c != '-' && c != '_' && c != '.' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			break
		}
		j++
	}
	w := r.s[r.i:j]
	r.i = j
	return w
}

// value reads a quoted value, or a bare one up to a space or '}'.
func (r *pipelineReader) value() (string, error) {
	if r.peek('"') {
		q, err := strconv.QuotedPrefix(r.s[r.i:])
		if err != nil {
			return "", r.errorf("unterminated or malformed quoted value")
		}
		v, err := strconv.Unquote(q)
		if err != nil {
			return "", r.errorf("malformed quoted value")
		}
		r.i += len(q)
		return v, nil
	}
	j := r.i
	for j < len(r.s) && r.s[j] != ' ' && r.s[j] != '\t' && r.s[j] != '\n' && r.s[j] != '}' {
		if r.s[j] == '{' || r.s[j] == '"' || r.s[j] == '\\' {
			r.i = j
			return "", r.errorf("quote a value holding %q", r.s[j])
		}
		j++
	}
	v := r.s[r.i:j]
	r.i = j
	return v, nil
}
