package passes

// Per-weight settings for the compression passes (palettize,
// quantize-weights): the rules option, an ordered list of rules, each a
// weight pattern mapped to some of the pass's own settings, so that one
// rewrite can palettize attention at 6 bits and the MLP at 4. The first
// rule whose pattern matches a weight chooses its settings; a weight no
// rule matches keeps the pass's options, and so does every setting a rule
// leaves out. Rules choose among the weights the selector takes
// (compress.go: ops, weights, exclude, tied-head, min-elements); they
// never add one.
//
// Syntax, one value for --set pass.rules=… and for pipeline text
// (pipeline_text.go) alike, with no character that needs quoting there:
//
//	RULE[,RULE…]
//	RULE = PATTERN[|PATTERN…]:SETTING=VALUE[:SETTING=VALUE…]
//	     | PATTERN[|PATTERN…]:skip
//
// A PATTERN is a glob over the weight's resource key and op id, as
// weights= takes it (weightConst.matchesAny, the one matcher); a pattern
// cannot hold ',', '|' or ':', which '?' matches instead. Each SETTING is
// one of the pass's own options, parsed and checked by its declaration, so
// "bits=5" in a rule fails as --set palettize.bits=5 does.

import (
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
)

// weightRule is one rule of a rules option.
type weightRule struct {
	Patterns []string
	Skip     bool          // leave the weights it takes as they are
	Sets     []OptionValue // settings, in the order written, values as their option prints them
}

// String is the rule as the rules option takes it.
func (r weightRule) String() string {
	s := strings.Join(r.Patterns, "|") + ":"
	if r.Skip {
		return s + "skip"
	}
	parts := make([]string, len(r.Sets))
	for i, v := range r.Sets {
		parts[i] = v.Name + "=" + v.Value
	}
	return s + strings.Join(parts, ":")
}

// rulesDoc is the rules option's documentation; settings names what a
// rule may set.
func rulesDoc(settings func() *Decls) string {
	return "per-weight settings, first match wins: comma-separated rules PATTERN[|PATTERN…]:SETTING=VALUE[:…] or PATTERN…:skip; a pattern is a glob as weights= takes (no ',', '|' or ':'; '?' matches one); a rule sets " +
		strings.Join(settings().names(), ", ") + "; the rest, and weights no rule matches, keep this pass's options (e.g. *self_attn*:bits=6,*mlp*:bits=4,*embed*:skip)"
}

// declareRules declares a compression pass's rules option; declare
// declares the options of the pass's struct O that a rule may set (its
// palette or quantization options), which parse and check each rule's
// values on a scratch struct.
func declareRules[O any](d *Decls, rules *[]weightRule, declare func(*O, *Decls)) {
	settings := func() *Decls {
		d := &Decls{}
		declare(new(O), d)
		return d
	}
	Declare(d, rules, Option[[]weightRule]{Name: "rules", Doc: rulesDoc(settings), Codec: &Codec[[]weightRule]{
		Kind:   "list",
		Parse:  func(s string) ([]weightRule, error) { return parseRules(s, settings) },
		Format: formatRules,
		Sample: func(r *rand.Rand) []weightRule { return sampleRules(r, settings) },
	}})
}

// ruleOptions are the options of a rules table's entries: base (entry 0),
// then for each rule a copy of base with the rule's settings applied
// through declare (declareRules' declarations).
func ruleOptions[O any](base *O, rules []weightRule, declare func(*O, *Decls)) ([]*O, error) {
	out := []*O{base}
	for i, r := range rules {
		c := *base
		d := &Decls{}
		declare(&c, d)
		if err := applyRule(d, r); err != nil {
			return nil, fmt.Errorf("%s%v", ruleLabel(rules, i+1), err)
		}
		out = append(out, &c)
	}
	return out, nil
}

