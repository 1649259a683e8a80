// Package statenames tells, by name alone, which graph inputs look like a
// recurrent state (or a KV cache) and which output carries each one's new
// value. promote-states pairs them, states-as-outputs and scale-state find
// the same states; one matcher keeps the three passes agreeing.
package statenames

import (
	"strings"
	"unicode"

	"github.com/anefix/anefix/graph"
)

// Words splits a port name into lower-case words: separators, camelCase
// humps and letter/digit boundaries all split. Synonyms are canonicalized
// so that spellings of one state compare equal.
func Words(name string) []string {
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

var synonyms = map[string]string{"states": "state", "caches": "cache"}

// kvWords canonicalizes key/value words for include-kv matching (Apple's
// key_cache ↔ new_k_cache).
var kvWords = map[string]string{"key": "k", "value": "v", "keys": "k", "values": "v"}

// Matcher matches state inputs and their outputs by name words.
type Matcher struct {
	kinds, affixes map[string]bool
	kv             bool
}

// New makes a Matcher: kinds are the words that, with state/states, mark a
// recurrent state input; affixes the words an output name adds to its
// state's name; kv also matches key/value caches.
func New(kinds, affixes []string, kv bool) *Matcher {
	return &Matcher{kinds: wordSet(kinds), affixes: wordSet(affixes), kv: kv}
}

func wordSet(xs []string) map[string]bool {
	out := map[string]bool{}
	for _, x := range xs {
		for _, w := range Words(x) {
			out[w] = true
		}
	}
	return out
}

func hasAny(words []string, set map[string]bool) bool {
	for _, w := range words {
		if set[w] {
			return true
		}
	}
	return false
}

// Candidate reports whether an input name looks like a recurrent state (or,
// with kv, a KV cache).
func (pm *Matcher) Candidate(name string) bool {
	ws := Words(name)
	if hasAny(ws, map[string]bool{"state": true}) && hasAny(ws, pm.kinds) {
		return true
	}
	return pm.kv && hasAny(ws, map[string]bool{"cache": true}) && hasAny(ws, map[string]bool{"key": true, "value": true, "k": true, "v": true})
}

// key is the comparison form of a name without affix words, and whether it
// had any affix word.
func (pm *Matcher) key(name string) (string, bool) {
	var out []string
	affixed := false
	for _, w := range Words(name) {
		if pm.affixes[w] {
			affixed = true
			continue
		}
		if c, ok := kvWords[w]; ok && pm.kv {
			w = c
		}
		out = append(out, w)
	}
	return strings.Join(out, "_"), affixed
}

// OutputsFor lists the plain outputs of g whose names pair with input in.
func (pm *Matcher) OutputsFor(g *graph.Graph, in graph.Port) []graph.Port {
	inKey, _ := pm.key(in.Name)
	var matches []graph.Port
	for _, out := range g.Outputs() {
		if out.IsState || out.Name == "" {
			continue
		}
		k, affixed := pm.key(out.Name)
		if out.Name == in.Name || (affixed && k == inKey) {
			matches = append(matches, out)
		}
	}
	return matches
}
