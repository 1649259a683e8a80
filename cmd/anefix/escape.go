package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/anefix/anefix/graph"
	"github.com/anefix/anefix/graph/bundle"
)

// File names may hold any byte but NUL and '/': a name with a newline,
// carriage return or terminal escape would forge lines or recolour the
// terminal when printed raw. Every report and message anefix prints for
// people goes through a safeWriter (run wires it to stderr, and to stdout
// unless the command writes a model there); how a name is quoted is
// graph/bundle's DisplayName, which the readers use for the names of the
// entries they report.

// isControl reports the runes printed escaped: C0 controls, DEL and C1
// controls.
func isControl(r rune) bool { return bundle.IsControl(r) }

// quotePath returns p unchanged when it prints as itself, else Go-quoted
// ("a\nb"), so that the name can still be typed back.
func quotePath(p string) string { return bundle.DisplayName(p) }

// escapeControls escapes the control characters of s except newline and
// tab, which the messages themselves use.
func escapeControls(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return isControl(r) && r != '\n' && r != '\t' }) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t' || !isControl(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// safeWriter prints the paths the command was given, and the names of the
// model it read, quoted (quotePath), so a newline in a name is shown as \n,
// and escapes any other control character. A name split across two writes
// is only escaped character by character; the reports and messages are
// written whole.
type safeWriter struct {
	w     io.Writer
	paths *[]string // set once the flags are parsed
	names *shownNames
}

func (s safeWriter) Write(b []byte) (int, error) {
	out := string(b)
	if s.paths != nil {
		for _, p := range *s.paths {
			if q := quotePath(p); q != p {
				out = strings.ReplaceAll(out, p, q)
			}
		}
	}
	if s.names != nil {
		out = s.names.quote(out)
	}
	if _, err := io.WriteString(s.w, escapeControls(out)); err != nil {
		return 0, err
	}
	return len(b), nil
}

// shownNames are the strings of a loaded model that would not print as
// themselves (a newline, a terminal escape, bytes that are not UTF-8): op
// and graph names, locations and their parts, string attributes. Messages
// name ops and graphs in many places (`@%s`, "op %s"); instead of trusting
// each, the writers quote every occurrence of these strings, so a name
// cannot start a line of its own ("Prediction: LEGAL") whatever prints it.
// The reports also quote them field by field (proto/pbprint.ForText).
type shownNames struct {
	mu   sync.Mutex
	seen map[string]bool
	r    *strings.Replacer // nil until a name is added
}

// add records the strings of m that need quoting.
func (n *shownNames) add(m *graph.Module) {
	if n == nil || m == nil {
		return
	}
	var found []string
	note := func(s string) bool {
		if bundle.DisplayName(s) != s {
			found = append(found, s)
			return true
		}
		return false
	}
	var attr func(a graph.Attr) bool
	attr = func(a graph.Attr) bool {
		bad := false
		switch a := a.(type) {
		case *graph.StringAttr:
			bad = note(a.Value)
		case *graph.SymbolRefAttr:
			bad = note(a.Root)
			for _, s := range a.Nested {
				bad = note(s) || bad
			}
		case *graph.ArrayAttr:
			for _, e := range a.Elems {
				bad = attr(e) || bad
			}
		case *graph.DictAttr:
			for _, e := range a.Entries {
				bad = note(e.Name) || bad
				bad = attr(e.Value) || bad
			}
		case *graph.OpaqueAttr:
			// Kept as spelled; an escape in it may unescape to a
			// control character in an op id taken from it (graph.OpID).
			bad = strings.Contains(a.Text, `\`)
		case *graph.RawAttr:
			bad = strings.Contains(a.Text, `\`)
		}
		return bad
	}
	// A location's derived spellings (its op id, its source, shortened)
	// are noted only when one of its strings needs quoting: most models
	// have a location an op, all printable.
	locs := map[graph.Loc]bool{}
	var loc func(l graph.Loc) bool
	loc = func(l graph.Loc) bool {
		if l == nil {
			return false
		}
		// Only composite locations are remembered (shared ones would be
		// walked once per op); the usual name("file":line) is walked again.
		simple := false
		switch l := l.(type) {
		case *graph.FileLoc, graph.UnknownLoc:
			simple = true
		case *graph.NameLoc:
			_, file := l.Child.(*graph.FileLoc)
			simple = file || l.Child == nil
		}
		if bad, seen := locs[l]; seen {
			return bad
		}
		bad := false
		switch l := l.(type) {
		case *graph.NameLoc:
			bad = note(l.Name)
			bad = loc(l.Child) || bad
		case *graph.FileLoc:
			bad = note(l.File)
		case *graph.FusedLoc:
			for _, c := range l.Locs {
				bad = loc(c) || bad
			}
			bad = l.Metadata != nil && attr(l.Metadata) || bad
		case *graph.CallSiteLoc:
			bad = loc(l.Callee) || bad
			bad = loc(l.Caller) || bad
		case *graph.DialectLoc:
			bad = attr(l.Attr)
		}
		if bad {
			note(graph.OpLabel(l))
			note(graph.ShortSource(l))
			note(graph.Source(l))
			if f := graph.SourceLoc(l); f != nil {
				note(graph.ShortFile(f.File))
			}
		}
		if !simple {
			locs[l] = bad
		}
		return bad
	}
	m.Walk(func(op *graph.Operation) bool {
		note(op.Name)
		loc(op.Loc)
		if op.Attrs != nil {
			attr(op.Attrs)
		}
		if op.Props != nil {
			attr(op.Props)
		}
		for _, r := range op.Regions {
			for _, b := range r.Blocks {
				for _, a := range b.Args() {
					loc(a.Loc)
				}
			}
		}
		return true
	})
	if len(found) == 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.seen == nil {
		n.seen = map[string]bool{}
	}
	for _, s := range found {
		n.seen[s] = true
	}
	// Longest first: the Replacer tries its patterns in order, and a
	// name that holds another must be quoted whole.
	all := make([]string, 0, len(n.seen))
	for s := range n.seen {
		all = append(all, s)
	}
	sort.Slice(all, func(i, j int) bool { return len(all[i]) > len(all[j]) || len(all[i]) == len(all[j]) && all[i] < all[j] })
	pairs := make([]string, 0, 2*len(all))
	for _, s := range all {
		pairs = append(pairs, s, bundle.DisplayName(s))
	}
	n.r = strings.NewReplacer(pairs...)
}

func (n *shownNames) quote(s string) string {
	n.mu.Lock()
	r := n.r
	n.mu.Unlock()
	if r == nil {
		return s
	}
	return r.Replace(s)
}

// showNames quotes the model's unprintable names in everything env prints
// from now on (a no-op for an Env not made by run, e.g. in tests).
func showNames(env *Env, m *graph.Module) {
	if sw, ok := env.Stderr.(safeWriter); ok {
		sw.names.add(m)
	}
}
