package passes

// The one place pass options are parsed. Every pass has an options struct
// (ArmDOptions, DCEOptions, …) whose fields carry the option's name in an
// `opt` tag; the pass's About declares each option (kind, textual default,
// doc, check). newOptions fills every default, setOption parses one
// "value" the way --set gives it: the pipeline (Build), Defaults and
// ParseOptions all go through these two, so a pass run directly sees the
// same defaults as one run by the CLI.

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
)

// Options is one pass's parsed options: a pointer to its options struct.
type Options any

// NoOptions is the options struct of a pass without options.
type NoOptions struct{}

// OptionKind is the type of an option value.
type OptionKind int

const (
	OptBool OptionKind = iota
	OptString
	OptInt
	OptStringList // comma-separated
)

// OptionSpec declares one typed option with its default.
type OptionSpec struct {
	Name    string
	Kind    OptionKind
	Default string // textual default, parsed like a --set value
	Doc     string
	// Check, when set, rejects a value of the right kind that is still
	// malformed (such as a pair without "="), so that --set reports it as a
	// usage error before any pass runs.
	Check func(v any) error
	// Values, when set, are the only values the option takes (an enum; for
	// a list option, each element must be one of them). Any other is
	// refused when the pipeline is built, with a UsageError listing them,
	// and the docs list them.
	Values []string
}

// ValueError is a value outside the allowed values of an option (declared
// Values, or values another option defines, such as arm-d's kinds).
type ValueError struct {
	Option, Value string
	Valid         []string
	// Of says where Valid comes from when another option defines it.
	Of string
}

func (e *ValueError) Error() string {
	valid := strings.Join(e.Valid, ", ")
	if n := len(e.Valid); n > 1 {
		valid = strings.Join(e.Valid[:n-1], ", ") + " or " + e.Valid[n-1]
	}
	if e.Of != "" {
		valid += " (" + e.Of + ")"
	}
	return fmt.Sprintf("option %s: %q is not %s", e.Option, e.Value, valid)
}

// checkValues refuses v (a string or a list) when o declares Values and v
// is, or holds, none of them.
func checkValues(o OptionSpec, v any) error {
	if len(o.Values) == 0 {
		return nil
	}
	var vals []string
	switch x := v.(type) {
	case string:
		vals = []string{x}
	case []string:
		vals = x
	}
	for _, s := range vals {
		if !slices.Contains(o.Values, s) {
			return &ValueError{Option: o.Name, Value: s, Valid: o.Values}
		}
	}
	return nil
}

// CheckValue checks v against the declared Values of option name of a
// pass's About, for a pass that is called directly with an options struct
// (Build has checked every value it parsed).
func (a *About) CheckValue(name string, v any) error {
	for _, o := range a.Options {
		if o.Name == name {
			return checkValues(o, v)
		}
	}
	return fmt.Errorf("no option %s", name)
}

// runner is a pass's function with its options type erased, so the table
// can hold passes with different options structs.
type runner struct {
	typ reflect.Type // the options struct (not the pointer)
	fn  func(ctx *Context, m *graph.Module, opts any) (*Change, error)
}

// bind makes the table's runner for a pass whose options struct is O and
// that reads no pipeline setting.
func bind[O any](f func(m *graph.Module, opts *O) (*Change, error)) runner {
	return bindCtx(func(_ *Context, m *graph.Module, o *O) (*Change, error) { return f(m, o) })
}

// bindCtx makes the runner of a pass that also reads the pipeline's
// settings (settings.go).
func bindCtx[O any](f func(ctx *Context, m *graph.Module, opts *O) (*Change, error)) runner {
	return runner{typ: reflect.TypeFor[O](), fn: func(ctx *Context, m *graph.Module, opts any) (*Change, error) {
		o, ok := opts.(*O)
		if !ok || o == nil {
			return nil, fmt.Errorf("options are %T, want *%s", opts, reflect.TypeFor[O]())
		}
		if ctx == nil {
			ctx = DefaultContext()
		}
		return f(ctx, m, o)
	}}
}

// Run applies the pass with opts, which must be its options struct (from
// Defaults, ParseOptions or a pipeline Step), under the default settings.
func (p *Pass) Run(m *graph.Module, opts Options) (*Change, error) { return p.RunIn(nil, m, opts) }

// RunIn applies the pass under ctx's settings (nil: the defaults).
func (p *Pass) RunIn(ctx *Context, m *graph.Module, opts Options) (*Change, error) {
	return p.Func.fn(ctx, m, opts)
}

// Defaults returns p's options with every option at its default.
func (p *Pass) Defaults() (Options, error) {
	v, err := p.newOptions()
	if err != nil {
		return nil, err
	}
	return v.Interface(), nil
}

// ParseOptions returns p's options: defaults, then each "option=value" of
// sets applied in order. An unknown option or a bad value is an error.
func (p *Pass) ParseOptions(sets ...string) (Options, error) {
	v, err := p.newOptions()
	if err != nil {
		return nil, err
	}
	for _, s := range sets {
		name, val, ok := strings.Cut(s, "=")
		if !ok {
			return nil, fmt.Errorf("%s: %q: want option=value", p.Name, s)
		}
		o := findOption(p, name)
		if o == nil {
			return nil, fmt.Errorf("%s: no option %q (valid: %s)", p.Name, name, strings.Join(optionNames(p), ", "))
		}
		if err := setOption(v, *o, val); err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name, err)
		}
	}
	return v.Interface(), nil
}

