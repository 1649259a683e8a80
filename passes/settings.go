package passes

import (
	"math/rand/v2"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/passes/anefacts"
)

// Settings are what the whole pipeline shares, besides each pass's own
// options: set with --set <group>.<option>=<value> like a pass option, read
// by every pass from its Context, never from another pass's defaults (when
// scale-state read promote-states' defaults, --set promote-states.kinds=…
// never reached it). MLIR's pipeline-level options are the model.
type Settings struct {
	States StateSettings
}

// StateSettings say how the state analysis (graph/states.go) pairs each
// state input with the output carrying its new value, and which states the
// state passes (promote-states, states-as-outputs, scale-state) act on.
// strip-fp32-casts, fold-io-unsqueeze and the element-type analysis it asks
// pair states the same way.
type StateSettings struct {
	Pairs     []StatePairOption
	Auto      bool
	Kinds     []string
	Affixes   []string
	IncludeKV bool
}

func (s *StateSettings) declare(d *Decls) {
	Declare(d, &s.Pairs, Option[[]StatePairOption]{Name: "pairs", Doc: "explicit pairs input=output (comma-separated), taken before automatic pairing",
		Codec: ListCodec(parseStatePair, StatePairOption.String, sampleStatePair)})
	Declare(d, &s.Auto, Option[bool]{Name: "auto", Default: true, Doc: "pair states automatically (dataflow, then names); false: only the export's own states and pairs="})
	Declare(d, &s.Kinds, Option[[]string]{Name: "kinds", Default: graph.DefaultStateKinds, Doc: "name words that mark a recurrent state (with or without a state/cache word)"})
	Declare(d, &s.Affixes, Option[[]string]{Name: "affixes", Default: graph.DefaultStateAffixes, Doc: "words an output's name adds to its state's name"})
	Declare(d, &s.IncludeKV, Option[bool]{Name: "include-kv", Doc: "let the state passes act on key/value caches too (promote-states, states-as-outputs, scale-state)"})
}

// StatePairOption is one pair of states.pairs: input In is paired with
// output Out.
type StatePairOption struct{ In, Out string }

// String is the pair as states.pairs takes it ("in=out").
func (p StatePairOption) String() string { return p.In + "=" + p.Out }

func parseStatePair(s string) (StatePairOption, error) {
	in, out, err := graph.ParseStatePair(s)
	return StatePairOption{in, out}, err
}

func sampleStatePair(r *rand.Rand) StatePairOption {
	names := []string{"conv_state", "rec_state", "a.b", "x"}
	return StatePairOption{names[r.IntN(len(names))], names[r.IntN(len(names))] + "_out"}
}

// Analysis is the state analysis' options under these settings.
func (s StateSettings) Analysis() graph.StateOptions {
	pairs := make([]string, len(s.Pairs))
	for i, p := range s.Pairs {
		pairs[i] = p.String()
	}
	if len(pairs) == 0 {
		pairs = nil
	}
	return graph.StateOptions{Pairs: pairs, NoAuto: !s.Auto, Kinds: nonNil(s.Kinds), Affixes: nonNil(s.Affixes)}
}

// nonNil keeps an emptied list ("--set states.kinds=") from meaning "the
// default" to the analysis.
func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

var stateSettingsAbout = About{
	Summary: "how state inputs are paired with the outputs carrying their new values, for every pass",
	Doc: `A state is an input whose new value an output carries. The export marks
some (MutableBuffers.buffer_mutation, !coreai.handle inputs); the others are
plain pairs, found by dataflow first: the output is the input written in
place (slice_update), a shifted window of it (concat of a slice), or
computed from it by ops that keep its element count (a recurrence), with
the same type. The weakest evidence (an update, or the input returned
unchanged) needs the names to agree as well, since a residual stream looks
the same. Names alone then pair what dataflow cannot see. The naming
conventions: the same name; the output's words are the input's plus an
affix (affixes: conv_state → new_conv_state, conv_state_out,
updated_conv_cache, next_state, present.0.key for past_key_values.0.key);
camelCase, separators and digits split words (recState, layers.3.conv_state).

Every pass that reads states reads them here: promote-states promotes the
plain pairs, states-as-outputs and scale-state pick states from them,
strip-fp32-casts joins each pair into one island and asks the element-type
analysis, which treats a pair as a round trip through the interface,
fold-io-unsqueeze folds both sides of a pair or neither. The state passes
leave key/value caches alone unless include-kv=true.`,
}

// settingGroups are the pipeline-level option groups. Each is declared
// like a pass (name, doc, options struct) so that its options parse in the
// one place pass options do (options.go); it has no function and is never
// in a pipeline's steps.
var settingGroups = []*Pass{
	{Name: "states", Func: optionsRunner[StateSettings](), About: stateSettingsAbout},
}

// SettingGroups lists the pipeline-level option groups, for `anefix passes`
// and PASSES.md.
func SettingGroups() []*Pass { return settingGroups }

