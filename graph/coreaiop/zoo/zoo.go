// Package zoo generates the op zoo: for every op of the op table
// (graph/coreaiop) that has an example signature, one small module in each
// of three forms, in coreai's printed form as coreai-torch prints it and in
// MLIR's generic form. Tests over the zoo hold anefix's promises (every
// module parses, the default rewrite succeeds, check afterwards names no
// blocker a default pass would fix) on graphs nobody wrote by hand.
//
// The forms:
//   - island: the op computes in f32 between casts from and to f16 graph
//     ports (an fp32 island, as a mixed-precision export writes one);
//   - f16: everything in f16;
//   - f32-io: everything in f32, the graph's own interface included.
//
// Ops without float data (bitwise_and on si32, not on i1) give the same
// module in every form. Output is deterministic: the same table gives the
// same bytes.
package zoo

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/anefix/anefix/graph/coreaiop"
	"github.com/anefix/anefix/graph/mlirtext"
	"github.com/anefix/anefix/graph/synth/expect"
)

// The three forms.
const (
	formIsland = "island"
	formF16    = "f16"
	FormF32IO  = "f32-io"
)

// allForms lists the forms in generation order.
var allForms = []string{formIsland, formF16, FormF32IO}

// Module is one generated module.
type Module struct {
	// Name is "<op>/<form>", or "<op>:<variant>/<form>" when an op has more
	// than one module (coreai.invoke of a graph with and without a body).
	Name, Op, Form string
	// Text is the module in coreai's printed form; Generic the same module
	// in MLIR's generic form (what mlir-opt reads).
	Text, Generic []byte
}

// Skip is a table row the zoo has no module for, with why.
type Skip struct {
	Op, Why string
}

// Modules returns every zoo module, in table order then form order.
func Modules() []Module {
	ms, _ := build()
	return ms
}

// Skipped lists the rows without modules and why (no public signature, or
// a generation error, which the zoo's tests refuse).
func Skipped() []Skip {
	_, sk := build()
	return sk
}

func build() ([]Module, []Skip) {
	var out []Module
	var skips []Skip
	for _, o := range coreaiop.All() {
		variants := templates(o)
		if len(variants) == 0 {
			skips = append(skips, Skip{Op: o.Name, Why: whyNoModule(o)})
			continue
		}
		for _, v := range variants {
			for _, form := range allForms {
				name := o.Name
				if v.name != "" {
					name += ":" + v.name
				}
				text := v.text(form)
				m, _, err := mlirtext.Parse(name+"/"+form+".mlir", text)
				if err != nil {
					skips = append(skips, Skip{Op: name, Why: fmt.Sprintf("generated %s module does not parse (a zoo bug): %v", form, err)})
					continue
				}
				pretty, err1 := mlirtext.Format(m, mlirtext.FormPretty)
				generic, err2 := mlirtext.Format(m, mlirtext.FormGeneric)
				if err1 != nil || err2 != nil {
					skips = append(skips, Skip{Op: name, Why: fmt.Sprintf("generated %s module does not print (a zoo bug): %v %v", form, err1, err2)})
					continue
				}
				out = append(out, Module{Name: name + "/" + form, Op: o.Name, Form: form, Text: pretty, Generic: generic})
			}
		}
	}
	return out, skips
}

func whyNoModule(o *coreaiop.Op) string {
	switch {
	case !o.Torch:
		return "not emitted by coreai-torch (a name anefix's earlier lists accepted) and no public signature"
	case o.Terminator:
		return "a terminator: the modules of coreai.if, coreai.while and every graph use it"
	case o.Name == "coreai.create_token" || o.Name == "coreai.write_handle":
		return "a state op: the coreai.read_handle modules use it"
	}
	return "no public signature: coreai-torch's tests leave its types out"
}

// variant is one module shape of an op; text gives it in a form.
type variant struct {
	name string
	text func(form string) string
}

func templates(o *coreaiop.Op) []variant {
	switch o.Name {
	case "coreai.if":
		return []variant{{text: ifModule}}
	case "coreai.while":
		return []variant{{text: whileModule}}
	case "coreai.invoke":
		return []variant{{name: "body", text: invokeModule(true)}, {name: "external", text: invokeModule(false)}}
	case "coreai.read_handle":
		return []variant{{text: handleModule}}
	case "coreai.constant":
		return []variant{{text: constantModule}}
	case "coreai.metal4_kernel":
		return []variant{{text: metalModule}}
	}
	if o.Example == nil {
		return nil
	}
	vs := []variant{{text: func(form string) string { return exampleModule(o, form, o.Example) }}}
	if d := dynamicExamples[o.Name]; d != nil {
		// A rank change on a dynamic shape at the graph boundary, as
		// coreai-torch's dynamic-shape tests print it
		// (tests/ops/test_ops_ir.py): fold-io-unsqueeze cannot prove it.
		vs = append(vs, variant{name: "dynamic", text: func(form string) string { return exampleModule(o, form, d) }})
	}
	return vs
}