// Defaults returns the default options of the pass whose options struct is
// O, for code that runs a pass directly (graph/synth's ArmD, tests).
func Defaults[O any]() *O {
	o, err := ParseOptions[O]()
	if err != nil {
		panic("passes: " + err.Error()) // defaults are checked at init
	}
	return o
}

// ParseOptions returns the options of the pass whose options struct is O:
// defaults, then sets ("option=value") applied.
func ParseOptions[O any](sets ...string) (*O, error) {
	typ := reflect.TypeFor[O]()
	for _, p := range table {
		if p.Func.typ == typ {
			v, err := p.ParseOptions(sets...)
			if err != nil {
				return nil, err
			}
			return v.(*O), nil
		}
	}
	return nil, fmt.Errorf("no pass in the table has options %s", typ)
}

// newOptions makes a new options struct for p with every declared option
// at its default: the one place defaults are filled.
func (p *Pass) newOptions() (reflect.Value, error) {
	v := reflect.New(p.Func.typ)
	for _, o := range p.Options {
		if err := setOption(v, o, o.Default); err != nil {
			return reflect.Value{}, fmt.Errorf("pass %s: default of option %s: %w", p.Name, o.Name, err)
		}
	}
	return v, nil
}

// setOption parses s for option o (applying o.Check) and stores it in the
// struct field tagged with o's name; ptr points at the options struct.
func setOption(ptr reflect.Value, o OptionSpec, s string) error {
	x, err := ParseOption(o, s)
	if err != nil {
		return err
	}
	f, err := optionField(ptr.Elem(), o)
	if err != nil {
		return err
	}
	f.Set(reflect.ValueOf(x))
	return nil
}

// optionField finds the field of options struct v tagged `opt:"<o.Name>"`
// and checks its Go type matches o.Kind.
func optionField(v reflect.Value, o OptionSpec) (reflect.Value, error) {
	want := map[OptionKind]reflect.Type{OptBool: reflect.TypeFor[bool](), OptString: reflect.TypeFor[string](),
		OptInt: reflect.TypeFor[int](), OptStringList: reflect.TypeFor[[]string]()}[o.Kind]
	t := v.Type()
	for i := range t.NumField() {
		if t.Field(i).Tag.Get("opt") != o.Name {
			continue
		}
		if t.Field(i).Type != want {
			return reflect.Value{}, fmt.Errorf("option %s: field %s.%s is %s, want %v", o.Name, t.Name(), t.Field(i).Name, t.Field(i).Type, want)
		}
		return v.Field(i), nil
	}
	return reflect.Value{}, fmt.Errorf("option %s: %s has no field tagged opt:%q", o.Name, t.Name(), o.Name)
}

// checkOptions refuses a pass whose options struct and declared options do
// not match one to one, or whose defaults do not parse.
func checkOptions(p *Pass) error {
	if _, err := p.newOptions(); err != nil {
		return err
	}
	t := p.Func.typ
	for i := range t.NumField() {
		if n := t.Field(i).Tag.Get("opt"); n == "" || findOption(p, n) == nil {
			return fmt.Errorf("pass %s: field %s.%s is not a declared option", p.Name, t.Name(), t.Field(i).Name)
		}
	}
	return nil
}

// OptionValue is one option of a pass run as text, the way --set reads it.
type OptionValue struct{ Name, Value string }

// Values lists opts (p's options struct) as text, in declaration order.
func (p *Pass) Values(opts Options) []OptionValue {
	v := reflect.ValueOf(opts)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Type() != p.Func.typ {
		return nil
	}
	var out []OptionValue
	for _, o := range p.Options {
		f, err := optionField(v.Elem(), o)
		if err != nil {
			continue
		}
		out = append(out, OptionValue{o.Name, FormatOption(f.Interface())})
	}
	return out
}

func findOption(p *Pass, name string) *OptionSpec {
	for i := range p.Options {
		if p.Options[i].Name == name {
			return &p.Options[i]
		}
	}
	return nil
}

func optionNames(p *Pass) []string {
	out := make([]string, len(p.Options))
	for i, o := range p.Options {
		out[i] = o.Name
	}
	if len(out) == 0 {
		out = []string{"(none)"}
	}
	return out
}

// ParseOption parses a textual value for an option of the given kind and
// applies the option's Check.
func ParseOption(o OptionSpec, s string) (any, error) {
	v, err := parseKind(o, s)
	if err == nil {
		if verr := checkValues(o, v); verr != nil {
			return nil, verr
		}
	}
	if err == nil && o.Check != nil {
		if cerr := o.Check(v); cerr != nil {
			return nil, fmt.Errorf("option %s: %w", o.Name, cerr)
		}
	}
	return v, err
}

func parseKind(o OptionSpec, s string) (any, error) {
	switch o.Kind {
	case OptBool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("option %s wants true or false, got %q", o.Name, s)
		}
		return b, nil
	case OptInt:
		n, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("option %s wants an integer, got %q", o.Name, s)
		}
		return n, nil
	case OptString:
		return s, nil
	case OptStringList:
		var out []string
		for _, x := range strings.Split(s, ",") {
			if x = strings.TrimSpace(x); x != "" {
				out = append(out, x)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("option %s has an unknown kind", o.Name)
}

// String is how docs and usage errors name an option kind.
func (k OptionKind) String() string {
	switch k {
	case OptBool:
		return "bool"
	case OptString:
		return "string"
	case OptInt:
		return "int"
	case OptStringList:
		return "list"
	}
	return "?"
}

// FormatOption prints an option value the way --set reads it.
func FormatOption(v any) string {
	switch x := v.(type) {
	case []string:
		return strings.Join(x, ",")
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
