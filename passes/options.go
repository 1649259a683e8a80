package passes

// The one place pass options are declared and parsed. A pass's options
// struct (ArmDOptions, DCEOptions, …) has a declare method that binds each
// field to an Option[T]: its name, typed default, doc, allowed values and
// check, in one place (MLIR's Option<T> is the model). The pipeline
// (Build, ParsePipeline), Defaults and ParseOptions all fill and parse
// options through these declarations, and Pass.Run checks a struct built
// by hand against them, so a pass body reads values that are already
// parsed and valid and never checks them again.

import (
	"github.com/anefix/anefix/graph/nearest"

	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
)

// Options is one pass's parsed options: a pointer to its options struct.
type Options any

// noOptions is the options struct of a pass without options.
type noOptions struct{}

func (*noOptions) declare(*Decls) {}

// Option declares one option of type T. Declare binds it to a field of an
// options struct.
type Option[T any] struct {
	Name    string
	Default T
	Doc     string
	// Values, when set, are the only values the option takes, as text
	// (each element's, for a list of strings): anything else is refused
	// with a valueError listing them, and the docs and shell completion
	// list them. Every option whose check would take only a closed set
	// (an enum, a bounded range of integers) declares it here instead
	// (option_values_test.go finds one that does not).
	Values []string
	// Check, when set, refuses a parsed value that is still wrong (a
	// number out of range), so that --set reports it as a usage error
	// before any pass runs.
	Check func(T) error
	// Codec reads and prints values of T; nil: the codec of bool, int,
	// string or []string (a comma list).
	Codec *Codec[T]
}

// Codec reads and prints the values of one option type, the way --set
// writes them.
type Codec[T any] struct {
	Kind   string // how docs name the type: bool, string, int, list
	Parse  func(s string) (T, error)
	Format func(v T) string
	// Sample makes a value for property tests (pipeline_test.go); nil:
	// generated from the kind and the declared values.
	Sample func(r *rand.Rand) T
}

// OptionInfo describes one declared option for docs (anefix passes,
// PASSES.md): its default and values as text.
type OptionInfo struct {
	Name    string
	Kind    string
	Default string
	Doc     string
	Values  []string
}

// Decls are the declarations of one options struct, bound to its fields.
type Decls struct{ list []decl }

// decl is one Option bound to its field, with its type erased.
type decl interface {
	info() OptionInfo
	reset()
	set(s string) error
	text() string
	valid() error
	sample(r *rand.Rand) string
	defaultReadsBack() bool
}

// optionsStruct is a pass's options struct: it declares its options.
type optionsStruct interface{ declare(d *Decls) }

// Declare binds option o to *field.
func Declare[T any](d *Decls, field *T, o Option[T]) {
	c := o.Codec
	if c == nil {
		c = builtinCodec[T]()
	}
	if c == nil {
		panic(fmt.Sprintf("passes: option %s: type %T needs a Codec", o.Name, o.Default))
	}
	d.list = append(d.list, &bound[T]{field: field, o: o, c: c})
}

type bound[T any] struct {
	field *T
	o     Option[T]
	c     *Codec[T]
}

func (b *bound[T]) info() OptionInfo {
	return OptionInfo{Name: b.o.Name, Kind: b.c.Kind, Default: b.c.Format(b.o.Default), Doc: b.o.Doc, Values: b.o.Values}
}

// reset sets the field to the default, a copy of it for a list (a pass
// that appends to its list must not change the declaration).
func (b *bound[T]) reset() {
	v, err := b.c.Parse(b.c.Format(b.o.Default))
	if err != nil {
		panic(fmt.Sprintf("passes: option %s: default does not parse: %v", b.o.Name, err)) // checked at init
	}
	*b.field = v
}

// set parses s, checks it, and stores it: the one parse of a value. A
// value that does not parse as one of declared Values is refused naming
// them ("1x" for bits).
func (b *bound[T]) set(s string) error {
	v, err := b.c.Parse(s)
	if err != nil && len(b.o.Values) > 0 && b.c.Kind != "list" {
		return &valueError{Option: b.o.Name, Value: s, Valid: b.o.Values}
	}
	if err != nil {
		return b.wrap(err)
	}
	if err := b.check(v); err != nil {
		return err
	}
	*b.field = v
	return nil
}

// wrap names the option in a parse error, unless the built-in codec has
// named it already.
func (b *bound[T]) wrap(err error) error {
	if ke, ok := errors.AsType[*kindError](err); ok {
		return fmt.Errorf("option %s %s", b.o.Name, ke.msg)
	}
	return fmt.Errorf("option %s: %w", b.o.Name, err)
}