func formatRules(rs []weightRule) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// parseRules reads a rules value; an error names the rule (its number
// among the rules, and its text) and what is wrong with it.
func parseRules(s string, settings func() *Decls) ([]weightRule, error) {
	var out []weightRule
	for _, text := range strings.Split(s, ",") {
		if text = strings.TrimSpace(text); text == "" {
			continue
		}
		r, err := parseRule(text, settings())
		if err != nil {
			return nil, fmt.Errorf("rule %d (%s): %w", len(out)+1, text, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func parseRule(text string, d *Decls) (weightRule, error) {
	var r weightRule
	pats, sets, ok := strings.Cut(text, ":")
	if !ok {
		return r, fmt.Errorf("want PATTERN:SETTING=VALUE (such as *mlp*:bits=4) or PATTERN:skip")
	}
	for _, p := range strings.Split(pats, "|") {
		if p = strings.TrimSpace(p); p == "" {
			return r, fmt.Errorf("an empty pattern (patterns are separated by |)")
		}
		if _, err := path.Match(p, ""); err != nil {
			return r, fmt.Errorf("bad pattern %q: %v", p, err)
		}
		r.Patterns = append(r.Patterns, p)
	}
	for _, kv := range strings.Split(sets, ":") {
		kv = strings.TrimSpace(kv)
		if kv == "skip" {
			r.Skip = true
			continue
		}
		name, val, ok := strings.Cut(kv, "=")
		name, val = strings.TrimSpace(name), strings.TrimSpace(val)
		if !ok || name == "" {
			return r, fmt.Errorf("want SETTING=VALUE or skip after the pattern, got %q", kv)
		}
		x := d.find(name)
		if x == nil {
			return r, fmt.Errorf("unknown setting %q (a rule sets %s)", name, strings.Join(d.names(), ", "))
		}
		if slices.ContainsFunc(r.Sets, func(v OptionValue) bool { return v.Name == name }) {
			return r, fmt.Errorf("setting %s given twice", name)
		}
		if err := x.set(val); err != nil {
			return r, err
		}
		r.Sets = append(r.Sets, OptionValue{name, x.text()})
	}
	switch {
	case r.Skip && len(r.Sets) > 0:
		return r, fmt.Errorf("skip takes no settings")
	case !r.Skip && len(r.Sets) == 0:
		return r, fmt.Errorf("no setting")
	}
	return r, nil
}

// sampleRules makes valid rules for the pipeline property tests.
func sampleRules(r *rand.Rand, settings func() *Decls) []weightRule {
	pats := []string{"*self_attn*", "*mlp*", "model.layers.?.*", "*q_proj*|*k_proj*", "w0", "*", "[a-c]*"}
	n := r.IntN(3)
	if n == 0 {
		return nil
	}
	out := make([]weightRule, n)
	for i := range out {
		out[i].Patterns = strings.Split(pats[r.IntN(len(pats))], "|")
		if r.IntN(4) == 0 {
			out[i].Skip = true
			continue
		}
		d := settings()
		for len(out[i].Sets) == 0 {
			for _, x := range d.list {
				if r.IntN(3) == 0 {
					out[i].Sets = append(out[i].Sets, OptionValue{x.info().Name, x.sample(r)})
				}
			}
		}
	}
	return out
}

// applyRule sets rule r's settings in d, the declarations of a copy of
// the pass's options (ruleOptions).
func applyRule(d *Decls, r weightRule) error {
	for _, v := range r.Sets {
		x := d.find(v.Name)
		if x == nil {
			return fmt.Errorf("unknown setting %q", v.Name)
		}
		if err := x.set(v.Value); err != nil {
			return err
		}
	}
	return nil
}

// ruleLabel names entry i of a rule table in errors and notes ("" for the
// pass's own options).
func ruleLabel(rules []weightRule, i int) string {
	if i == 0 {
		return ""
	}
	return fmt.Sprintf("rule %d (%s): ", i, rules[i-1])
}

// RuleUse is what one entry of a compression pass's rules selected and
// what it gives: a rule (Index 1, 2, … in the order written) or the pass's
// own options (Index 0), for the weights no rule matched.
type RuleUse struct {
	Index int
	Rule  string // as the rules option takes it; "" for Index 0
	Form  string // what its settings make ("left as they are" for skip)
	Skip  bool
	// Weights are the weights it took (the first rule to match them), by
	// their names' first (weightNames), in module order, a blob read by
	// several constants once.
	Weights []string
	// Shadowed are the weights it matches too that an earlier rule took.
	Shadowed []string
	// Compressed and Left count the weights it took that the pass rewrote
	// and that stay as they are (skip, or Change.Left says why):
	// len(Weights) = Compressed + Left.
	Compressed, Left int
	// BytesBefore and BytesAfter are its weights' storage before and
	// after, each counted as the pass writes it (CompressedWeight), a
	// weight left as it is at its own size, which LeftBytes sums.
	BytesBefore, BytesAfter, LeftBytes int64
}

// ruleTable resolves a compression pass's rules on its weights: the entry
// each weight takes (weightConst.rule: 0 for the pass's options, i for
// rules[i-1]) and, per entry, what it selected (Change.Rules).
type ruleTable struct {
	rules  []weightRule
	uses   []RuleUse
	before []map[string]int64 // per entry: its weights' bytes by ruleKey
	shadow []map[string]bool
}

// newRuleTable makes the table of rules; forms[i] is entry i's form.
func newRuleTable(rules []weightRule, forms []string) *ruleTable {
	t := &ruleTable{rules: rules}
	for i := range len(rules) + 1 {
		u := RuleUse{Index: i, Form: forms[i]}
		if i > 0 {
			u.Rule, u.Skip = rules[i-1].String(), rules[i-1].Skip
			if u.Skip {
				u.Form = "left as they are"
			}
		}
		t.uses = append(t.uses, u)
		t.before = append(t.before, map[string]int64{})
		t.shadow = append(t.shadow, map[string]bool{})
	}
	return t
}

// ruleKey tells weights apart: a blob (the same blob in several functions
// is one weight), else the constant, by its graph and position (inline
// constants may have no name but their position).
func (w *weightConst) ruleKey() string {
	if w.res != "" {
		return w.res
	}
	return fmt.Sprintf("@%s#%d", w.g.Name(), w.index)
}

// assign sets each weight's entry, the first rule whose patterns match it,
// and returns the weights to compress; those of skip rules go to ch.Left.
func (t *ruleTable) assign(ws []*weightConst, ch *Change) []*weightConst {
	var keep []*weightConst
	for _, w := range ws {
		w.rule = 0
		k := w.ruleKey()
		for i, r := range t.rules {
			if !w.matchesAny(r.Patterns) {
				continue
			}
			if w.rule == 0 {
				w.rule = i + 1
			} else if !t.shadow[i+1][k] {
				t.shadow[i+1][k] = true
				t.uses[i+1].Shadowed = append(t.uses[i+1].Shadowed, w.label())
			}
		}
		_, seen := t.before[w.rule][k]
		if !seen {
			t.before[w.rule][k] = w.bytes()
			t.uses[w.rule].Weights = append(t.uses[w.rule].Weights, w.label())
			t.uses[w.rule].BytesBefore += w.bytes()
		}
		switch {
		case w.rule == 0 || !t.rules[w.rule-1].Skip:
			keep = append(keep, w)
		case !seen:
			ch.Left = append(ch.Left, w.left(leftWhy{reason: "a skip rule"}))
		}
	}
	return keep
}

// finish totals each entry from the weights the pass compressed and adds
// the table to ch, with a warning for each rule that selected nothing (a
// pattern that matches no weight the selector took, or only weights an
// earlier rule took). Nothing without rules: the report stays as it was.
func (t *ruleTable) finish(ch *Change) {
	if len(t.rules) == 0 {
		return
	}
	after := make([]map[string]int64, len(t.uses))
	for i := range after {
		after[i] = map[string]int64{}
	}
	for _, cw := range ch.Compressed {
		after[cw.Rule][cw.key] = cw.BytesAfter
	}
	selected := 0
	for i := range t.uses {
		u := &t.uses[i]
		selected += len(u.Weights)
		for k, b := range t.before[i] {
			if a, ok := after[i][k]; ok {
				u.BytesAfter += a
				u.Compressed++
			} else {
				u.BytesAfter += b
				u.LeftBytes += b
				u.Left++
			}
		}
	}
	for i, u := range t.uses[1:] {
		switch {
		case len(u.Weights) > 0:
		case len(u.Shadowed) > 0:
			ch.Notes = append(ch.Notes, fmt.Sprintf("warning: %sselects no weight: the %d it matches an earlier rule took (the first rule that matches a weight sets it)", ruleLabel(t.rules, i+1), len(u.Shadowed)))
		default:
			ch.Notes = append(ch.Notes, fmt.Sprintf("warning: %smatches none of the %d weights the selector took (ops, weights, exclude, tied-head, min-elements); check its pattern", ruleLabel(t.rules, i+1), selected))
		}
	}
	ch.Rules = t.uses
}