var dynamicExamples = map[string]*coreaiop.Example{
	"coreai.expand_dims": {Operands: []coreaiop.Arg{{Type: "tensor<?x3xF>"}, {Type: "tensor<1xsi32>", Value: "1"}}, Results: []string{"tensor<?x1x3xF>"}},
	"coreai.shrink_dims": {Operands: []coreaiop.Arg{{Type: "tensor<?x1xF>"}, {Type: "tensor<1xsi32>", Value: "1"}}, Results: []string{"tensor<?xF>"}},
}

// floatElem finds the placeholder F as an element type (`xF>`, `<F>`,
// `complex<F>`).
var floatElem = regexp.MustCompile(`([<x])F([>,])`)

func subst(t, f string) string { return floatElem.ReplaceAllString(t, "${1}"+f+"${2}") }

func hasF(t string) bool { return floatElem.MatchString(t) }

// gen writes one graph: ports, body lines, outputs.
type gen struct {
	form      string
	compute   string // the float type ops compute in
	ins       []string
	body      []string
	outs      []string
	outTypes  []string
	n         int
	graphHead string // text before the main graph (callees)
}

func newGen(form string) *gen {
	g := &gen{form: form, compute: "f32"}
	if form == formF16 {
		g.compute = "f16"
	}
	return g
}

func (g *gen) val() string {
	v := fmt.Sprintf("%%v%d", g.n)
	g.n++
	return v
}

func (g *gen) line(format string, args ...any) { g.body = append(g.body, fmt.Sprintf(format, args...)) }

// portFloat is the float type of a graph port carrying an F value: f16 for
// an island (its shores are casts), else the compute type. A complex value
// keeps the compute type (no complex<f16> is on record).
func (g *gen) portFloat(t string) string {
	if g.form == formIsland && !strings.Contains(t, "complex<") {
		return "f16"
	}
	return g.compute
}

// input adds a graph input of example type t and returns the value the op
// reads (after the island's cast from f16).
func (g *gen) input(t string) string {
	ct := subst(t, g.compute)
	pt := ct
	if hasF(t) {
		pt = subst(t, g.portFloat(t))
	}
	arg := fmt.Sprintf("%%arg%d", len(g.ins))
	g.ins = append(g.ins, fmt.Sprintf("%s: %s {coreai.name = \"in%d\"}", arg, pt, len(g.ins)))
	if pt == ct {
		return arg
	}
	v := g.val()
	g.line(`%s = "coreai.cast"(%s) : (%s) -> %s`, v, arg, pt, ct)
	return v
}

func (g *gen) constant(t, value string) string {
	ct := subst(t, g.compute)
	v := g.val()
	g.line(`%s = "coreai.constant"() <{value = dense<%s> : %s}> : () -> %s`, v, value, ct, ct)
	return v
}

// output returns v (of example type t) as a graph output, through the
// island's cast back to f16.
func (g *gen) output(v, t string) {
	ct := subst(t, g.compute)
	pt := ct
	if hasF(t) {
		pt = subst(t, g.portFloat(t))
	}
	if pt != ct {
		c := g.val()
		g.line(`%s = "coreai.cast"(%s) : (%s) -> %s`, c, v, ct, pt)
		v = c
	}
	g.outs = append(g.outs, v)
	g.outTypes = append(g.outTypes, pt)
}

func (g *gen) module() string {
	var b strings.Builder
	b.WriteString("module {\n")
	b.WriteString(g.graphHead)
	var res []string
	for i, t := range g.outTypes {
		res = append(res, fmt.Sprintf("%s {coreai.name = \"out%d\"}", t, i))
	}
	fmt.Fprintf(&b, "  coreai.graph @main(%s) -> (%s) {\n", strings.Join(g.ins, ", "), strings.Join(res, ", "))
	for _, l := range g.body {
		b.WriteString("    " + l + "\n")
	}
	fmt.Fprintf(&b, "    coreai.output %s : %s\n  }\n}\n", strings.Join(g.outs, ", "), strings.Join(g.outTypes, ", "))
	return b.String()
}

