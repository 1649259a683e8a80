package graph

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// The naming conventions exporters use for a state's input and the output
// carrying its new value. The state analysis (states.go) pairs by dataflow
// first and reads names only to confirm a weak dataflow match or to pair
// what dataflow cannot see; this table is the one place those conventions
// live.
//
// Seen in public exporters and their users (coreai-facts.md §2, §4): the
// same name on both sides (coreai-torch, mlx2coreai), conv_state →
// new_conv_state / conv_state_out / next_conv_state / updated_conv_cache,
// camelCase (recState → newRecState), Hugging Face's past_key_values.N.key
// → present.N.key, Apple's iOS key_cache → new_k_cache, layer-indexed
// layers.N.conv_state. Guess, unconfirmed: in/input/old/prev/cur on the
// input side are spelled the way the output affixes are (s_in → s_out).
var (
	// DefaultStateKinds are the words that, next to a state or cache word,
	// mark a recurrent (not a key/value) state.
	DefaultStateKinds = []string{"conv", "ssm", "rec", "recurrent"}
	// DefaultStateAffixes are the words an output adds to its state's name.
	DefaultStateAffixes = []string{"out", "new", "next", "updated", "output", "upd", "present"}
	// inputAffixes are the words an input adds to its state's name.
	inputAffixes = map[string]bool{"in": true, "input": true, "old": true, "prev": true, "previous": true, "past": true, "cur": true, "current": true}
	// stateWords mark an input as a state by name.
	stateWords = map[string]bool{"state": true, "cache": true}
	// kvWords canonicalize key/value spellings (key_cache ↔ new_k_cache).
	kvWords  = map[string]string{"key": "k", "keys": "k", "value": "v", "values": "v"}
	synonyms = map[string]string{"states": "state", "caches": "cache"}
)

// nameWords splits a port name into lower-case words: separators, camelCase
// humps and letter/digit boundaries all split ("convState0" and
// "conv-state-0" are conv, state, 0). Plurals of state and cache are
// canonicalized.
func nameWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush()
			continue
		}
		if i > 0 && len(cur) > 0 {
			p := rs[i-1]
			switch {
			case unicode.IsUpper(r) && unicode.IsLower(p),
				unicode.IsDigit(r) != unicode.IsDigit(p):
				flush()
			case unicode.IsUpper(r) && unicode.IsUpper(p) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
				flush() // "SSMState" → ssm, state
			}
		}
		cur = append(cur, r)
	}
	flush()
	for i, w := range words {
		if c, ok := synonyms[w]; ok {
			words[i] = c
		}
	}
	return words
}

// stateNames is the name side of the analysis under one StateOptions.
type stateNames struct {
	kinds, affixes map[string]bool
}

func newStateNames(o StateOptions) *stateNames {
	kinds, affixes := o.Kinds, o.Affixes
	if kinds == nil {
		kinds = DefaultStateKinds
	}
	if affixes == nil {
		affixes = DefaultStateAffixes
	}
	return &stateNames{kinds: wordSet(kinds), affixes: wordSet(affixes)}
}

func wordSet(xs []string) map[string]bool {
	out := map[string]bool{}
	for _, x := range xs {
		for _, w := range nameWords(x) {
			out[w] = true
		}
	}
	return out
}

// key is the comparison form of a port name: its words without the affix
// words of its side and without Hugging Face's past_key_values prefix, with
// key/value spelled k/v. affixed says whether an affix was dropped.
func (sn *stateNames) key(name string, output bool) (key string, affixed bool) {
	ws := nameWords(name)
	if !output && len(ws) >= 3 && ws[0] == "past" && ws[1] == "key" && ws[2] == "values" {
		ws, affixed = ws[3:], true // past_key_values.0.key ↔ present.0.key
	}
	var out []string
	for _, w := range ws {
		if output && sn.affixes[w] || !output && inputAffixes[w] {
			affixed = true
			continue
		}
		if c, ok := kvWords[w]; ok {
			w = c
		}
		out = append(out, w)
	}
	return strings.Join(out, "_"), affixed
}

