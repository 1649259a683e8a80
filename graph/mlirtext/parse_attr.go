package mlirtext

import (
	"encoding/binary"
	"encoding/hex"
	"hash/maphash"
	"math"
	"math/big"
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/anefix/anefix/graph"
)

// parser is a recursive-descent reader of MLIR text following MLIR's own
// grammar (mlir/lib/AsmParser). It stops at the first error.
type parser struct {
	// progress, when set, hears how far the parse is (a byte offset into
	// the text), at each op and resource and, at the end, the text's length.
	progress func(pos int)

	src *source
	lex *lexer
	tok token
	err *Error
	// prevEnd is where the previous token ended: errors about something
	// missing after it point there, not at the next line's first token.
	prevEnd int

	attrAliases map[string]graph.Attr
	typeAliases map[string]graph.Type
	locAliases  map[string]graph.Loc
	// Location alias uses in op/block-argument position may precede the
	// alias definition (mlir-opt prints them at the end of the file).
	deferred []deferredLoc
	// aliasBodies are verbatim dialect attributes that may name aliases.
	aliasBodies []*graph.OpaqueAttr
	depth       int // nesting guard against stack exhaustion on hostile input

	module *graph.Module
	scopes []*scope
	pretty bool // some op used custom syntax
	// lastAttrType is the type written after the last typed attribute
	// (`dense<…> : T`), which a pretty coreai.constant uses as result type.
	lastAttrType graph.Type
	// types interns builtin types by their exact spelling: a model has few
	// distinct types but many uses (types are immutable, so sharing is safe).
	types map[string]graph.Type
	// fnTypes interns function types by their spelling (parseFunctionType).
	fnTypes map[string]cachedType
	// typeStack gathers the types of function types being parsed (nested
	// ones above their parent's).
	typeStack []graph.Type
	// useStack holds generic ops' operand names until their types are
	// read; valScratch gathers resolved operands for SetOperands (which
	// copies them).
	useStack   []ssaUse
	valScratch []*graph.Value
	// locSlab hands out the implicit locations of ops and block arguments
	// (one per op) from shared blocks instead of one allocation each.
	locSlab []graph.FileLoc
	// locs interns written locations by a hash of their spelling
	// (parseLocCached); a uint64 key, because growing a map of strings
	// hashes every key again and a location is hundreds of bytes.
	locs    map[uint64]cachedLoc
	locSeed maphash.Seed
	lastLoc cachedLoc // the last one parsed or found: neighbours repeat it
	// deepest is the greatest depth enter reached, for parseLocCached.
	deepest int
	// dicts interns generic ops' property and attribute dictionaries by a
	// hash of their spelling (parseDictCached).
	dicts map[uint64]cachedDict
	// unshared turns off sharing equal spellings (parseUnshared).
	unshared bool
	// resKeys holds the keys of the module's resources (hasResource).
	resKeys map[string]bool
}

// implicitLoc is the location MLIR gives an op or block argument written
// without one: its position, line:col.
func (p *parser) implicitLoc(line, col int) *graph.FileLoc {
	if len(p.locSlab) == 0 {
		p.locSlab = make([]graph.FileLoc, 256)
	}
	l := &p.locSlab[0]
	p.locSlab = p.locSlab[1:]
	*l = graph.FileLoc{File: p.src.Name, Line: line, Col: col, Implicit: true}
	return l
}

type deferredLoc struct {
	slot *graph.Loc
	name string
	pos  int
}

// maxDepth is the text reader's nesting limit, which the printer keeps too
// (nest.go).
const maxDepth = graph.MaxNesting

func newParser(name, text string) *parser {
	p := &parser{
		src:         NewSource(name, text),
		attrAliases: map[string]graph.Attr{},
		typeAliases: map[string]graph.Type{},
		locAliases:  map[string]graph.Loc{},
		types:       map[string]graph.Type{},
		fnTypes:     map[string]cachedType{},
	}
	p.lex = NewLexer(p.src)
	p.next()
	return p
}

func (p *parser) next() {
	p.prevEnd = p.lex.Pos() // after p.tok, or where a verbatim body ended
	p.tok = p.lex.Next()
	if p.tok.Kind == EOF && p.lex.Err() != nil && p.err == nil {
		p.err = p.lex.Err()
	}
}

// failAt records the first error; later ones are consequences of it.
func (p *parser) failAt(off int, format string, args ...any) {
	if p.err == nil {
		p.err = p.src.ErrorAt(off, format, args...)
	}
	// Park on EOF so every loop terminates.
	p.lex.Reset(len(p.src.Text))
	p.tok = token{Kind: EOF, Pos: len(p.src.Text), End: len(p.src.Text)}
}

func (p *parser) fail(format string, args ...any) { p.failAt(p.tok.Pos, format, args...) }

func (p *parser) ok() bool { return p.err == nil }

func (p *parser) is(k kind) bool { return p.tok.Kind == k }

func (p *parser) isKeyword(s string) bool { return p.tok.Kind == bareIdent && p.tok.Text == s }

func (p *parser) accept(k kind) bool {
	if p.tok.Kind == k {
		p.next()
		return true
	}
	return false
}

func (p *parser) acceptKeyword(s string) bool {
	if p.isKeyword(s) {
		p.next()
		return true
	}
	return false
}

func (p *parser) expect(k kind, what string) bool {
	if p.tok.Kind == k {
		p.next()
		return true
	}
	p.fail("expected %s, found %s", what, describe(p.tok))
	return false
}

func describe(t token) string {
	if t.Kind == EOF {
		return "end of file"
	}
	s := t.Text
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return "'" + s + "'"
}

func (p *parser) enter() bool {
	p.depth++
	p.deepest = max(p.deepest, p.depth)
	if p.depth > maxDepth {
		p.fail("nesting deeper than %d levels", maxDepth)
		return false
	}
	return true
}

func (p *parser) leave() { p.depth-- }

// parseCommaList parses `open elem (, elem)* close`, allowing an empty list.
func (p *parser) parseCommaList(open, close kind, what string, elem func()) {
	if !p.expect(open, what) {
		return
	}
	if p.accept(close) {
		return
	}
	for p.ok() {
		elem()
		if p.accept(comma) {
			continue
		}
		if !p.accept(close) { // the message expect gives, built only when needed
			p.fail("expected ',' or %s, found %s", close, describe(p.tok))
		}
		return
	}
}

// ---------------------------------------------------------------- types

// parseType parses any type: builtin, function, dialect (`!d.t<…>`) or alias.
func (p *parser) parseType() graph.Type {
	if !p.enter() {
		return nil
	}
	defer p.leave()
	switch p.tok.Kind {
	case lParen:
		return p.parseFunctionType()
	case bangIdent:
		return p.parseDialectType()
	case bareIdent:
		return p.parseBuiltinType()
	}
	p.fail("expected type, found %s", describe(p.tok))
	return nil
}