func settingGroup(name string) *Pass {
	for _, g := range settingGroups {
		if g.Name == name {
			return g
		}
	}
	return nil
}

// group is the options struct of setting group name in s: the one place
// a group's name meets its Settings field.
func (s *Settings) group(name string) any {
	switch name {
	case "states":
		return &s.States
	}
	return nil
}

// groupDecls are the declarations of group g bound to its struct in s.
func (s *Settings) groupDecls(g *Pass) *Decls { return g.Func.bind(s.group(g.Name)) }

// newSettings makes Settings with every option at its default.
func newSettings() *Settings {
	s := &Settings{}
	for _, g := range settingGroups {
		for _, x := range s.groupDecls(g).list {
			x.reset()
		}
	}
	return s
}

// defaultSettings are the settings of a pipeline nobody set anything in.
func defaultSettings() Settings {
	return *newSettings()
}

// Context is what a pass receives besides its module and its own options.
type Context struct {
	Settings Settings
	// MaxMemory bounds, in bytes, the memory a pass that allocates per
	// weight (palettize, quantize-weights, legalize-weights) may plan to
	// take for one weight, estimated before it starts; 0 is no bound. A
	// limit of the machine, not of the result: it is no setting, and the
	// pipeline string does not carry it (RunOptions.MaxMemory).
	MaxMemory int64
	// progress, set by Pipeline.Run from RunOptions.Progress for the pass
	// running, is told how far the pass has got (Progress).
	progress func(done, total int64, unit string)
	// an caches the analyses passes declare (analyses.go) for one module
	// while a pipeline, or a pass alone, runs on it (withCache); nil in
	// a context nothing runs under (every answer is computed afresh).
	an *analysisCache
}

// Progress tells the pipeline's caller that the pass has done done of
// total units of its work (unit "" is bytes of weights), for a progress
// bar. Passes whose work can take seconds (the weight compressions) call
// it as they go; it does nothing outside a pipeline run that asked.
func (c *Context) Progress(done, total int64, unit string) {
	if c != nil && c.progress != nil {
		c.progress(done, total, unit)
	}
}

// following reports whether anyone follows the progress (Progress does
// something), so that a pass counts its work only then.
func (c *Context) following() bool { return c != nil && c.progress != nil }

// reporting is c for one pass of a run whose caller follows its progress
// (RunOptions.Progress); c itself when it does not.
func (c *Context) reporting(pass string, f func(pass string, done, total int64, unit string)) *Context {
	if f == nil {
		return c
	}
	out := *c
	out.progress = func(done, total int64, unit string) { f(pass, done, total, unit) }
	return &out
}

// defaultContext is the context of a pass run outside a pipeline.
func defaultContext() *Context { return &Context{Settings: defaultSettings()} }

// States is the state analysis of g under the context's settings
// (analysisStates: a pass that calls it declares it in Requires). While a
// pass or a pipeline runs it comes from the run's cache.
func (c *Context) States(g *graph.Graph) *graph.StateAnalysis {
	if c.an != nil {
		return c.an.stateOf(g)
	}
	return graph.States(g, c.Settings.States.Analysis())
}

// StateScope is what graph analyses that pair states (graph.FloatIslands,
// anefacts) call for each graph: Context.States.
func (c *Context) StateScope() func(*graph.Graph) *graph.StateAnalysis {
	if c.an != nil {
		return c.an.stateOf
	}
	return graph.NewStateScope(c.Settings.States.Analysis()).States
}

// IslandBlockers is analysisIslands for m: the ops of the islands check's
// element-type rule cites. While a pass or a pipeline runs on m it comes
// from the run's cache.
func (c *Context) IslandBlockers(m *graph.Module) (map[*graph.Operation]bool, error) {
	if c.an != nil && c.an.m == m {
		return c.an.islandBlockers()
	}
	return anefacts.ElementTypeBlockers(m, c.StateScope())
}

// withCache is c (nil: the default context) with a cache of the analyses
// of m: c itself when it has one for m, else a copy with a new one.
func (c *Context) withCache(m *graph.Module) *Context {
	if c == nil {
		c = defaultContext()
	}
	if c.an != nil && c.an.m == m {
		return c
	}
	out := *c
	out.an = newAnalysisCache(m, c.Settings.States.Analysis())
	return &out
}

// IncludeKV says whether the state passes act on key/value caches.
func (c *Context) IncludeKV() bool { return c.Settings.States.IncludeKV }

// Values lists every setting as "group.option" text, groups and options in
// declaration order, for reports.
func (s Settings) Values() []OptionValue {
	var out []OptionValue
	for _, g := range settingGroups {
		for _, v := range g.Values(s.group(g.Name)) {
			out = append(out, OptionValue{Name: g.Name + "." + v.Name, Value: v.Value})
		}
	}
	return out
}