// exampleModule applies the op to its example operands (graph inputs and
// constants) and returns its results.
func exampleModule(o *coreaiop.Op, form string, e *coreaiop.Example) string {
	g := newGen(form)
	var args, types []string
	for _, a := range e.Operands {
		if a.Value != "" {
			args = append(args, g.constant(a.Type, a.Value))
		} else {
			args = append(args, g.input(a.Type))
		}
		types = append(types, subst(a.Type, g.compute))
	}
	name := o.Name
	if o.Decomposable {
		name = "coreai.decomposable." + strings.TrimPrefix(o.Name, "coreai.")
	}
	var results []string
	for range e.Results {
		results = append(results, g.val())
	}
	var rt []string
	for _, t := range e.Results {
		rt = append(rt, subst(t, g.compute))
	}
	props, attrs := "", ""
	if e.Props != "" {
		props = " <{" + e.Props + "}>"
	}
	if e.Attrs != "" {
		attrs = " {" + e.Attrs + "}"
	}
	region := ""
	if o.Regions == coreaiop.Combiner {
		// The combiner replaces the old value with the new one, as
		// coreai-torch's index_put prints it.
		s := "tensor<" + g.compute + ">"
		region = fmt.Sprintf(` ({
    ^bb0(%%old: %s, %%new: %s):
      "coreai.yield"(%%new) : (%s) -> ()
    })`, s, s, s)
	}
	g.line(`%s = "%s"(%s)%s%s%s : (%s) -> %s`, strings.Join(results, ", "), name, strings.Join(args, ", "), props, region, attrs,
		strings.Join(types, ", "), resultList(rt))
	for i, r := range results {
		g.output(r, e.Results[i])
	}
	return g.module()
}

func resultList(ts []string) string {
	if len(ts) == 1 {
		return ts[0]
	}
	return "(" + strings.Join(ts, ", ") + ")"
}

// ifModule: coreai.if on an i1 input, exp in one branch and abs in the
// other (the structure of coreai-torch's TestCondIR, with other ops).
func ifModule(form string) string {
	g := newGen(form)
	c := g.input("tensor<i1>")
	x := g.input("tensor<2x3xF>")
	t := subst("tensor<2x3xF>", g.compute)
	r := g.val()
	g.line(`%s = "coreai.if"(%s) ({
      %%t = "coreai.exp"(%s) : (%s) -> %s
      "coreai.yield"(%%t) : (%s) -> ()
    }, {
      %%e = "coreai.abs"(%s) : (%s) -> %s
      "coreai.yield"(%%e) : (%s) -> ()
    }) : (tensor<i1>) -> %s`, r, c, x, t, t, t, x, t, t, t, t)
	g.output(r, "tensor<2x3xF>")
	return g.module()
}

// whileModule: add 1 while the sum stays below 10 (coreai-torch's
// TestWhileLoopIR), carried value and condition as
// testdata/mlir/coreai/while.mlir guesses them.
func whileModule(form string) string {
	g := newGen(form)
	x := g.input("tensor<2x3xF>")
	t := subst("tensor<2x3xF>", g.compute)
	s := subst("tensor<F>", g.compute)
	ten := g.constant("tensor<F>", "10.0")
	one := g.constant("tensor<F>", "1.0")
	axes := g.constant("tensor<2xsi32>", "[0, 1]")
	shape := g.constant("tensor<0xui32>", "")
	r := g.val()
	g.line(`%s = "coreai.while"(%s) ({
    ^bb0(%%a: %s):
      %%sum = "coreai.reduce_sum"(%%a, %s) : (%s, tensor<2xsi32>) -> %s
      %%gt = "coreai.decomposable.broadcasting_greater"(%s, %%sum) : (%s, %s) -> tensor<1x1xi1>
      %%flag = "coreai.reshape"(%%gt, %s) : (tensor<1x1xi1>, tensor<0xui32>) -> tensor<i1>
      "coreai.condition"(%%flag, %%a) : (tensor<i1>, %s) -> ()
    }, {
    ^bb0(%%b: %s):
      %%next = "coreai.decomposable.broadcasting_add"(%%b, %s) : (%s, %s) -> %s
      "coreai.yield"(%%next) : (%s) -> ()
    }) : (%s) -> %s`, r, x, t, axes, t, subst("tensor<1x1xF>", g.compute), ten, s, subst("tensor<1x1xF>", g.compute), shape, t,
		t, one, t, s, t, t, t, t)
	g.output(r, "tensor<2x3xF>")
	return g.module()
}

// invokeModule: main invokes a private graph, with its body in the module
// or only declared (a call to a graph that lives elsewhere).
func invokeModule(body bool) func(form string) string {
	return func(form string) string {
		g := newGen(form)
		x := g.input("tensor<2x3xF>")
		t := subst("tensor<2x3xF>", g.compute)
		if body {
			g.graphHead = fmt.Sprintf(`  coreai.graph private noinline @callee(%%arg0: %s) -> %s {
    %%0 = "coreai.exp"(%%arg0) : (%s) -> %s
    coreai.output %%0 : %s
  }
`, t, t, t, t, t)
		} else {
			g.graphHead = fmt.Sprintf("  coreai.graph private @callee(%s) -> %s\n", t, t)
		}
		r := g.val()
		g.line(`%s = coreai.invoke @callee(%s) : (%s) -> %s`, r, x, t, t)
		g.output(r, "tensor<2x3xF>")
		return g.module()
	}
}

