package passes

import (
	"github.com/anefix/anefix/graph/nearest"

	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/record"
)

// Spec is what a user asked for: the pipeline before it is resolved against
// the registry. The zero Spec is the default pipeline.
type Spec struct {
	// Passes, when non-empty, is the exact list to run, in this order.
	Passes []string
	// Enable and Disable toggle passes within the default pipeline.
	Enable, Disable []string
	// Set holds "pass.option=value" assignments.
	Set []string
	// PassesByEnable says that a non-empty Passes was built from --enable
	// (rewrite --arm-d), so usage hints name --enable, not --passes.
	PassesByEnable bool
	// Pipeline, when set, is the whole pipeline as Pipeline.String prints
	// it (rewrite --pipeline); nothing else may be set with it.
	Pipeline string
}

// UsageError is a pipeline request that cannot be built: an unknown pass or
// option, a bad option value, a conflicting toggle, a broken ordering
// constraint. Valid lists the names the user could have meant.
type UsageError struct {
	Msg   string
	Valid []string
	// Got is the unknown name, when Valid lists what it should have been:
	// the error then suggests the nearest.
	Got string
}

func (e *UsageError) Error() string {
	if len(e.Valid) == 0 {
		return e.Msg
	}
	return e.Msg + nearest.Hint(e.Got, e.Valid, "") + " (valid: " + strings.Join(e.Valid, ", ") + ")"
}

// Step is one pass of a resolved pipeline with its options struct
// (defaults applied, then --set).
type Step struct {
	Pass    *Pass
	Options Options
	// Set lists the options the user set explicitly, sorted.
	Set []string
}

// Pipeline is an ordered, checked list of passes and the settings they
// share.
type Pipeline struct {
	Steps []Step
	// Context carries the pipeline-level settings (settings.go) to every
	// pass.
	Context *Context
	// SettingsSet lists the settings the user set explicitly
	// ("states.pairs"), sorted.
	SettingsSet []string
}

// Names lists the pipeline's pass names in run order.
func (p *Pipeline) Names() []string {
	out := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		out[i] = s.Pass.Name
	}
	return out
}

// Build resolves a Spec: it picks the passes, checks the order constraints,
// applies option defaults and parses every --set value (or parses
// spec.Pipeline, which gives all of that in one string).
func Build(spec Spec) (*Pipeline, error) {
	if spec.Pipeline != "" {
		if len(spec.Passes)+len(spec.Enable)+len(spec.Disable)+len(spec.Set) > 0 || spec.PassesByEnable {
			return nil, &UsageError{Msg: "--pipeline gives the whole pipeline; it cannot be combined with --passes, --enable, --disable, --set or --arm-d"}
		}
		return ParsePipeline(spec.Pipeline)
	}
	names, err := selectPasses(spec)
	if err != nil {
		return nil, err
	}
	b, err := newBuilder(names)
	if err != nil {
		return nil, err
	}
	for _, a := range spec.Set {
		passName, opt, val, err := splitSet(a)
		if err != nil {
			return nil, err
		}
		what := "--set " + a
		if grp := settingGroup(passName); grp != nil {
			if err := b.setSetting(grp, opt, val, what); err != nil {
				return nil, err
			}
			continue
		}
		pass, ok := Lookup(passName)
		if !ok {
			return nil, &UsageError{Msg: fmt.Sprintf("--set %s: unknown pass %q", a, passName), Valid: append(Names(), settingGroupNames()...), Got: passName}
		}
		i, ok := b.index[passName]
		if !ok {
			how := "add it with --enable " + passName
			if len(spec.Passes) > 0 && !spec.PassesByEnable { // --enable cannot be combined with --passes
				how = "add it to --passes"
			}
			return nil, &UsageError{Msg: fmt.Sprintf("--set %s: pass %q is not in the pipeline (%s)", a, passName, how), Valid: names}
		}
		if err := b.setOption(i, pass, opt, val, what); err != nil {
			return nil, err
		}
	}
	return b.finish()
}

// builder is a pipeline being built: its steps with their options'
// declarations, and the settings'.
type builder struct {
	p     *Pipeline
	decls []*Decls
	index map[string]int
	set   *Settings
}