func (b *bound[T]) check(v T) error {
	if len(b.o.Values) > 0 {
		var vals []string
		switch x := any(v).(type) {
		case string:
			vals = []string{x}
		case []string:
			vals = x
		default:
			vals = []string{b.c.Format(v)}
		}
		for _, s := range vals {
			if !slices.Contains(b.o.Values, s) {
				return &valueError{Option: b.o.Name, Value: s, Valid: b.o.Values}
			}
		}
	}
	if b.o.Check != nil {
		if err := b.o.Check(v); err != nil {
			return fmt.Errorf("option %s: %w", b.o.Name, err)
		}
	}
	return nil
}

func (b *bound[T]) text() string { return b.c.Format(*b.field) }

// defaultReadsBack says that the default, printed and read again, is the
// default (a list element holding a comma would read back as two).
func (b *bound[T]) defaultReadsBack() bool {
	v, err := b.c.Parse(b.c.Format(b.o.Default))
	return err == nil && reflect.DeepEqual(v, b.o.Default)
}

// valid checks the field's current value (a struct built by hand): its
// text must parse, as if --set had given it, and pass the checks.
func (b *bound[T]) valid() error {
	if _, err := b.c.Parse(b.c.Format(*b.field)); err != nil {
		return b.wrap(err)
	}
	return b.check(*b.field)
}

// sample returns a valid value as text: the codec's sample, or one made
// from the kind and the values, else the default.
func (b *bound[T]) sample(r *rand.Rand) string {
	for range 20 {
		var s string
		if b.c.Sample != nil {
			s = b.c.Format(b.c.Sample(r))
		} else {
			s = sampleText(r, b.c.Kind, b.o.Values)
		}
		if v, err := b.c.Parse(s); err == nil && b.check(v) == nil {
			return s
		}
	}
	return b.c.Format(b.o.Default)
}

// intValues are the integers lo to hi as text: the Values of an int
// option that takes a bounded range.
func intValues(lo, hi int) []string {
	var out []string
	for n := lo; n <= hi; n++ {
		out = append(out, strconv.Itoa(n))
	}
	return out
}

// kindError is a value that is not of the option's kind; its message
// follows the option's name ("option bits wants an integer, …").
type kindError struct{ msg string }

func (e *kindError) Error() string { return e.msg }

// builtinCodec is the codec of bool, int, string and []string; nil for
// any other type.
func builtinCodec[T any]() *Codec[T] {
	var c any
	switch any(*new(T)).(type) {
	case bool:
		c = &Codec[bool]{Kind: "bool", Format: strconv.FormatBool, Parse: func(s string) (bool, error) {
			b, err := strconv.ParseBool(s)
			if err != nil {
				return false, &kindError{fmt.Sprintf("wants true or false, got %q", s)}
			}
			return b, nil
		}}
	case int:
		c = &Codec[int]{Kind: "int", Format: strconv.Itoa, Parse: func(s string) (int, error) {
			n, err := strconv.Atoi(s)
			if err != nil {
				return 0, &kindError{fmt.Sprintf("wants an integer, got %q", s)}
			}
			return n, nil
		}}
	case string:
		c = &Codec[string]{Kind: "string", Format: func(s string) string { return s }, Parse: func(s string) (string, error) { return s, nil }}
	case []string:
		c = ListCodec(func(s string) (string, error) { return s, nil }, func(s string) string { return s }, nil)
	}
	out, _ := c.(*Codec[T])
	return out
}

// ListCodec is the codec of a comma list whose elements parse and print
// with parse and format: elements are trimmed and empty ones dropped, as
// --set always read lists. sample, when set, makes one element for
// property tests.
func ListCodec[E any](parse func(string) (E, error), format func(E) string, sample func(r *rand.Rand) E) *Codec[[]E] {
	c := &Codec[[]E]{Kind: "list",
		Parse: func(s string) ([]E, error) {
			var out []E
			for _, x := range strings.Split(s, ",") {
				if x = strings.TrimSpace(x); x == "" {
					continue
				}
				e, err := parse(x)
				if err != nil {
					return nil, err
				}
				out = append(out, e)
			}
			return out, nil
		},
		Format: func(v []E) string {
			parts := make([]string, len(v))
			for i, e := range v {
				parts[i] = format(e)
			}
			return strings.Join(parts, ",")
		}}
	if sample != nil {
		c.Sample = func(r *rand.Rand) []E {
			out := make([]E, r.IntN(4))
			for i := range out {
				out[i] = sample(r)
			}
			return out
		}
	}
	return c
}

