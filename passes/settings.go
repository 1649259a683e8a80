package passes

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/anefix/anefix/graph"
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
	Pairs     []string `opt:"pairs"`
	Auto      bool     `opt:"auto"`
	Kinds     []string `opt:"kinds"`
	Affixes   []string `opt:"affixes"`
	IncludeKV bool     `opt:"include-kv"`
}

// Analysis is the state analysis' options under these settings.
func (s StateSettings) Analysis() graph.StateOptions {
	return graph.StateOptions{Pairs: s.Pairs, NoAuto: !s.Auto, Kinds: nonNil(s.Kinds), Affixes: nonNil(s.Affixes)}
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
	Options: []OptionSpec{
		{Name: "pairs", Kind: OptStringList, Default: "", Doc: "explicit pairs input=output (comma-separated), taken before automatic pairing", Check: checkStatePairs},
		{Name: "auto", Kind: OptBool, Default: "true", Doc: "pair states automatically (dataflow, then names); false: only the export's own states and pairs="},
		{Name: "kinds", Kind: OptStringList, Default: strings.Join(graph.DefaultStateKinds, ","), Doc: "name words that mark a recurrent state (with or without a state/cache word)"},
		{Name: "affixes", Kind: OptStringList, Default: strings.Join(graph.DefaultStateAffixes, ","), Doc: "words an output's name adds to its state's name"},
		{Name: "include-kv", Kind: OptBool, Default: "false", Doc: "let the state passes act on key/value caches too (promote-states, states-as-outputs, scale-state)"},
	},
}

func checkStatePairs(v any) error {
	list, _ := v.([]string)
	for _, s := range list {
		if _, _, err := graph.ParseStatePair(s); err != nil {
			return err
		}
	}
	return nil
}

// settingGroups are the pipeline-level option groups. Each is declared
// like a pass (name, doc, options struct) so that its options parse in the
// one place pass options do (options.go); it has no function and is never
// in a pipeline's steps.
var settingGroups = []*Pass{
	{Name: "states", Func: runner{typ: reflect.TypeFor[StateSettings]()}, About: stateSettingsAbout},
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

// fields points, per group name, at that group's struct in s: the one
// place a group's name meets its Settings field.
func (s *Settings) fields() map[string]reflect.Value {
	return map[string]reflect.Value{"states": reflect.ValueOf(&s.States)}
}

// newSettings makes Settings with every option at its default.
func newSettings() (*Settings, error) {
	s := &Settings{}
	for name, v := range s.fields() {
		g := settingGroup(name)
		for _, o := range g.Options {
			if err := setOption(v, o, o.Default); err != nil {
				return nil, fmt.Errorf("setting %s: default of option %s: %w", name, o.Name, err)
			}
		}
	}
	return s, nil
}

// DefaultSettings are the settings of a pipeline nobody set anything in.
func DefaultSettings() Settings {
	s, err := newSettings()
	if err != nil {
		panic("passes: " + err.Error()) // defaults are checked at init
	}
	return *s
}

// Context is what a pass receives besides its module and its own options.
type Context struct {
	Settings Settings
}

// DefaultContext is the context of a pass run outside a pipeline.
func DefaultContext() *Context { return &Context{Settings: DefaultSettings()} }

// States is the state analysis of g under the context's settings.
func (c *Context) States(g *graph.Graph) *graph.StateAnalysis {
	return graph.States(g, c.Settings.States.Analysis())
}

// StateOptions is the state analysis' options under the context's settings.
func (c *Context) StateOptions() graph.StateOptions { return c.Settings.States.Analysis() }

// IncludeKV says whether the state passes act on key/value caches.
func (c *Context) IncludeKV() bool { return c.Settings.States.IncludeKV }

// Values lists every setting as "group.option" text, groups and options in
// declaration order, for reports.
func (s Settings) Values() []OptionValue {
	var out []OptionValue
	fields := s.fields()
	for _, g := range settingGroups {
		for _, v := range g.Values(fields[g.Name].Interface()) {
			out = append(out, OptionValue{Name: g.Name + "." + v.Name, Value: v.Value})
		}
	}
	return out
}