// parseFunctionType reads `(T, …) -> R` or `-> (R, …)`. The types are
// gathered on p.typeStack and the function type is interned by its
// spelling: a generic op's signature repeats across a module, and was a
// FunctionType and two slices per op, dropped right after. A spelling met
// before is found without parsing it again: fnTypeExtent finds where it
// would end, and a spelling is remembered only when parsing it ended there
// (the argument of parseLocCached: the same text reads the same, aliases
// never change once defined, and the nesting it took is checked).
func (p *parser) parseFunctionType() graph.Type {
	start := p.tok.Pos
	if end, ok := fnTypeExtent(p.src.Text, start); ok && !p.unshared {
		if c, hit := p.fnTypes[p.src.Text[start:end]]; hit && p.depth+c.depth <= maxDepth {
			p.lex.Reset(end)
			p.next()
			return c.t
		}
	}
	outer, d0 := p.deepest, p.depth
	p.deepest = d0
	defer func() { p.deepest = max(outer, p.deepest) }()
	mark := len(p.typeStack)
	defer func() { p.typeStack = p.typeStack[:mark] }()
	p.parseCommaList(lParen, rParen, "'('", func() { p.typeStack = append(p.typeStack, p.parseType()) })
	nIn := len(p.typeStack) - mark
	if !p.expect(arrow, "'->' in function type") {
		return nil
	}
	if p.is(lParen) {
		p.parseCommaList(lParen, rParen, "'('", func() { p.typeStack = append(p.typeStack, p.parseType()) })
	} else if t := p.parseType(); t != nil {
		p.typeStack = append(p.typeStack, t)
	}
	if !p.ok() {
		return nil
	}
	key := p.src.Text[start:p.prevEnd]
	if c, ok := p.fnTypes[key]; ok {
		return c.t
	}
	own := func(ts []graph.Type) []graph.Type {
		if len(ts) == 0 {
			return nil
		}
		return append([]graph.Type(nil), ts...)
	}
	ft := &graph.FunctionType{Inputs: own(p.typeStack[mark : mark+nIn]), Results: own(p.typeStack[mark+nIn:])}
	p.fnTypes[key] = cachedType{t: ft, depth: p.deepest - d0}
	return ft
}

// cachedType is an interned function type and the nesting parsing it took.
type cachedType struct {
	t     graph.Type
	depth int
}

// fnTypeExtent finds where a function type starting with '(' at start
// would end: its inputs' parentheses, '->', then a parenthesized result
// list or one type (an identifier as the lexer reads one, with a '<…>'
// body when one follows). ok is false where it cannot tell.
func fnTypeExtent(s string, start int) (end int, ok bool) {
	if start >= len(s) || s[start] != '(' {
		return 0, false
	}
	close, ok := closing(s, start+1, ')')
	if !ok {
		return 0, false
	}
	i := skipSpace(s, close+1)
	if !strings.HasPrefix(s[i:], "->") {
		return 0, false
	}
	i = skipSpace(s, i+2)
	if i >= len(s) {
		return 0, false
	}
	switch c := s[i]; {
	case c == '(':
		close, ok := closing(s, i+1, ')')
		if !ok {
			return 0, false
		}
		return close + 1, true
	case c == '!':
		i++
		for i < len(s) && isSuffixChar(s[i]) {
			i++
		}
	case isLetter(c) || c == '_':
		for i < len(s) && isBareIdentChar(s[i]) {
			i++
		}
	default:
		return 0, false
	}
	if i < len(s) && s[i] == '<' {
		close, ok := closing(s, i+1, '>')
		if !ok {
			return 0, false
		}
		i = close + 1
	}
	return i, true
}

// closing finds the byte closing a bracket whose body starts at start: the
// first ')', ']', '}' or '>' (not the '>' of '->', as in
// Lexer.BalancedBody) outside brackets and string literals, which must be
// want. It builds no error: ok is false where it cannot tell.
func closing(s string, start int, want byte) (int, bool) {
	i, ok := extent(s, start, false)
	return i, ok && s[i] == want
}