// sampleText makes a value of kind from values (an enum) or at random:
// the property tests' generator for options without a Codec.Sample.
func sampleText(r *rand.Rand, kind string, values []string) string {
	word := func() string {
		if len(values) > 0 {
			return values[r.IntN(len(values))]
		}
		words := []string{"a", "x_1", "conv_state", "*", "id:sdpa_*", "q.k", "a b", `"q"`, "{x}", "-3", "é"}
		return words[r.IntN(len(words))]
	}
	switch {
	case kind == "bool":
		return strconv.FormatBool(r.IntN(2) == 0)
	case kind != "list" && len(values) > 0:
		return word()
	case kind == "int":
		return strconv.Itoa([]int{-2, -1, 0, 1, 2, 3, 4, 6, 8, 32, 1000, r.IntN(100000)}[r.IntN(12)])
	case kind == "list":
		parts := make([]string, r.IntN(4))
		for i := range parts {
			parts[i] = word()
		}
		return strings.Join(parts, ",")
	}
	if len(values) == 0 && r.IntN(4) == 0 {
		return ""
	}
	return word()
}

// valueError is a value outside the allowed values of an option (declared
// Values, or values another option defines, such as arm-d's kinds).
type valueError struct {
	Option, Value string
	Valid         []string
	// Of says where Valid comes from when another option defines it.
	Of string
}

func (e *valueError) Error() string {
	vals := compactValues(e.Valid)
	valid := strings.Join(vals, ", ")
	if n := len(vals); n > 1 {
		valid = strings.Join(vals[:n-1], ", ") + " or " + vals[n-1]
	}
	if e.Of != "" {
		valid += " (" + e.Of + ")"
	}
	hint := ""
	if _, err := strconv.Atoi(strings.TrimSpace(e.Value)); err != nil {
		hint = nearest.Hint(e.Value, e.Valid, "") // a number's nearest spelling is no suggestion
	}
	return fmt.Sprintf("option %s: %q is not %s%s", e.Option, e.Value, valid, hint)
}

// ValuesText is o's values as the docs list them: runs of five or more
// consecutive integers as "lo..hi" (-1..8), the rest as they are.
func (o OptionInfo) ValuesText() string { return strings.Join(compactValues(o.Values), ", ") }

// compactValues writes each run of five or more consecutive integers in
// vals as "lo..hi" (shorter runs read better listed: 1, 2, 3, 4, 6 or 8).
func compactValues(vals []string) []string {
	var out []string
	for i := 0; i < len(vals); {
		lo, err := strconv.Atoi(vals[i])
		j := i + 1
		for err == nil && j < len(vals) {
			n, e := strconv.Atoi(vals[j])
			if e != nil || n != lo+(j-i) {
				break
			}
			j++
		}
		if j-i >= 5 {
			out = append(out, vals[i]+".."+vals[j-1])
		} else {
			out = append(out, vals[i:j]...)
		}
		i = j
	}
	return out
}

func (d *Decls) find(name string) decl {
	for _, x := range d.list {
		if x.info().Name == name {
			return x
		}
	}
	return nil
}

func (d *Decls) names() []string {
	out := make([]string, len(d.list))
	for i, x := range d.list {
		out[i] = x.info().Name
	}
	if len(out) == 0 {
		out = []string{"(none)"}
	}
	return out
}

// valid checks every bound value, then the options' own check of values
// that are wrong together (crossCheck).
func (d *Decls) valid(opts any) error {
	for _, x := range d.list {
		if err := x.valid(); err != nil {
			return err
		}
	}
	if c, ok := opts.(crossChecker); ok {
		return c.checkTogether()
	}
	return nil
}

// crossChecker is an options struct whose values can be wrong together
// (a *valueError names the allowed values): Build calls it once every
// value is set, so such a value is a usage error before any pass runs.
type crossChecker interface{ checkTogether() error }

// runner is a pass's function with its options type erased, so the table
// can hold passes with different options structs.
type runner struct {
	fresh func() any            // a new options struct, zero
	bind  func(opts any) *Decls // opts' declarations (nil: not this pass's type)
	want  string                // "*passes.DCEOptions", for errors
	fn    func(ctx *Context, m *graph.Module, opts any) (*Change, error)
}

// bind makes the table's runner for a pass whose options struct is O and
// that reads no pipeline setting.
func bind[O any, PO interface {
	*O
	optionsStruct
}](f func(m *graph.Module, opts *O) (*Change, error)) runner {
	return bindCtx[O, PO](func(_ *Context, m *graph.Module, o *O) (*Change, error) { return f(m, o) })
}

// bindCtx makes the runner of a pass that also reads the pipeline's
// settings (settings.go).
func bindCtx[O any, PO interface {
	*O
	optionsStruct
}](f func(ctx *Context, m *graph.Module, opts *O) (*Change, error)) runner {
	r := optionsRunner[O, PO]()
	r.fn = func(ctx *Context, m *graph.Module, opts any) (*Change, error) {
		o, ok := opts.(*O)
		if !ok || o == nil {
			return nil, fmt.Errorf("options are %T, want %s", opts, r.want)
		}
		if ctx == nil {
			ctx = defaultContext()
		}
		return f(ctx, m, o)
	}
	return r
}