// match reports whether output name out carries the new value of input in
// by the conventions: the same name (same), or the same words once each
// side's affixes are dropped, at least one side having one (affixed).
func (sn *stateNames) match(in, out string) (same, affixed bool) {
	countWork(workLookups, 1)
	if in == "" || out == "" {
		return false, false
	}
	if in == out {
		return true, false
	}
	ik, ia := sn.key(in, false)
	ok, oa := sn.key(out, true)
	if hasStem(ik) && ik == ok && (ia || oa) {
		return false, true
	}
	// The output adds an affix to the input's whole name, an input affix
	// included: s0_in → s0_in_out (states-as-outputs' <state>_out).
	raw := strings.Join(canonicalKV(nameWords(in)), "_")
	return false, oa && hasStem(raw) && raw == ok
}

func canonicalKV(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		if c, ok := kvWords[w]; ok {
			w = c
		}
		out[i] = w
	}
	return out
}

// successor reports whether out's name is in's with one number word moved
// on: h0 → h1, c_0 → c_1, state_t0 → state_t1, and PyTorch's h_0 → h_n.
// Only a weak dataflow match asks it (weakOK), never the names alone:
// layer-numbered ports (conv_state_0, conv_state_1) look the same.
func successor(in, out string) bool {
	a, b := nameWords(in), nameWords(out)
	if len(a) != len(b) {
		return false
	}
	moved := 0
	for i := range a {
		if a[i] == b[i] {
			continue
		}
		x, errA := strconv.Atoi(a[i])
		y, errB := strconv.Atoi(b[i])
		if errA == nil && (errB == nil && y == x+1 || x == 0 && b[i] == "n") {
			moved++
			continue
		}
		return false
	}
	return moved == 1 && hasStem(strings.Join(a, "_"))
}

// hasStem: a key with a word that is not a number, so that in0 and out0
// (plain ports numbered 0) do not pair as one state named "0".
func hasStem(key string) bool {
	for _, w := range strings.Split(key, "_") {
		if strings.IndexFunc(w, func(r rune) bool { return !unicode.IsDigit(r) }) >= 0 {
			return true
		}
	}
	return false
}

// looksLikeState reports whether an input's name marks it as a state: a
// kind word, past_key_values, or a state or cache word — except "hidden
// state(s)", which in a transformer is the residual stream (an RNN's hidden
// state is spelled with a kind word or paired by its structure).
func (sn *stateNames) looksLikeState(name string) bool {
	ws := nameWords(name)
	hidden, word := false, false
	for i, w := range ws {
		switch {
		case sn.kinds[w]:
			return true
		case w == "past" && i+1 < len(ws) && ws[i+1] == "key":
			return true
		case w == "hidden":
			hidden = true
		case stateWords[w]:
			word = true
		}
	}
	return word && !hidden
}

// kind classifies a state by its name.
func (sn *stateNames) kind(name string) StateKind {
	ws := nameWords(name)
	has := map[string]bool{}
	for _, w := range ws {
		if c, ok := kvWords[w]; ok {
			w = c
		}
		has[w] = true
	}
	for k := range sn.kinds {
		if has[k] {
			return StateRecurrent
		}
	}
	// key_cache, new_v_cache, kv_3, past_key_values.0.value; a cache
	// without a kind word is taken for a key/value cache (a guess: in an
	// LLM export it is one)
	if has["cache"] || has["kv"] || has["past"] && (has["k"] || has["v"]) {
		return StateKV
	}
	return StateUnknownKind
}