// extent is the scan closing and locExtent share: the first unmatched
// ')', ']', '}' or '>' (not the '>' of '->') from start, or with commas
// also the first ',' outside brackets, skipping string literals. ok is
// false where it cannot tell (a comment, a line break in a string, no end).
func extent(s string, start int, commas bool) (int, bool) {
	open := 0
	for i := start; i < len(s); i++ {
		for i < len(s) && extentPlain[s[i]] {
			i++
		}
		if i >= len(s) {
			break
		}
		switch s[i] {
		case '"':
			j, ok := stringEnd(s, i+1)
			if !ok {
				return 0, false
			}
			i = j
		case '(', '[', '{', '<':
			open++
		case '>':
			if i > start && s[i-1] == '-' {
				continue
			}
			fallthrough
		case ')', ']', '}':
			if open == 0 {
				return i, true
			}
			open--
		case ',':
			if commas && open == 0 {
				return i, true
			}
		case '/':
			return 0, false
		}
	}
	return 0, false
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// parseResultTypes parses `T` or `(T, U)` after an arrow.
func (p *parser) parseResultTypes() []graph.Type {
	var out []graph.Type
	if p.is(lParen) {
		p.parseCommaList(lParen, rParen, "'('", func() { out = append(out, p.parseType()) })
		return out
	}
	if t := p.parseType(); t != nil {
		out = append(out, t)
	}
	return out
}

// parseDialectType handles `!alias`, `!d.name`, `!d.name<body>`, `!d<body>`.
func (p *parser) parseDialectType() graph.Type {
	tok := p.tok
	name := tok.Text[1:]
	afterName := tok.End
	hasBody := afterName < len(p.src.Text) && p.src.Text[afterName] == '<'
	if !strings.Contains(name, ".") && !hasBody {
		p.next()
		t, ok := p.typeAliases[name]
		if !ok {
			p.failAt(tok.Pos, "undefined symbol alias id '%s'", name)
			return nil
		}
		return t
	}
	end := afterName
	if hasBody {
		close, err := p.lex.BalancedBody(afterName + 1)
		if err != nil {
			p.err = err
			p.failAt(tok.Pos, "")
			return nil
		}
		end = close + 1
	}
	p.lex.Reset(end)
	p.next()
	return &graph.OpaqueType{Text: p.src.Text[tok.Pos:end]}
}

var rawTypeKeywords = map[string]bool{
	"vector": true, "memref": true, "complex": true, "tuple": true,
}

func (p *parser) parseBuiltinType() graph.Type {
	tok := p.tok
	kw := tok.Text
	if t, ok := p.types[kw]; ok {
		p.next()
		return t
	}
	if t, ok := graph.ParseScalarType(kw); ok {
		p.types[kw] = t
		p.next()
		return t
	}
	hasBody := tok.End < len(p.src.Text) && p.src.Text[tok.End] == '<'
	switch {
	case kw == "tensor" && hasBody:
		// Find the spelling's extent first; a repeated spelling is a hit.
		close, err := p.lex.BalancedBody(tok.End + 1)
		if err == nil {
			key := p.src.Text[tok.Pos : close+1]
			if t, ok := p.types[key]; ok {
				p.lex.Reset(close + 1)
				p.next()
				return t
			}
			t := p.parseTensorType()
			if t != nil && p.ok() && p.tok.Pos > close {
				p.types[key] = t
			}
			return t
		}
		return p.parseTensorType()
	case rawTypeKeywords[kw] && hasBody:
		close, err := p.lex.BalancedBody(tok.End + 1)
		if err != nil {
			p.err = err
			p.failAt(tok.Pos, "")
			return nil
		}
		p.lex.Reset(close + 1)
		p.next()
		return &graph.RawType{Text: p.src.Text[tok.Pos : close+1]}
	}
	p.fail("unknown type '%s'", kw)
	return nil
}

// parseTensorType reads `tensor<` dims `x` elem [, encoding] `>`. Dimension
// lists are scanned by character because `4x8xf16` is one MLIR token run.
func (p *parser) parseTensorType() graph.Type {
	s := p.src.Text
	i := p.tok.End + 1 // after '<'
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	t := &graph.TensorType{}
	skip()
	if i < len(s) && s[i] == '*' {
		i++
		skip()
		if i >= len(s) || s[i] != 'x' {
			p.failAt(i, "expected 'x' in unranked tensor type")
			return nil
		}
		i++
		t.Unranked = true
	} else {
		t.Shape = []int64{}
		for {
			skip()
			start := i
			var d int64
			switch {
			case i < len(s) && s[i] == '?':
				i++
				d = graph.Dynamic
			case i < len(s) && isDigit(s[i]):
				for i < len(s) && isDigit(s[i]) {
					i++
				}
				v, err := strconv.ParseInt(s[start:i], 10, 64)
				if err != nil {
					p.failAt(start, "invalid dimension %q", s[start:i])
					return nil
				}
				d = v
			default:
				goto elem
			}
			skip()
			if i >= len(s) || s[i] != 'x' {
				p.failAt(i, "expected 'x' in dimension list")
				return nil
			}
			i++
			t.Shape = append(t.Shape, d)
		}
	}
elem:
	p.lex.Reset(i)
	p.next()
	t.Elem = p.parseType()
	if !p.ok() {
		return nil
	}
	if p.accept(comma) {
		t.Encoding = p.parseAttr()
	}
	if !p.expect(greater, "'>' to close tensor type") {
		return nil
	}
	return t
}

// ----------------------------------------------------------- attributes

// parseAttr parses any attribute value.
func (p *parser) parseAttr() graph.Attr {
	if !p.enter() {
		return nil
	}
	defer p.leave()
	tok := p.tok
	switch tok.Kind {
	case hashIdent:
		return p.parseHashAttr()
	case lSquare:
		// The builder packs arrays of integers or floats of one type (8
		// bytes an element) and gathers elements in blocks.
		var b graph.ArrayBuilder
		p.parseCommaList(lSquare, rSquare, "'['", func() {
			b.Add(p.parseAttr())
		})
		if !p.ok() {
			return nil
		}
		return b.Array()
	case lBrace:
		return p.parseDict()
	case stringLit:
		v, ok := unquote(tok.Text)
		if !ok {
			p.fail("invalid string literal")
			return nil
		}
		p.next()
		a := &graph.StringAttr{Value: v}
		if p.accept(colon) {
			a.Type = p.parseType()
			p.lastAttrType = a.Type
		}
		return a
	case atIdent:
		return p.parseSymbolRef()
	case minus, integer, float:
		return p.parseNumberAttr()
	case bangIdent, lParen:
		if t := p.parseType(); t != nil {
			return &graph.TypeAttr{Type: t}
		}
		return nil
	case bareIdent:
		switch tok.Text {
		case "true", "false":
			p.next()
			return &graph.BoolAttr{Value: tok.Text == "true"}
		case "unit":
			p.next()
			return &graph.UnitAttr{}
		case "dense":
			return p.parseDense()
		case "dense_resource":
			return p.parseDenseResource()
		case "array":
			return p.parseDenseArray()
		case "loc":
			l := p.parseLoc(nil)
			if l == nil {
				return nil
			}
			return &graph.LocAttr{Loc: l}
		case "affine_map", "affine_set", "sparse", "strided", "distinct", "dense_resource_elided", "opaque":
			return p.parseRawAttr()
		}
		if t := p.parseType(); t != nil {
			return &graph.TypeAttr{Type: t}
		}
		return nil
	}
	p.fail("expected attribute value, found %s", describe(tok))
	return nil
}

// parseRawAttr keeps a builtin attribute anefix does not model verbatim:
// keyword, optional `[…]`, `<…>` body, optional `: type`.
func (p *parser) parseRawAttr() graph.Attr {
	start := p.tok.Pos
	i := p.tok.End
	s := p.src.Text
	if i < len(s) && s[i] == '[' { // distinct[N]<…>
		j := strings.IndexByte(s[i:], ']')
		if j < 0 {
			p.fail("unterminated '['")
			return nil
		}
		i += j + 1
	}
	if i >= len(s) || s[i] != '<' {
		p.failAt(i, "expected '<' after '%s'", p.tok.Text)
		return nil
	}
	close, err := p.lex.BalancedBody(i + 1)
	if err != nil {
		p.err = err
		p.failAt(start, "")
		return nil
	}
	end := close + 1
	p.lex.Reset(end)
	p.next()
	if p.is(colon) && (p.src.Text[start:start+6] == "sparse" || p.src.Text[start:start+6] == "opaque") {
		p.next()
		p.parseType()
		end = p.tok.Pos
		end = trimRightSpace(p.src.Text, end)
	}
	return &graph.RawAttr{Text: p.src.Text[start:end]}
}

func trimRightSpace(s string, end int) int {
	for end > 0 && (s[end-1] == ' ' || s[end-1] == '\t' || s[end-1] == '\n' || s[end-1] == '\r') {
		end--
	}
	return end
}

// parseHashAttr: `#alias` or a dialect attribute `#d.name<…>` kept verbatim.
func (p *parser) parseHashAttr() graph.Attr {
	tok := p.tok
	name := tok.Text[1:]
	hasBody := tok.End < len(p.src.Text) && p.src.Text[tok.End] == '<'
	if !strings.Contains(name, ".") && !hasBody {
		p.next()
		if a, ok := p.attrAliases[name]; ok {
			return a
		}
		if l, ok := p.locAliases[name]; ok {
			return &graph.LocAttr{Loc: l}
		}
		p.failAt(tok.Pos, "undefined symbol alias id '%s'", name)
		return nil
	}
	end := tok.End
	if hasBody {
		close, err := p.lex.BalancedBody(tok.End + 1)
		if err != nil {
			p.err = err
			p.failAt(tok.Pos, "")
			return nil
		}
		end = close + 1
	}
	p.lex.Reset(end)
	p.next()
	a := &graph.OpaqueAttr{Text: p.src.Text[tok.Pos:end]}
	if hasBody && strings.IndexByte(a.Text[1:], '#') >= 0 {
		// MLIR's printer may refer to aliases inside a dialect body
		// (`scope = #di_subprogram`, `src = loc(#loc3)`); the body is
		// kept verbatim, so they are spelled out once every alias of the
		// file is known (resolveDeferred).
		p.aliasBodies = append(p.aliasBodies, a)
	}
	return a
}

// expandAliases replaces, in a verbatim dialect attribute, each `#name`
// outside string literals that names an attribute or location alias of the
// file with what the alias stands for. Anything else stays as written: the
// body's syntax belongs to its dialect.
func (p *parser) expandAliases(text string) string {
	var b strings.Builder
	changed := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '"' {
			j := i + 1
			for j < len(text) && text[j] != '"' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(text) {
				j = len(text) - 1
			}
			b.WriteString(text[i : j+1])
			i = j
			continue
		}
		if c != '#' || i == 0 {
			b.WriteByte(c)
			continue
		}
		j := i + 1
		for j < len(text) && (isBareIdentChar(text[j]) || text[j] == '-') {
			j++
		}
		name := text[i+1 : j]
		if name == "" || strings.Contains(name, ".") || j < len(text) && text[j] == '<' {
			b.WriteByte(c)
			continue
		}
		if a, ok := p.attrAliases[name]; ok {
			b.WriteString(a.String())
		} else if l, ok := p.locAliases[name]; ok {
			// `loc(#loc3)` → `loc(<location>)`
			b.WriteString(l.String())
		} else {
			b.WriteByte(c)
			continue
		}
		changed = true
		i = j - 1
	}
	if !changed {
		return text
	}
	return b.String()
}