// newBuilder makes the pipeline of names, in this order, with every
// option and setting at its default; the order constraints are checked.
func newBuilder(names []string) (*builder, error) {
	if err := CheckOrder(names); err != nil {
		return nil, &UsageError{Msg: err.Error()}
	}
	b := &builder{p: &Pipeline{Context: &Context{}}, index: map[string]int{}, set: newSettings()}
	for _, n := range names {
		pass, _ := Lookup(n)
		o, d := pass.newOptions()
		b.index[n] = len(b.p.Steps)
		b.p.Steps = append(b.p.Steps, Step{Pass: pass, Options: o})
		b.decls = append(b.decls, d)
	}
	return b, nil
}

// setOption parses val into option opt of step i (what names the request
// in errors).
func (b *builder) setOption(i int, pass *Pass, opt, val, what string) error {
	x := b.decls[i].find(opt)
	if x == nil {
		if to, ok := movedOptions[pass.Name+"."+opt]; ok {
			return &UsageError{Msg: fmt.Sprintf("%s: %s.%s is a pipeline-wide setting now, which every pass reads: --set %s=%s", what, pass.Name, opt, to, val)}
		}
		return &UsageError{Msg: fmt.Sprintf("%s: pass %q has no option %q", what, pass.Name, opt), Valid: b.decls[i].names(), Got: opt}
	}
	if err := x.set(val); err != nil {
		return usageFor(what, err)
	}
	if !slices.Contains(b.p.Steps[i].Set, opt) {
		b.p.Steps[i].Set = append(b.p.Steps[i].Set, opt)
	}
	return nil
}

// setSetting parses val into option opt of setting group grp.
func (b *builder) setSetting(grp *Pass, opt, val, what string) error {
	d := b.set.groupDecls(grp)
	x := d.find(opt)
	if x == nil {
		return &UsageError{Msg: fmt.Sprintf("%s: setting group %q has no option %q", what, grp.Name, opt), Valid: d.names(), Got: opt}
	}
	if err := x.set(val); err != nil {
		return usageFor(what, err)
	}
	if k := grp.Name + "." + opt; !slices.Contains(b.p.SettingsSet, k) {
		b.p.SettingsSet = append(b.p.SettingsSet, k)
	}
	return nil
}

// finish checks the values that are wrong together and sorts the lists
// of what was set.
func (b *builder) finish() (*Pipeline, error) {
	p := b.p
	for i := range p.Steps {
		sort.Strings(p.Steps[i].Set)
		if c, ok := p.Steps[i].Options.(crossChecker); ok {
			if err := c.checkTogether(); err != nil {
				return nil, usageFor("pass "+p.Steps[i].Pass.Name, err)
			}
		}
	}
	sort.Strings(p.SettingsSet)
	p.Context.Settings = *b.set
	return p, nil
}

// usageFor makes err, met at what, a UsageError (a valueError's message
// names the values the option takes).
func usageFor(what string, err error) *UsageError {
	return &UsageError{Msg: what + ": " + err.Error()}
}

// movedOptions are pass options that became pipeline-level settings, so
// that --set with the old name says where the option went.
var movedOptions = map[string]string{
	"promote-states.names":         "states.pairs",
	"promote-states.auto":          "states.auto",
	"promote-states.kinds":         "states.kinds",
	"promote-states.affixes":       "states.affixes",
	"promote-states.include-kv":    "states.include-kv",
	"states-as-outputs.include-kv": "states.include-kv",
}

func settingGroupNames() []string {
	out := make([]string, len(settingGroups))
	for i, g := range settingGroups {
		out[i] = g.Name
	}
	return out
}

// selectPasses returns the pass names a Spec runs, in order.
func selectPasses(spec Spec) ([]string, error) {
	check := func(flag string, list []string) error {
		for _, n := range list {
			if _, ok := Lookup(n); !ok {
				return &UsageError{Msg: fmt.Sprintf("%s: unknown pass %q", flag, n), Valid: Names(), Got: n}
			}
		}
		return nil
	}
	if len(spec.Passes) > 0 {
		if len(spec.Enable)+len(spec.Disable) > 0 {
			return nil, &UsageError{Msg: "--passes gives the exact list; it cannot be combined with --enable/--disable"}
		}
		if err := check("--passes", spec.Passes); err != nil {
			return nil, err
		}
		return append([]string(nil), spec.Passes...), nil
	}
	if err := check("--enable", spec.Enable); err != nil {
		return nil, err
	}
	if err := check("--disable", spec.Disable); err != nil {
		return nil, err
	}
	on := map[string]bool{}
	for _, n := range Names() {
		p, _ := Lookup(n)
		on[n] = p.DefaultOn
	}
	for _, n := range spec.Enable {
		on[n] = true
	}
	for _, n := range spec.Disable {
		for _, e := range spec.Enable {
			if e == n {
				return nil, &UsageError{Msg: fmt.Sprintf("pass %q is both enabled and disabled", n)}
			}
		}
		on[n] = false
	}
	var out []string
	for _, n := range Names() {
		if on[n] {
			out = append(out, n)
		}
	}
	return out, nil
}