// handleModule: a state in the handle form make_stateful prints
// (testdata/mlir/coreai/state_handle.mlir): create_token, read_handle,
// slice_update of the read value, write_handle, the token returned. The
// state is f16 in the f16 form and f32 otherwise; in the island form the
// update comes from an f16 input through a cast.
func handleModule(form string) string {
	g := newGen(form)
	t := subst("tensor<1x4xF>", g.compute)
	h := "!coreai.handle<" + t + ">"
	g.ins = append(g.ins, fmt.Sprintf("%%arg0: %s {MutableBuffers.buffer_mutation = \"state\", coreai.name = \"state\"}", h))
	x := g.input("tensor<1x2xF>")
	u := subst("tensor<1x2xF>", g.compute)
	tok := g.val()
	g.line(`%s = coreai.create_token : !coreai.token`, tok)
	rd, tok2 := g.val(), g.val()
	g.line(`%s, %s = coreai.read_handle %%arg0, %s : (<%s>, !coreai.token) -> (%s, !coreai.token)`, rd, tok2, tok, t, t)
	b := g.constant("tensor<2xsi32>", "[0, 2]")
	e := g.constant("tensor<2xsi32>", "[1, 4]")
	s := g.constant("tensor<2xsi32>", "1")
	up := g.val()
	g.line(`%s = coreai.slice_update %s with %s at (%s, %s, %s) : (%s, %s, tensor<2xsi32>, tensor<2xsi32>, tensor<2xsi32>) to %s`, up, rd, x, b, e, s, t, u, t)
	tok3 := g.val()
	g.line(`%s = coreai.write_handle %%arg0, %s, %s : (<%s>, %s, !coreai.token) -> !coreai.token`, tok3, up, tok2, t, t)
	g.outs = append(g.outs, tok3)
	g.outTypes = append(g.outTypes, "!coreai.token")
	// The module's first output is the token (named like the state).
	mod := g.module()
	return strings.Replace(mod, `!coreai.token {coreai.name = "out0"}`, `!coreai.token {coreai.name = "state"}`, 1)
}

// constantModule: a constant added to an input.
func constantModule(form string) string {
	g := newGen(form)
	x := g.input("tensor<2x3xF>")
	t := subst("tensor<2x3xF>", g.compute)
	c := g.constant("tensor<2x3xF>", "[[0.5, -1.0, 2.0], [0.25, 3.0, -0.75]]")
	r := g.val()
	g.line(`%s = "coreai.decomposable.broadcasting_add"(%s, %s) : (%s, %s) -> %s`, r, x, c, t, t, t)
	g.output(r, "tensor<2x3xF>")
	return g.module()
}

// metalModule: a custom Metal kernel over two inputs, in the form of
// testdata/mlir/coreai/metal_kernel.mlir (coreai-torch's tests/dsl).
func metalModule(form string) string {
	g := newGen(form)
	a := g.input("tensor<2x3xF>")
	b := g.input("tensor<2x3xF>")
	t := subst("tensor<2x3xF>", g.compute)
	grid := g.constant("tensor<3xui32>", "[6, 1, 1]")
	group := g.constant("tensor<3xui32>", "[32, 1, 1]")
	shape := g.constant("tensor<3xui32>", "[2, 3, 1]")
	r := g.val()
	g.line(`%s = coreai.metal4_kernel kernel_args(%s, %s), threads_per_grid %s, threads_per_thread_group %s, result_shapes(%s) {kernel_name = "zoo_add", kernel_source = "kernel void zoo_add() {}"} : (%s, %s, tensor<3xui32>, tensor<3xui32>, tensor<3xui32>) -> %s`,
		r, a, b, grid, group, shape, t, t, t)
	g.output(r, "tensor<2x3xF>")
	return g.module()
}

// Expect is what the default rewrite must make of the module, for the
// property tests: the f16 form has no f32 value and the rewrite must not
// make one, unless the op has a float setting that stays f32 whatever the
// data's type (a FloatParam operand: interpolate's scale and offset). The island form's cast sandwich neither holds a graph port nor
// writes back what it reads, and f32-io's interface is the caller's
// choice: what becomes of those is anefix's model of the compiler
// (passes/anefacts), not the zoo's to say. externalize-constant refuses
// every module: with one op, no constant feeds both an embedding's
// gather_nd and a matmul (the tied table it takes by default).
func (m Module) Expect() expect.Expect {
	f32Param := false
	if o := coreaiop.Lookup(m.Op); o != nil {
		for _, r := range o.Operands {
			f32Param = f32Param || r == coreaiop.FloatParam
		}
	}
	return expect.Expect{NoF32: m.Form == formF16 && !f32Param,
		Refuses: map[string]string{"externalize-constant": "one op: no tied embedding/head table"}}
}