// cachedDict is a dictionary parsed from a spelling, and the nesting
// parsing it took.
type cachedDict struct {
	text  string
	d     *graph.DictAttr
	depth int
}

// parseDictCached parses a generic op's `{…}` of properties or attributes,
// sharing one DictAttr among every dictionary spelled the same: most ops'
// properties repeat (issue 22's module: 12,804 of them, 1,542 spellings).
// Attributes are immutable, and the bytecode reader shares a table entry
// among its uses in the same way. A spelling is remembered only when
// parsing it ended at the '}' closing finds, as in parseLocCached, and it
// is looked up with the location cache's hash seed.
func (p *parser) parseDictCached() *graph.DictAttr {
	if p.unshared {
		return p.parseDict()
	}
	start := p.tok.Pos
	close, ok := closing(p.src.Text, start+1, '}')
	var h uint64
	if ok {
		if p.dicts == nil {
			p.dicts = map[uint64]cachedDict{}
			if p.locs == nil {
				p.locs, p.locSeed = map[uint64]cachedLoc{}, maphash.MakeSeed()
			}
		}
		text := p.src.Text[start : close+1]
		h = maphash.String(p.locSeed, text)
		if c, hit := p.dicts[h]; hit && c.text == text && p.depth+c.depth <= maxDepth {
			p.lex.Reset(close + 1)
			p.next()
			return c.d
		}
	}
	outer, d0 := p.deepest, p.depth
	p.deepest = d0
	d := p.parseDict()
	need := p.deepest - d0
	p.deepest = max(outer, p.deepest)
	if ok && d != nil && p.ok() && p.prevEnd == close+1 {
		p.dicts[h] = cachedDict{text: p.src.Text[start : close+1], d: d, depth: need}
	}
	return d
}

func (p *parser) parseDict() *graph.DictAttr {
	var entries []graph.NamedAttr
	seen := map[string]bool{}
	p.parseCommaList(lBrace, rBrace, "'{'", func() {
		pos := p.tok.Pos
		name, ok := p.parseAttrName()
		if !ok {
			return
		}
		if seen[name] {
			p.failAt(pos, "duplicate key '%s' in dictionary attribute", name)
			return
		}
		seen[name] = true
		var v graph.Attr = &graph.UnitAttr{}
		if p.accept(equal) {
			v = p.parseAttr()
		}
		entries = append(entries, graph.NamedAttr{Name: name, Value: v})
	})
	if !p.ok() {
		return nil
	}
	// Keys are unique (checked above): sort once instead of graph.Dict's
	// insert-per-entry, which is quadratic in the dictionary size.
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return &graph.DictAttr{Entries: entries}
}

// parseAttrName reads a dictionary key: bare identifier (keywords included)
// or string.
func (p *parser) parseAttrName() (string, bool) { return p.parseKey("attribute name") }

// parseKey reads a bare identifier or a string literal; what names the
// expected thing in the error.
func (p *parser) parseKey(what string) (string, bool) {
	switch p.tok.Kind {
	case bareIdent:
		s := p.tok.Text
		p.next()
		return s, true
	case stringLit:
		s, ok := unquote(p.tok.Text)
		if !ok {
			p.fail("invalid string literal")
			return "", false
		}
		p.next()
		return s, true
	}
	p.fail("expected %s, found %s", what, describe(p.tok))
	return "", false
}

func symbolText(tok token) (string, bool) {
	s := tok.Text[1:]
	if strings.HasPrefix(s, `"`) {
		return unquote(s)
	}
	return s, true
}

func (p *parser) parseSymbolRef() graph.Attr {
	root, ok := symbolText(p.tok)
	if !ok {
		p.fail("invalid symbol name")
		return nil
	}
	p.next()
	a := &graph.SymbolRefAttr{Root: root}
	for p.is(colonColon) {
		p.next()
		if !p.is(atIdent) {
			p.fail("expected nested symbol reference after '::'")
			return nil
		}
		n, ok := symbolText(p.tok)
		if !ok {
			p.fail("invalid symbol name")
			return nil
		}
		a.Nested = append(a.Nested, n)
		p.next()
	}
	return a
}