// optionsRunner is the options half of a runner (a settings group has no
// function).
func optionsRunner[O any, PO interface {
	*O
	optionsStruct
}]() runner {
	return runner{
		fresh: func() any { return new(O) },
		want:  fmt.Sprintf("%T", new(O)),
		bind: func(opts any) *Decls {
			o, ok := opts.(*O)
			if !ok || o == nil {
				return nil
			}
			d := &Decls{}
			PO(o).declare(d)
			return d
		},
	}
}

// Run applies the pass with opts, which must be its options struct (from
// Defaults, ParseOptions or a pipeline Step), under the default settings.
func (p *Pass) Run(m *graph.Module, opts Options) (*Change, error) { return p.RunIn(nil, m, opts) }

// RunIn applies the pass under ctx's settings (nil: the defaults). A
// struct built by hand is checked against the declarations first, so the
// pass body never checks its options. Outside a pipeline the pass gets a
// cache of its own for m, so that it computes each analysis it requires
// once (strip-fp32-casts reads the states for its islands and for the
// element-type check).
func (p *Pass) RunIn(ctx *Context, m *graph.Module, opts Options) (*Change, error) {
	if d := p.Func.bind(opts); d != nil {
		if err := d.valid(opts); err != nil {
			return nil, err
		}
	}
	return p.Func.fn(ctx.withCache(m), m, opts)
}

// Options describes p's declared options, in declaration order.
func (p *Pass) Options() []OptionInfo {
	d := p.Func.bind(p.Func.fresh())
	out := make([]OptionInfo, len(d.list))
	for i, x := range d.list {
		out[i] = x.info()
	}
	return out
}

// Defaults returns p's options with every option at its default.
func (p *Pass) Defaults() (Options, error) {
	o, _ := p.newOptions()
	return o, nil
}

// ParseOptions returns p's options: defaults, then each "option=value" of
// sets applied in order. An unknown option or a bad value is an error.
func (p *Pass) ParseOptions(sets ...string) (Options, error) {
	o, d := p.newOptions()
	for _, s := range sets {
		name, val, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("%s: %q: want option=value", p.Name, s)
		}
		x := d.find(name)
		if x == nil {
			return nil, fmt.Errorf("%s: no option %q%s (valid: %s)", p.Name, name, nearest.Hint(name, d.names(), ""), strings.Join(d.names(), ", "))
		}
		if err := x.set(val); err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
	}
	return o, nil
}

// Defaults returns the default options of the pass whose options struct is
// O, for code that runs a pass directly (graph/synth's ArmD, tests).
func Defaults[O any]() *O {
	o, err := ParseOptions[O]()
	if err != nil {
		panic("passes: " + err.Error())
	}
	return o
}

// ParseOptions returns the options of the pass whose options struct is O:
// defaults, then sets ("option=value") applied.
func ParseOptions[O any](sets ...string) (*O, error) {
	for _, p := range table {
		if _, ok := p.Func.fresh().(*O); ok {
			v, err := p.ParseOptions(sets...)
			if err != nil {
				return nil, err
			}
			return v.(*O), nil
		}
	}
	return nil, fmt.Errorf("no pass in the table has options %T", *new(O))
}

// newOptions makes a new options struct for p with every declared option
// at its default: the one place defaults are filled.
func (p *Pass) newOptions() (Options, *Decls) {
	o := p.Func.fresh()
	d := p.Func.bind(o)
	for _, x := range d.list {
		x.reset()
	}
	return o, d
}

// checkOptions refuses a pass whose declarations repeat a name or whose
// defaults do not parse back or are not valid.
func checkOptions(p *Pass) error {
	o := p.Func.fresh()
	d := p.Func.bind(o)
	if d == nil {
		return fmt.Errorf("pass %s: options struct does not bind", p.Name)
	}
	seen := map[string]bool{}
	for _, x := range d.list {
		in := x.info()
		if in.Name == "" || seen[in.Name] {
			return fmt.Errorf("pass %s: option %q declared twice or without a name", p.Name, in.Name)
		}
		seen[in.Name] = true
		if err := x.set(in.Default); err != nil {
			return fmt.Errorf("pass %s: default of option %s: %w", p.Name, in.Name, err)
		}
		if !x.defaultReadsBack() {
			return fmt.Errorf("pass %s: default of option %s prints as %q, which reads back as another value", p.Name, in.Name, in.Default)
		}
	}
	return nil
}

// OptionValue is one option of a pass run as text, the way --set reads it.
type OptionValue struct{ Name, Value string }

// Values lists opts (p's options struct) as text, in declaration order.
func (p *Pass) Values(opts Options) []OptionValue {
	d := p.Func.bind(opts)
	if d == nil {
		return nil
	}
	out := make([]OptionValue, len(d.list))
	for i, x := range d.list {
		out[i] = OptionValue{x.info().Name, x.text()}
	}
	return out
}