// portNames indexes a graph's ports by the keys stateNames.match compares,
// so that the ports a name pairs with are found without comparing it with
// every port (which made a graph with thousands of states quadratic). match
// holds when the names are equal, or when the input's key (or its words
// with key/value spelled k/v) equals the output's key and an affix was
// dropped; so the candidates are the ports filed under the name and under
// those keys, and match itself decides among them.
type portNames struct {
	sn         *stateNames
	ins, outs  []Port
	inByName   map[string][]int
	outByName  map[string][]int
	inByKey    map[string][]int  // stateNames.key(name, false), and the canonical words
	outByKey   map[string][]int  // stateNames.key(name, true)
	outKeysFor map[string]string // output name → key; nil until keys ran
}

func newPortNames(sn *stateNames, ins, outs []Port) *portNames {
	pn := &portNames{sn: sn, ins: ins, outs: outs,
		inByName: map[string][]int{}, outByName: map[string][]int{},
		inByKey: map[string][]int{}, outByKey: map[string][]int{}}
	for _, p := range ins {
		pn.inByName[p.Name] = append(pn.inByName[p.Name], p.Index)
	}
	for _, p := range outs {
		pn.outByName[p.Name] = append(pn.outByName[p.Name], p.Index)
	}
	return pn
}

// input is the input named name and how many inputs have that name, as
// FindPort says it.
func (pn *portNames) input(name string) (Port, int) { return pn.first(pn.ins, pn.inByName[name]) }

// output is the output named name and how many outputs have that name.
func (pn *portNames) output(name string) (Port, int) { return pn.first(pn.outs, pn.outByName[name]) }

func (pn *portNames) first(ports []Port, idx []int) (Port, int) {
	if len(idx) == 0 {
		return Port{}, 0
	}
	return ports[idx[len(idx)-1]], len(idx) // FindPort returns the last of a name
}

// keys files every port under its keys, on the first name query (the
// exact-name look-ups above do not need them).
func (pn *portNames) keys() {
	if pn.outKeysFor != nil {
		return
	}
	for i, p := range pn.ins {
		k, _ := pn.sn.key(p.Name, false)
		raw := strings.Join(canonicalKV(nameWords(p.Name)), "_")
		pn.inByKey[k] = append(pn.inByKey[k], i)
		if raw != k {
			pn.inByKey[raw] = append(pn.inByKey[raw], i)
		}
	}
	pn.outKeysFor = map[string]string{}
	for i, p := range pn.outs {
		k, _ := pn.sn.key(p.Name, true)
		pn.outKeysFor[p.Name] = k
		pn.outByKey[k] = append(pn.outByKey[k], i)
	}
}

// outputsMatching lists, in output order, the outputs whose names match in
// (stateNames.match: the same name, or paired by an affix).
func (pn *portNames) outputsMatching(in string) []int {
	if in == "" {
		return nil
	}
	pn.keys()
	k, _ := pn.sn.key(in, false)
	raw := strings.Join(canonicalKV(nameWords(in)), "_")
	return matchingPorts([][]int{pn.outByName[in], pn.outByKey[k], pn.outByKey[raw]}, pn.outs, func(o string) bool {
		same, affixed := pn.sn.match(in, o)
		return same || affixed
	})
}

// inputsMatching lists, in input order, the inputs whose names match out.
func (pn *portNames) inputsMatching(out string) []int {
	if out == "" {
		return nil
	}
	pn.keys()
	k, ok := pn.outKeysFor[out]
	if !ok {
		k, _ = pn.sn.key(out, true)
	}
	return matchingPorts([][]int{pn.inByName[out], pn.inByKey[k]}, pn.ins, func(i string) bool {
		same, affixed := pn.sn.match(i, out)
		return same || affixed
	})
}

// matchingPorts is the ports of the candidate lists whose names match, each
// once, in port order.
func matchingPorts(lists [][]int, ports []Port, match func(string) bool) []int {
	seen := map[int]bool{}
	var out []int
	for _, l := range lists {
		for _, i := range l {
			if !seen[i] && match(ports[i].Name) {
				seen[i] = true
				out = append(out, i)
			}
		}
	}
	sort.Ints(out)
	return out
}