// parseNumberAttr: `[-]int [: type]` or `[-]float [: type]`; integers
// default to i64 and floats to f64, as in MLIR.
func (p *parser) parseNumberAttr() graph.Attr {
	start := p.tok.Pos
	neg := p.accept(minus)
	tok := p.tok
	if tok.Kind != integer && tok.Kind != float {
		p.fail("expected integer or float after '-'")
		return nil
	}
	p.next()
	var typ graph.Type
	if p.accept(colon) {
		typ = p.parseType()
		if !p.ok() {
			return nil
		}
	}
	if tok.Kind == float {
		if typ == nil {
			typ = graph.F64
		}
		p.lastAttrType = typ
		ft, ok := typ.(*graph.FloatType)
		if !ok {
			p.failAt(start, "floating point value not valid for type %s", typ)
			return nil
		}
		v, err := strconv.ParseFloat(tok.Text, 64)
		if err != nil && !isRangeErr(err) {
			p.failAt(tok.Pos, "invalid float literal")
			return nil
		}
		if neg {
			v = -v
		}
		if !decodable(ft.Name) {
			return &graph.RawAttr{Text: p.src.Text[start:trimRightSpace(p.src.Text, p.tok.Pos)]}
		}
		return &graph.FloatAttr{Type: ft, Bits: graph.FloatBits(v, ft.Name)}
	}
	if typ == nil {
		typ = graph.I64
	}
	p.lastAttrType = typ
	switch t := typ.(type) {
	case *graph.FloatType:
		// A hex integer is the float's bit pattern; MLIR rejects a negative one.
		if !strings.HasPrefix(tok.Text, "0x") || neg {
			p.failAt(tok.Pos, "unexpected decimal integer literal for a floating point value (add a trailing '.' to make it a float)")
			return nil
		}
		bits, err := strconv.ParseUint(tok.Text[2:], 16, 64)
		if err != nil || graph.BitWidth(t) < 64 && graph.BitWidth(t) > 0 && bits>>uint(graph.BitWidth(t)) != 0 {
			p.failAt(tok.Pos, "hexadecimal float constant out of range for type %s", t)
			return nil
		}
		return &graph.FloatAttr{Type: t, Bits: bits}
	case *graph.IntegerType, *graph.IndexType:
		width := 64
		unsigned := false
		if it, ok := t.(*graph.IntegerType); ok {
			width, unsigned = it.Width, it.Signedness == graph.Unsigned
		}
		// Most literals fit 64 bits: decode them without a big.Int, which
		// cost three allocations per element of a large array.
		if u, ok := parseUint64(tok.Text); ok && width <= 64 {
			if !fits64(u, neg, width, unsigned, t) {
				p.failAt(start, "integer constant out of range for type %s", typ)
				return nil
			}
			v := int64(u)
			if neg {
				v = -v
			}
			return &graph.IntegerAttr{Type: typ, Value: v}
		}
		b, ok := parseBigInt(tok.Text)
		if !ok {
			p.failAt(tok.Pos, "invalid integer literal")
			return nil
		}
		if neg {
			b.Neg(b)
		}
		if !intFits(b, width, unsigned, t) {
			p.failAt(start, "integer constant out of range for type %s", typ)
			return nil
		}
		if width > 64 {
			return &graph.IntegerAttr{Type: typ, Big: b}
		}
		if b.Sign() < 0 {
			return &graph.IntegerAttr{Type: typ, Value: b.Int64()}
		}
		return &graph.IntegerAttr{Type: typ, Value: int64(b.Uint64())}
	}
	p.failAt(start, "integer literal not valid for type %s", typ)
	return nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func decodable(name string) bool {
	return name == "f16" || name == "bf16" || name == "f32" || name == "f64"
}

func parseBigInt(s string) (*big.Int, bool) {
	b := new(big.Int)
	if strings.HasPrefix(s, "0x") {
		_, ok := b.SetString(s[2:], 16)
		return b, ok
	}
	_, ok := b.SetString(s, 10)
	return b, ok
}

// parseUint64 decodes a decimal or 0x-hex integer token that fits 64 bits;
// ok is false otherwise (the caller then falls back to parseBigInt, which
// also reports malformed literals).
func parseUint64(s string) (uint64, bool) {
	base := uint64(10)
	if len(s) > 2 && s[0] == '0' && s[1] == 'x' {
		base, s = 16, s[2:]
	}
	if s == "" {
		return 0, false
	}
	var u uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = uint64(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = uint64(c-'A') + 10
		default:
			return 0, false
		}
		if u > (math.MaxUint64-d)/base {
			return 0, false // overflow
		}
		u = u*base + d
	}
	return u, true
}

// fits64 is intFits for a magnitude u that fits 64 bits, negated when neg.
func fits64(u uint64, neg bool, width int, unsigned bool, t graph.Type) bool {
	if width == 0 {
		return false
	}
	if neg && u != 0 {
		if unsigned {
			return false
		}
		// -2^(w-1) .. -1
		return width > 64 || u <= uint64(1)<<uint(width-1)
	}
	bl := bits.Len64(u)
	if it, ok := t.(*graph.IntegerType); ok && it.Signedness == graph.Signed {
		return bl <= width-1
	}
	return bl <= width
}

func mask64(width int) uint64 {
	if width >= 64 {
		return math.MaxUint64
	}
	return uint64(1)<<uint(width) - 1
}

// intFits mirrors MLIR's check: a value fits a signless iN if it fits as
// either signed or unsigned N bits.
func intFits(b *big.Int, width int, unsigned bool, t graph.Type) bool {
	if width == 0 {
		return false
	}
	bl := b.BitLen()
	if b.Sign() < 0 {
		if unsigned {
			return false
		}
		// -2^(w-1) .. -1
		m := new(big.Int).Lsh(big.NewInt(1), uint(width-1))
		return new(big.Int).Neg(b).Cmp(m) <= 0
	}
	if it, ok := t.(*graph.IntegerType); ok && it.Signedness == graph.Signed {
		return bl <= width-1
	}
	return bl <= width
}

// --------------------------------------------------------------- dense

// denseBody is what the first pass over a dense literal's body found.
type denseBody struct {
	// Elements are only counted here: their type is known after the
	// '>', so they are decoded by lexing the body a second time (see
	// denseFromElems) instead of keeping a token per element.
	nElems             int64
	shape              []int64
	splat              bool
	hexStr             string
	opaque             bool // complex or string elements: keep verbatim
	bodyStart, bodyEnd int
}

func (p *parser) parseDense() graph.Attr {
	start := p.tok.Pos
	p.next()
	if !p.expect(less, "'<' after 'dense'") {
		return nil
	}
	b := &denseBody{bodyStart: p.tok.Pos}
	p.scanDenseBody(b)
	if !p.ok() || !p.expect(greater, "'>' to close dense literal") {
		return nil
	}
	if !p.expect(colon, "':' and a type after dense literal") {
		return nil
	}
	typ := p.parseType()
	if !p.ok() {
		return nil
	}
	p.lastAttrType = typ
	end := trimRightSpace(p.src.Text, p.tok.Pos)
	raw := func() graph.Attr { return &graph.RawAttr{Text: p.src.Text[start:end]} }
	tt, ok := typ.(*graph.TensorType)
	if !ok || b.opaque || !tt.IsStatic() || !denseDecodable(tt) {
		return raw()
	}
	n := tt.NumElements()
	if b.hexStr != "" {
		return p.denseFromHex(b, tt, raw)
	}
	if p.src.Text[b.bodyStart:b.bodyEnd] == "" || b.bodyStart == b.bodyEnd {
		if n != 0 {
			p.failAt(b.bodyStart, "parsed zero elements, but type (%s) expected at least 1", tt)
			return nil
		}
		return &graph.DenseElementsAttr{Type: tt, Raw: []byte{}}
	}
	if b.splat {
		b.shape = nil
	} else if !p.checkDenseShape(b, tt) {
		return nil
	}
	return p.denseFromElems(b, tt)
}

