package compilerlog

import (
	"strconv"
	"strings"
)

// The statusdict is printed as an NSDictionary description (old-style
// property list): `{ Key = value; Key = ( a, b ); Key = { … }; }`. This is
// a forgiving reader for that shape: it never fails, it stops at the end of
// the text, and it caps nesting so hostile input cannot recurse deeply.

type plKV struct {
	key string
	val any
}

type (
	plDict  []plKV
	plArray []any
)

const maxPlistDepth = 64

type plist struct {
	s     string
	i     int
	depth int
}

func (p *plist) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value reads one value: dict, array, quoted string or bare word.
func (p *plist) value() any {
	p.skipSpace()
	if p.i >= len(p.s) {
		return ""
	}
	switch p.s[p.i] {
	case '{':
		if p.depth >= maxPlistDepth {
			return p.skipNested()
		}
		p.depth++
		defer func() { p.depth-- }()
		return p.dict()
	case '(':
		if p.depth >= maxPlistDepth {
			return p.skipNested()
		}
		p.depth++
		defer func() { p.depth-- }()
		return p.array()
	case '"':
		return p.quoted()
	}
	return p.bare()
}

// skipNested consumes a too-deep value and returns it as text.
func (p *plist) skipNested() string {
	start, d := p.i, 0
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch c {
		case '"':
			p.i--
			p.quoted()
		case '{', '(':
			d++
		case '}', ')':
			d--
			if d == 0 {
				return p.s[start:p.i]
			}
		}
	}
	return p.s[start:]
}

func (p *plist) dict() plDict {
	p.i++ // {
	var d plDict
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return d
		}
		if p.s[p.i] == '}' {
			p.i++
			return d
		}
		if p.s[p.i] == ';' || p.s[p.i] == ',' {
			p.i++
			continue
		}
		start := p.i
		var key string
		if p.s[p.i] == '"' {
			key = p.quoted()
		} else {
			key = p.bareUntil("=;}")
		}
		p.skipSpace()
		if p.i < len(p.s) && p.s[p.i] == '=' {
			p.i++
			d = append(d, plKV{key, p.value()})
		} else if key != "" {
			d = append(d, plKV{key, ""})
		}
		if p.i == start { // no progress: skip one byte
			p.i++
		}
	}
}

func (p *plist) array() plArray {
	p.i++ // (
	var a plArray
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			return a
		}
		switch p.s[p.i] {
		case ')':
			p.i++
			return a
		case ',', ';':
			p.i++
			continue
		}
		start := p.i
		a = append(a, p.value())
		if p.i == start {
			p.i++
		}
	}
}

func (p *plist) quoted() string {
	start := p.i
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '\\' && p.i+1 < len(p.s) {
			b.WriteByte(c)
			b.WriteByte(p.s[p.i+1])
			p.i += 2
			continue
		}
		p.i++
		if c == '"' {
			if u, err := strconv.Unquote(`"` + b.String() + `"`); err == nil {
				return u
			}
			return b.String()
		}
		b.WriteByte(c)
	}
	return p.s[start+1:]
}

func (p *plist) bare() string { return p.bareUntil(",;)}") }

func (p *plist) bareUntil(stops string) string {
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(stops, rune(p.s[p.i])) && p.s[p.i] != '\n' {
		p.i++
	}
	return strings.TrimSpace(p.s[start:p.i])
}

// plText renders a parsed value as one line of text.
func plText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case plArray:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = plText(e)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	case plDict:
		parts := make([]string, len(x))
		for i, kv := range x {
			parts[i] = kv.key + " = " + plText(kv.val)
		}
		return "{" + strings.Join(parts, "; ") + "}"
	}
	return ""
}