func splitSet(a string) (pass, opt, val string, err error) {
	eq := strings.IndexByte(a, '=')
	if eq < 0 {
		return "", "", "", &UsageError{Msg: fmt.Sprintf("--set %s: want pass.option=value", a)}
	}
	key, val := a[:eq], a[eq+1:]
	dot := strings.IndexByte(key, '.')
	if dot <= 0 || dot == len(key)-1 {
		return "", "", "", &UsageError{Msg: fmt.Sprintf("--set %s: want pass.option=value", a)}
	}
	return key[:dot], key[dot+1:], val, nil
}

// RunOptions tune Run.
type RunOptions struct {
	// VerifyEach runs graph.Verify after every pass.
	VerifyEach bool
	// VerifyAfter runs graph.Verify once after the last pass (implied by
	// VerifyEach), so that unverified IR is never written.
	VerifyAfter bool
	// AfterPass, when set, is called after each pass (and its verification)
	// with the pass name; passes/rewrite uses it to print the IR. An error stops
	// the pipeline.
	AfterPass func(pass string, m *graph.Module) error
	// Clock returns the current time (nil = time.Now); tests fix it.
	Clock func() time.Time
	// MaxMemory is Context.MaxMemory for this run (0: no bound).
	MaxMemory int64
	// Progress, when set, is told how far a pass has got (Context.Progress):
	// done of total units (unit "" is bytes). The CLI draws it as a bar.
	Progress func(pass string, done, total int64, unit string)
	// CheckPreserved computes every analysis (analyses.go) before each
	// pass and, after it, compares each one the pass declares it preserves
	// with the analysis made afresh: a difference stops the run with a
	// PassError (a false Preserves, a bug in the table), as does a pass
	// that asks for an analysis it does not declare in Requires. For
	// tests; it costs the analyses once per pass.
	CheckPreserved bool
}

// StepResult is what one pass did.
type StepResult struct {
	Pass string
	// Options lists every option of the run as text, in declaration order.
	Options []OptionValue
	Set     []string
	Change  *Change
	// Duration of the pass; Verify of the verifier after it (0 if off).
	Duration, Verify time.Duration
}

// Result is a whole pipeline run.
type Result struct {
	Steps []StepResult
	// CensusBefore and CensusAfter count values (op results and block
	// arguments) by element type.
	CensusBefore, CensusAfter Census
	Duration                  time.Duration
	// AnalysisRuns counts, by analysis name, how many times the run
	// computed each analysis the passes declare (analyses.go).
	AnalysisRuns map[string]int
}

// Record is anefix's record of the run (graph/record), written by tool
// ("anefix 0.1.0"): the passes in order and every change they made to the
// model's interface, each I/O change named by its pass and each state scale
// said in words. graph/modelio stores it in a directory output.
func (r *Result) Record(tool string) record.Record {
	out := record.Record{Tool: tool, Passes: []string{}, Entries: record.Entries{IOChanges: []record.IOChange{}, States: []record.State{}}}
	for _, s := range r.Steps {
		out.Passes = append(out.Passes, s.Pass)
		if s.Change != nil {
			out.Add(s.Change.Entries.By(s.Pass))
		}
	}
	return out
}

// PassError is a pass failure or a verification failure after a pass.
type PassError struct {
	Pass string
	// Verify is true when the pass returned but left the IR invalid.
	Verify bool
	Err    error
}

func (e *PassError) Error() string {
	if e.Verify {
		return fmt.Sprintf("pass %s left invalid IR (a bug in anefix; please report it with the input): %v", e.Pass, e.Err)
	}
	return fmt.Sprintf("pass %s: %v", e.Pass, e.Err)
}

func (e *PassError) Unwrap() error { return e.Err }