// scanDenseBody runs the first pass over a dense literal's body, up to its closing '>'.
func (p *parser) scanDenseBody(b *denseBody) {
	switch {
	case p.is(greater):
		// empty: dense<> : tensor<0xT>
	case p.is(stringLit):
		b.hexStr = p.tok.Text
		p.next()
	case p.is(lSquare):
		p.scanDenseElems(b, 0)
	default:
		b.splat = true
		p.scanDenseElems(b, 0)
	}
	b.bodyEnd = p.tok.Pos
}

// scanDenseElems counts the elements of one nesting level of a dense literal and records its length in b.shape.
func (p *parser) scanDenseElems(b *denseBody, level int) bool {
	if !p.enter() {
		return false
	}
	defer p.leave()
	if p.is(lSquare) {
		if len(b.shape) <= level {
			b.shape = append(b.shape, -1) // shape[level] is this level's length
		}
		n := int64(0)
		p.parseCommaList(lSquare, rSquare, "'['", func() {
			p.scanDenseElems(b, level+1)
			n++
		})
		if b.shape[level] < 0 {
			b.shape[level] = n
		} else if b.shape[level] != n {
			p.failAt(b.bodyStart, "tensor literal is invalid; ranks are not consistent between elements")
			return false
		}
		return p.ok()
	}
	switch p.tok.Kind {
	case lParen, stringLit:
		b.opaque = true
		p.skipBalancedValue()
		return p.ok()
	}
	neg := p.accept(minus)
	switch {
	case p.is(integer) || p.is(float):
	case !neg && (p.isKeyword("true") || p.isKeyword("false")):
	default:
		p.fail("expected element literal of primitive type")
		return false
	}
	b.nElems++
	p.next()
	return true
}

// denseDecodable reports whether tt's elements are a float, integer or index kind this package stores as bytes.
func denseDecodable(tt *graph.TensorType) bool {
	elemBytes := graph.ElemBytes(tt.Elem)
	if ft, isF := tt.Elem.(*graph.FloatType); isF && !decodable(ft.Name) {
		return false
	}
	switch tt.Elem.(type) {
	case *graph.FloatType, *graph.IntegerType, *graph.IndexType:
	default:
		return false
	}
	if elemBytes == 0 || elemBytes > 8 {
		return false // wide integers (i100) stay verbatim
	}
	return true
}

// denseFromHex decodes a dense literal's hex string body; string and i1 bodies stay raw.
func (p *parser) denseFromHex(b *denseBody, tt *graph.TensorType, raw func() graph.Attr) graph.Attr {
	elemBytes := graph.ElemBytes(tt.Elem)
	isBool := graph.BitWidth(tt.Elem) == 1
	n := tt.NumElements()
	s, ok := unquote(b.hexStr)
	if !ok || !strings.HasPrefix(s, "0x") {
		return raw() // dense string elements
	}
	if isBool {
		return raw() // MLIR bit-packs i1 hex data
	}
	data, err := hex.DecodeString(s[2:])
	if err != nil {
		p.failAt(b.bodyStart, "invalid hex data in dense literal")
		return nil
	}
	size, err := tt.ByteSize() // an error for a count past int64: only a splat fits such a type
	switch {
	case int64(len(data)) == int64(elemBytes) && n != 1:
		return &graph.DenseElementsAttr{Type: tt, Raw: data, Splat: true}
	case err == nil && int64(len(data)) == size:
		return &graph.DenseElementsAttr{Type: tt, Raw: data}
	}
	p.failAt(b.bodyStart, "elements hex data size is invalid for provided type: '%s'", tt)
	return nil
}

// checkDenseShape reports whether the shape the first pass inferred matches tt, failing if not.
func (p *parser) checkDenseShape(b *denseBody, tt *graph.TensorType) bool {
	if len(b.shape) != len(tt.Shape) {
		p.failAt(b.bodyStart, "inferred shape of elements literal (%v) does not match type (%s)", b.shape, tt)
		return false
	}
	for i := range b.shape {
		if b.shape[i] != tt.Shape[i] {
			p.failAt(b.bodyStart, "inferred shape of elements literal (%v) does not match type (%s)", b.shape, tt)
			return false
		}
	}
	return true
}

// denseFromElems lexes a dense literal's body a second time and encodes its elements as tt's storage bytes.
func (p *parser) denseFromElems(b *denseBody, tt *graph.TensorType) graph.Attr {
	elemBytes := graph.ElemBytes(tt.Elem)
	n := tt.NumElements()
	out := make([]byte, 0, b.nElems*int64(elemBytes))
	var buf [8]byte
	// The first pass accepted the body, so its tokens are brackets, commas,
	// '-' and element literals.
	lx := NewLexer(p.src)
	lx.Reset(b.bodyStart)
	neg := false
	for tok := lx.Next(); tok.Kind != EOF && tok.Pos < b.bodyEnd; tok = lx.Next() {
		switch tok.Kind {
		case lSquare, rSquare, comma:
			continue
		case minus:
			neg = true
			continue
		}
		bits, ok := p.elemBits(tok, neg, tt.Elem)
		if !ok {
			return nil
		}
		neg = false
		binary.LittleEndian.PutUint64(buf[:], bits)
		out = append(out, buf[:elemBytes]...)
	}
	return &graph.DenseElementsAttr{Type: tt, Raw: out, Splat: b.splat && n != 1}
}

// elemBits converts one dense element literal to its storage bits.
func (p *parser) elemBits(tok token, neg bool, elem graph.Type) (uint64, bool) {
	isBool := graph.BitWidth(elem) == 1
	if tok.Kind == bareIdent { // true/false
		if !isBool {
			p.failAt(tok.Pos, "expected %s element, found boolean", elem)
			return 0, false
		}
		if tok.Text == "true" {
			return 1, true
		}
		return 0, true
	}
	switch t := elem.(type) {
	case *graph.FloatType:
		if tok.Kind == integer && strings.HasPrefix(tok.Text, "0x") {
			bits, err := strconv.ParseUint(tok.Text[2:], 16, 64)
			if err != nil || neg || bits>>uint(graph.BitWidth(t)) != 0 && graph.BitWidth(t) < 64 {
				p.failAt(tok.Pos, "hexadecimal float constant out of range for type %s", t)
				return 0, false
			}
			return bits, true
		}
		if tok.Kind == integer {
			p.failAt(tok.Pos, "expected floating-point elements, but parsed integer")
			return 0, false
		}
		v, err := strconv.ParseFloat(tok.Text, 64)
		if err != nil && !isRangeErr(err) {
			p.failAt(tok.Pos, "invalid float literal")
			return 0, false
		}
		if neg {
			v = -v
		}
		return graph.FloatBits(v, t.Name), true
	default:
		if tok.Kind == float {
			p.failAt(tok.Pos, "expected integer elements, but parsed floating-point")
			return 0, false
		}
		width, unsigned := 64, false
		if it, ok := t.(*graph.IntegerType); ok {
			width, unsigned = it.Width, it.Signedness == graph.Unsigned
		}
		if u, ok := parseUint64(tok.Text); ok {
			// The common case, without a big.Int (see parseNumberAttr).
			if isBool && (neg && u != 0 || u > 1) || !isBool && !fits64(u, neg, width, unsigned, t) {
				p.failAt(tok.Pos, "integer constant out of range for type %s", elem)
				return 0, false
			}
			if neg {
				u = -u
			}
			return u & mask64(width), true
		}
		b, ok := parseBigInt(tok.Text)
		if !ok {
			p.failAt(tok.Pos, "invalid integer literal")
			return 0, false
		}
		if neg {
			b.Neg(b)
		}
		if isBool && (b.Sign() < 0 || b.BitLen() > 1) || !isBool && !intFits(b, width, unsigned, t) {
			p.failAt(tok.Pos, "integer constant out of range for type %s", elem)
			return 0, false
		}
		if b.Sign() < 0 {
			return uint64(b.Int64()) & mask64(width), true
		}
		return b.Uint64() & mask64(width), true
	}
}

// skipBalancedValue skips one element (string or parenthesized complex).
func (p *parser) skipBalancedValue() {
	if p.is(stringLit) {
		p.next()
		return
	}
	depth := 0
	for p.ok() {
		switch p.tok.Kind {
		case lParen:
			depth++
		case rParen:
			depth--
		case EOF:
			p.fail("unterminated element literal")
			return
		}
		p.next()
		if depth == 0 {
			return
		}
	}
}

func (p *parser) parseDenseResource() graph.Attr {
	p.next()
	if !p.expect(less, "'<' after 'dense_resource'") {
		return nil
	}
	var key string
	switch p.tok.Kind {
	case bareIdent:
		key = p.tok.Text
	case stringLit:
		k, ok := unquote(p.tok.Text)
		if !ok {
			p.fail("invalid resource key")
			return nil
		}
		key = k
	default:
		p.fail("expected resource handle name, found %s", describe(p.tok))
		return nil
	}
	p.next()
	if !p.expect(greater, "'>'") || !p.expect(colon, "':' and a type after dense_resource") {
		return nil
	}
	pos := p.tok.Pos
	t := p.parseType()
	if !p.ok() {
		return nil
	}
	p.lastAttrType = t
	tt, ok := t.(*graph.TensorType)
	if !ok {
		p.failAt(pos, "dense_resource needs a tensor type, found %s", t)
		return nil
	}
	return &graph.DenseResourceAttr{Key: key, Type: tt}
}

func (p *parser) parseDenseArray() graph.Attr {
	start := p.tok.Pos
	p.next()
	if !p.expect(less, "'<' after 'array'") {
		return nil
	}
	elem := p.parseType()
	if !p.ok() {
		return nil
	}
	ft, isF := elem.(*graph.FloatType)
	if _, isI := elem.(*graph.IntegerType); !isI && !isF {
		p.failAt(start, "array element type must be an integer or float type, found %s", elem)
		return nil
	}
	if isF && !decodable(ft.Name) {
		p.failAt(start, "unsupported float type %s in array attribute", ft)
		return nil
	}
	// Elements wider than 64 bits (array<i128: …>) are checked but kept as
	// written: graph stores at most 8 bytes per element.
	w := graph.ElemBytes(elem)
	verbatim := w > 8
	if verbatim {
		w = 0
	}
	a := &graph.DenseArrayAttr{Elem: elem, Raw: []byte{}}
	if p.accept(colon) {
		// Sized once, in the elements' storage bytes: growing by append
		// allocated about five times the final size. The commas before the
		// next '>' bound the count (a comment holding '>' only makes the
		// hint smaller).
		n := 1
		if end := strings.IndexByte(p.src.Text[p.tok.Pos:], '>'); end > 0 {
			n += strings.Count(p.src.Text[p.tok.Pos:p.tok.Pos+end], ",")
		}
		raw := make([]byte, 0, n*w)
		var buf [8]byte
		for p.ok() {
			neg := p.accept(minus)
			tok := p.tok
			switch {
			case tok.Kind == integer || tok.Kind == float, !neg && (p.isKeyword("true") || p.isKeyword("false")):
			default:
				p.fail("expected array element")
				return nil
			}
			p.next()
			bits, ok := p.elemBits(tok, neg, elem)
			if !ok {
				return nil
			}
			binary.LittleEndian.PutUint64(buf[:], bits)
			raw = append(raw, buf[:w]...)
			if !p.accept(comma) {
				break
			}
		}
		a.Raw = raw
	}
	end := p.tok.End
	if !p.expect(greater, "'>' to close array attribute") {
		return nil
	}
	if verbatim {
		return &graph.RawAttr{Text: p.src.Text[start:end]}
	}
	return a
}

// ------------------------------------------------------------ locations

// parseLoc parses `loc(…)`. When slot is non-nil a not-yet-defined `#alias`
// is allowed and patched into *slot once the alias appears.
func (p *parser) parseLoc(slot *graph.Loc) graph.Loc {
	if !p.acceptKeyword("loc") || !p.expect(lParen, "'(' after 'loc'") {
		if p.ok() {
			p.fail("expected 'loc'")
		}
		return nil
	}
	var l graph.Loc
	if slot != nil && p.is(hashIdent) && !p.isDialectAttrStart() {
		name := p.tok.Text[1:]
		if a, ok := p.locAliases[name]; ok {
			l = a
		} else {
			p.deferred = append(p.deferred, deferredLoc{slot: slot, name: name, pos: p.tok.Pos})
			l = graph.Unknown
		}
		p.next()
	} else {
		l = p.parseLocCached(")")
	}
	if !p.expect(rParen, "')' to close location") {
		return nil
	}
	return l
}

// cachedLoc is a location parsed from a spelling, and how many levels of
// nesting parsing it took.
type cachedLoc struct {
	text  string
	loc   graph.Loc
	depth int
}