// Run applies the pipeline to m in order. It stops at the first failure and
// returns the steps done so far with a *PassError; m is then partly
// rewritten and must not be written out.
func (p *Pipeline) Run(m *graph.Module, ro RunOptions) (*Result, error) {
	now := ro.Clock
	if now == nil {
		now = time.Now
	}
	res := &Result{CensusBefore: TakeCensus(m)}
	// The run's own context: p's settings, this run's memory bound and a
	// cache of the analyses for m.
	ctx := p.Context
	if ro.MaxMemory > 0 {
		c := *cmp.Or(ctx, defaultContext())
		c.MaxMemory = ro.MaxMemory
		ctx = &c
	}
	ctx = ctx.withCache(m)
	res.AnalysisRuns = ctx.an.runs
	start := now()
	for _, s := range p.Steps {
		if ro.CheckPreserved {
			if err := ctx.an.fill(); err != nil {
				return res, &PassError{Pass: s.Pass.Name, Err: err}
			}
		}
		t0 := now()
		ch, err := runPass(ctx.reporting(s.Pass.Name, ro.Progress), s.Pass, m, s.Options)
		t1 := now()
		sr := StepResult{Pass: s.Pass.Name, Options: s.Pass.Values(s.Options), Set: s.Set, Change: ch, Duration: t1.Sub(t0)}
		if err != nil {
			res.Steps = append(res.Steps, sr)
			return res, &PassError{Pass: s.Pass.Name, Err: err}
		}
		if ro.CheckPreserved {
			err := ctx.an.checkRequired(s.Pass)
			if err == nil {
				err = ctx.an.checkPreserved(s.Pass)
			}
			if err != nil {
				res.Steps = append(res.Steps, sr)
				return res, &PassError{Pass: s.Pass.Name, Err: err}
			}
		}
		ctx.an.keep(s.Pass)
		if ro.VerifyEach {
			verr := graph.Verify(m)
			sr.Verify = now().Sub(t1)
			if verr != nil {
				res.Steps = append(res.Steps, sr)
				return res, &PassError{Pass: s.Pass.Name, Verify: true, Err: verr}
			}
		}
		res.Steps = append(res.Steps, sr)
		if ro.AfterPass != nil {
			if err := ro.AfterPass(s.Pass.Name, m); err != nil {
				return res, err
			}
		}
	}
	res.Duration = now().Sub(start)
	res.CensusAfter = TakeCensus(m)
	if ro.VerifyAfter && !ro.VerifyEach {
		if err := graph.Verify(m); err != nil {
			return res, fmt.Errorf("the IR after the pipeline does not verify (rerun with --verify-each to find the pass): %w", err)
		}
	}
	return res, nil
}

// VerifyInput is the check every command that runs passes or the graph
// makes before it starts: m, read from path, verifies. When it does not and
// weights are absent (an excerpt without its dialect_resources), the error
// says so first, with needs (why this command needs them); otherwise it
// says the input does not verify, so otherwise (what is not done).
func VerifyInput(m *graph.Module, path, needs, otherwise string) error {
	err := graph.Verify(m)
	if err == nil {
		return nil
	}
	if absent := absentWeights(m); len(absent) > 0 {
		return fmt.Errorf("%s: %s; %s", path, AbsentWeightsNote(absent), needs)
	}
	return fmt.Errorf("%s: the input does not verify, so %s: %w", path, otherwise, err)
}

// runPass calls a pass, turning a panic into an error so a bug in one pass
// becomes a message naming it instead of a crash.
func runPass(ctx *Context, p *Pass, m *graph.Module, opts Options) (ch *Change, err error) {
	defer func() {
		if r := recover(); r != nil {
			ch, err = nil, fmt.Errorf("internal error (please report it with the input): %v", r)
		}
	}()
	ch, err = p.RunIn(ctx, m, opts)
	if err == nil && ch == nil {
		ch = &Change{}
	}
	return ch, err
}

// IsUsage reports whether err is a pipeline usage error.
func IsUsage(err error) bool {
	var u *UsageError
	return errors.As(err, &u)
}

// Census counts values by element type ("f16", "f32", "si32", "!coreai.token").
type Census map[string]int64

// TakeCensus counts every op result and block argument in the module.
func TakeCensus(m *graph.Module) Census { return Census(graph.ElementTypeCounts(m.Op)) }

// Sorted lists the census entries by element type name.
func (c Census) Sorted() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