// parseLocCached parses a location that ends before one of the bytes in
// ends (")" inside `loc(…)` and after a name location, ",]" for an element
// of a fused location), sharing one Loc among every location spelled the
// same: exporters write each op's full location inline (coreai-torch: a
// fused location of names and file frames, half of a generic file's bytes),
// neighbouring ops repeat it and distinct ones repeat their frames, as MLIR
// uniques them. Locations are immutable, as they are when the bytecode
// reader shares one table entry among its uses.
//
// The spelling's extent is found by locExtent; a spelling is remembered only
// when parsing it ended exactly there, so a remembered one reads the same
// wherever it appears (its tokens, the aliases it names, which never change
// once defined, and the nesting it needs, checked against maxDepth).
func (p *parser) parseLocCached(ends string) graph.Loc {
	if p.unshared {
		return p.parseLocInstance()
	}
	start := p.tok.Pos
	end, ok := locExtent(p.src.Text, start)
	ok = ok && strings.IndexByte(ends, p.src.Text[end]) >= 0
	var h uint64
	if ok {
		text := p.src.Text[start:end]
		c, hit := p.lastLoc, p.lastLoc.text == text && p.lastLoc.loc != nil
		if !hit {
			if p.locs == nil {
				p.locs, p.locSeed = map[uint64]cachedLoc{}, maphash.MakeSeed()
			}
			h = maphash.String(p.locSeed, text)
			c, hit = p.locs[h]
			hit = hit && c.text == text
		}
		if hit && p.depth+c.depth <= maxDepth {
			p.lastLoc = c
			p.lex.Reset(end)
			p.next()
			return c.loc
		}
	}
	outer, d0 := p.deepest, p.depth
	p.deepest = d0
	l := p.parseLocInstance()
	need := p.deepest - d0
	p.deepest = max(outer, p.deepest)
	if ok && l != nil && p.ok() && p.tok.Pos == end && len(p.tok.Text) == 1 && p.tok.Text[0] == p.src.Text[end] {
		if h == 0 {
			h = maphash.String(p.locSeed, p.src.Text[start:end])
		}
		p.lastLoc = cachedLoc{text: p.src.Text[start:end], loc: l, depth: need}
		p.locs[h] = p.lastLoc
	}
	return l
}

// locExtent finds where a location starting at start ends: the first ',',
// ')', ']', '}' or '>' outside brackets and string literals. ok is false
// where it cannot tell (a comment, a line break in a string, no end);
// parseLocCached then parses without sharing.
func locExtent(s string, start int) (end int, ok bool) { return extent(s, start, true) }

// extentPlain marks the bytes extent and angleExtent step over.
var extentPlain = func() (t [256]bool) {
	for c := range t {
		t[c] = true
	}
	for _, c := range []byte("\"()[]{}<>/,") {
		t[c] = false
	}
	return t
}()

// stringEnd returns the index of the quote closing a string literal whose
// body starts at i; ok is false for a line break before it or no end.
func stringEnd(s string, i int) (int, bool) {
	for {
		j := strings.IndexByte(s[i:], '"')
		if j < 0 {
			return 0, false
		}
		body := s[i : i+j]
		if strings.IndexByte(body, '\n') >= 0 {
			return 0, false
		}
		k := strings.IndexByte(body, '\\')
		if k < 0 {
			return i + j, true
		}
		// An escape: step over it (two hex digits or one character) and
		// look again from there.
		i += k + 2
		if i > len(s) {
			return 0, false
		}
	}
}

func (p *parser) parseLocInstance() graph.Loc {
	if !p.enter() {
		return nil
	}
	defer p.leave()
	tok := p.tok
	switch tok.Kind {
	case hashIdent:
		if p.isDialectAttrStart() {
			// `loc(#debuginfo.location<…>)`: a dialect attribute used as a
			// location (coreai-torch), kept verbatim with its balanced body.
			a := p.parseHashAttr()
			if a == nil {
				return nil
			}
			return &graph.DialectLoc{Attr: a}
		}
		name := tok.Text[1:]
		p.next()
		if l, ok := p.locAliases[name]; ok {
			return l
		}
		if a, ok := p.attrAliases[name]; ok {
			if la, ok := a.(*graph.LocAttr); ok {
				return la.Loc
			}
			p.failAt(tok.Pos, "expected location, but alias '%s' is not a location", name)
			return nil
		}
		p.failAt(tok.Pos, "undefined symbol alias id '%s'", name)
		return nil
	case stringLit:
		s, ok := unquote(tok.Text)
		if !ok {
			p.fail("invalid string literal")
			return nil
		}
		p.next()
		if p.accept(colon) { // "file":line:col
			line, ok1 := p.parseUint("line number")
			if !ok1 || !p.expect(colon, "':' and a column number") {
				return nil
			}
			col, ok2 := p.parseUint("column number")
			if !ok2 {
				return nil
			}
			return &graph.FileLoc{File: s, Line: line, Col: col}
		}
		nl := &graph.NameLoc{Name: s}
		if p.accept(lParen) {
			nl.Child = p.parseLocCached(")")
			if !p.expect(rParen, "')' after child location") {
				return nil
			}
		}
		return nl
	case bareIdent:
		switch tok.Text {
		case "unknown":
			p.next()
			return graph.Unknown
		case "fused":
			p.next()
			fl := &graph.FusedLoc{}
			if p.accept(less) {
				fl.Metadata = p.parseAttr()
				if !p.expect(greater, "'>' after fused location metadata") {
					return nil
				}
			}
			p.parseCommaList(lSquare, rSquare, "'[' in fused location", func() {
				fl.Locs = append(fl.Locs, p.parseLocCached(",]"))
			})
			if !p.ok() {
				return nil
			}
			return fl
		case "callsite":
			p.next()
			if !p.expect(lParen, "'(' after 'callsite'") {
				return nil
			}
			callee := p.parseLocInstance()
			if !p.ok() || !p.acceptKeyword("at") {
				p.fail("expected 'at' in callsite location")
				return nil
			}
			caller := p.parseLocInstance()
			if !p.expect(rParen, "')' to close callsite") {
				return nil
			}
			return &graph.CallSiteLoc{Callee: callee, Caller: caller}
		}
	}
	p.fail("expected location instance, found %s", describe(tok))
	return nil
}

// isDialectAttrStart reports whether the current #-token starts a dialect
// attribute (`#d.name…`, `#d<…>`) rather than naming an alias (`#loc3`).
func (p *parser) isDialectAttrStart() bool {
	t := p.tok
	return t.Kind == hashIdent && (strings.Contains(t.Text, ".") || t.End < len(p.src.Text) && p.src.Text[t.End] == '<')
}

func (p *parser) parseUint(what string) (int, bool) {
	if !p.is(integer) || strings.HasPrefix(p.tok.Text, "0x") {
		p.fail("expected %s", what)
		return 0, false
	}
	v, err := strconv.ParseUint(p.tok.Text, 10, 32)
	if err != nil {
		p.fail("%s out of range", what)
		return 0, false
	}
	p.next()
	return int(v), true
}

// resolveDeferred patches forward location-alias uses; call at end of file.
func (p *parser) resolveDeferred() {
	for _, d := range p.deferred {
		l, ok := p.locAliases[d.name]
		if !ok {
			if a, ok2 := p.attrAliases[d.name]; ok2 {
				if la, ok3 := a.(*graph.LocAttr); ok3 {
					l, ok = la.Loc, true
				}
			}
		}
		if !ok {
			p.failAt(d.pos, "operation location alias '%s' was never defined", d.name)
			return
		}
		*d.slot = l
	}
	p.deferred = nil
	for _, a := range p.aliasBodies {
		a.Text = p.expandAliases(a.Text)
	}
	p.aliasBodies = nil
}
