package mlirtext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// kind classifies a token. The set mirrors MLIR's own lexer so the parser can
// follow MLIR's grammar decisions one for one.
type kind uint8

const (
	EOF kind = iota
	bareIdent
	percentIdent // %name, %0
	caretIdent   // ^bb0
	atIdent      // @sym or @"quoted sym"
	hashIdent    // #alias, #dialect.attr
	bangIdent    // !alias, !dialect.type
	stringLit    // "..." (Text keeps the quotes; use unquote)
	integer      // 12, 0x1F
	float        // 1.5, 1.0e-3
	lParen
	rParen
	lSquare
	rSquare
	lBrace
	rBrace
	less
	greater
	comma
	equal
	colon
	colonColon // ::
	arrow      // ->
	question
	star
	plus
	minus
	ellipsis      // ...
	fileMetaBegin // {-#
	fileMetaEnd   // #-}
	numKinds
)

var kindNames = [numKinds]string{
	EOF: "end of file", bareIdent: "identifier", percentIdent: "%identifier",
	caretIdent: "^identifier", atIdent: "@symbol", hashIdent: "#identifier",
	bangIdent: "!identifier", stringLit: "string", integer: "integer", float: "float",
	lParen: "'('", rParen: "')'", lSquare: "'['", rSquare: "']'", lBrace: "'{'",
	rBrace: "'}'", less: "'<'", greater: "'>'", comma: "','", equal: "'='",
	colon: "':'", colonColon: "'::'", arrow: "'->'", question: "'?'", star: "'*'",
	plus: "'+'", minus: "'-'", ellipsis: "'...'", fileMetaBegin: "'{-#'",
	fileMetaEnd: "'#-}'",
}

func (k kind) String() string {
	if k < numKinds && kindNames[k] != "" {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// token is one lexeme. Pos and End are byte offsets into the source; Text is
// the exact source slice (no copy), so positions and spellings are never lost.
type token struct {
	Kind kind
	Pos  int
	End  int
	Text string
}

// source is an input buffer with a name, turning byte offsets into 1-based
// line:col (MLIR counts columns in bytes).
type source struct {
	Name string
	Text string
	// The last LineCol answer: the parser asks for op positions in file
	// order, so each query scans forward from the previous one instead of
	// keeping a table of every line start (8 bytes a line, and a module of
	// a million ops has a million lines).
	curOff, curLine, curStart int
	scanned                   int // bytes LineCol scanned, for tests that count its work
}

// NewSource wraps text named name (a file path, or "<stdin>").
func NewSource(name, text string) *source { return &source{Name: name, Text: text, curLine: 1} }

// LineCol returns the 1-based line and column of byte offset off.
func (s *source) LineCol(off int) (line, col int) {
	off = max(0, min(off, len(s.Text)))
	if s.curLine == 0 || off < s.curOff { // a Source not from NewSource, or a step back
		s.curOff, s.curLine, s.curStart = 0, 1, 0
	}
	s.scanned += off - s.curOff
	for i := s.curOff; i < off; {
		k := strings.IndexByte(s.Text[i:off], '\n')
		if k < 0 {
			break
		}
		i += k + 1
		s.curLine++
		s.curStart = i
	}
	s.curOff = off
	return s.curLine, off - s.curStart + 1
}

// LineText returns the text of 1-based line n without its newline.
func (s *source) LineText(n int) string {
	start := 0
	for l := 1; l < n; l++ {
		k := strings.IndexByte(s.Text[start:], '\n')
		if k < 0 {
			return ""
		}
		start += k + 1
	}
	if n < 1 {
		return ""
	}
	end := len(s.Text)
	if k := strings.IndexByte(s.Text[start:], '\n'); k >= 0 {
		end = start + k
	}
	return strings.TrimSuffix(s.Text[start:end], "\r")
}

// Error is a syntax error at a position, carrying the offending line so a
// user can see what is wrong without opening the file.
type Error struct {
	File     string
	Line     int
	Col      int
	Msg      string
	LineText string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	if e.LineText != "" || e.Line > 0 {
		// Long lines (a 1 MB blob string) would drown the message: show a window.
		text, col := e.LineText, e.Col
		const window = 160
		if len(text) > window {
			start := max(0, col-1-window/2)
			end := min(len(text), start+window)
			prefix := ""
			if start > 0 {
				prefix = "..."
			}
			text = prefix + text[start:end]
			col = col - start + len(prefix)
			if end < len(e.LineText) {
				text += "..."
			}
		}
		b.WriteString("\n  ")
		// Echoing a binary file's bytes could drive the terminal (escape
		// sequences): control characters and invalid UTF-8 print as '?',
		// one per byte, so the caret stays under the column.
		b.WriteString(strings.Map(func(r rune) rune {
			switch {
			case r == '\t':
				return ' '
			case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 || r == utf8.RuneError:
				return '?'
			}
			return r
		}, text))
		b.WriteString("\n  ")
		b.WriteString(strings.Repeat(" ", max(0, col-1)))
		b.WriteByte('^')
	}
	return b.String()
}

// ErrorAt builds an Error for byte offset off of s.
func (s *source) ErrorAt(off int, format string, args ...any) *Error {
	line, col := s.LineCol(off)
	return &Error{File: s.Name, Line: line, Col: col, Msg: fmt.Sprintf(format, args...), LineText: s.LineText(line)}
}

// lexer turns a Source into tokens on demand. It can be reset to any offset,
// which the parser needs for MLIR's context-dependent spots (dimension lists
// such as `4x8xf16`, dialect bodies).
type lexer struct {
	src *source
	s   string
	pos int
	err *Error
}

// NewLexer starts lexing src from the beginning.
func NewLexer(src *source) *lexer { return &lexer{src: src, s: src.Text} }

// Err is the first lexical error, if any; after it Next returns EOF.
func (l *lexer) Err() *Error { return l.err }

// Reset moves the lexer to byte offset off.
func (l *lexer) Reset(off int) { l.pos = off }

// Pos is the current byte offset.
func (l *lexer) Pos() int { return l.pos }

func (l *lexer) fail(off int, format string, args ...any) token {
	if l.err == nil {
		l.err = l.src.ErrorAt(off, format, args...)
	}
	l.pos = len(l.s)
	return token{Kind: EOF, Pos: off, End: off}
}

func (l *lexer) tok(k kind, start int) token {
	return token{Kind: k, Pos: start, End: l.pos, Text: l.s[start:l.pos]}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isHex(c byte) bool    { return notHex[c] == 0 }

// notHex is 1 for every byte that is not a hex digit.
var notHex = func() (t [256]byte) {
	for c := range t {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			t[c] = 1
		}
	}
	return t
}()

// firstNonHex returns the index of the first byte of s that is not a hex
// digit, or -1. Eight bytes are looked up at a time (resource blobs are
// megabytes of digits, checked when parsed).
func firstNonHex(s string) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if notHex[s[i]]|notHex[s[i+1]]|notHex[s[i+2]]|notHex[s[i+3]]|notHex[s[i+4]]|notHex[s[i+5]]|notHex[s[i+6]]|notHex[s[i+7]] != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if notHex[s[i]] != 0 {
			return i
		}
	}
	return -1
}

// isBareIdentChar reports the characters allowed after the first one of a
// bare identifier: letters, digits, '_', '$', '.'.
func isBareIdentChar(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '$' || c == '.'
}

// isSuffixChar is the set for %, ^, #, ! identifiers: bare chars plus '-'.
func isSuffixChar(c byte) bool { return isBareIdentChar(c) || c == '-' }

// Next returns the next token, skipping whitespace and // comments.
func (l *lexer) Next() token {
	for {
		if l.pos >= len(l.s) {
			return token{Kind: EOF, Pos: len(l.s), End: len(l.s)}
		}
		start := l.pos
		c := l.s[l.pos]
		l.pos++
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '/':
			if l.pos < len(l.s) && l.s[l.pos] == '/' {
				for l.pos < len(l.s) && l.s[l.pos] != '\n' {
					l.pos++
				}
				continue
			}
			return l.fail(start, "unexpected character '/'")
		case '(':
			return l.tok(lParen, start)
		case ')':
			return l.tok(rParen, start)
		case '[':
			return l.tok(lSquare, start)
		case ']':
			return l.tok(rSquare, start)
		case '{':
			if strings.HasPrefix(l.s[l.pos:], "-#") {
				l.pos += 2
				return l.tok(fileMetaBegin, start)
			}
			return l.tok(lBrace, start)
		case '}':
			return l.tok(rBrace, start)
		case '<':
			return l.tok(less, start)
		case '>':
			return l.tok(greater, start)
		case ',':
			return l.tok(comma, start)
		case '=':
			return l.tok(equal, start)
		case '?':
			return l.tok(question, start)
		case '*':
			return l.tok(star, start)
		case '+':
			return l.tok(plus, start)
		case ':':
			if l.pos < len(l.s) && l.s[l.pos] == ':' {
				l.pos++
				return l.tok(colonColon, start)
			}
			return l.tok(colon, start)
		case '-':
			if l.pos < len(l.s) && l.s[l.pos] == '>' {
				l.pos++
				return l.tok(arrow, start)
			}
			return l.tok(minus, start)
		case '.':
			if strings.HasPrefix(l.s[l.pos:], "..") {
				l.pos += 2
				return l.tok(ellipsis, start)
			}
			return l.fail(start, "unexpected character '.'")
		case '"':
			return l.lexString(start)
		case '@':
			return l.lexAt(start)
		case '%', '^', '!':
			return l.lexPrefixed(start, c)
		case '#':
			if strings.HasPrefix(l.s[l.pos:], "-}") {
				l.pos += 2
				return l.tok(fileMetaEnd, start)
			}
			return l.lexPrefixed(start, c)
		default:
			switch {
			case isDigit(c):
				return l.lexNumber(start)
			case isLetter(c) || c == '_':
				for l.pos < len(l.s) && isBareIdentChar(l.s[l.pos]) {
					l.pos++
				}
				return l.tok(bareIdent, start)
			}
			if c >= 0x20 && c < 0x7f {
				return l.fail(start, "unexpected character %q", c)
			}
			return l.fail(start, "unexpected byte 0x%02X", c)
		}
	}
}

func (l *lexer) lexString(start int) token {
	// Most strings hold neither an escape nor a line break: find the
	// closing quote with IndexByte (a resource blob is megabytes of hex
	// digits in one string) and check the body for both the same way.
	if j := strings.IndexByte(l.s[l.pos:], '"'); j >= 0 {
		body := l.s[l.pos : l.pos+j]
		if strings.IndexByte(body, '\\') < 0 && strings.IndexByte(body, '\n') < 0 {
			l.pos += j + 1
			return l.tok(stringLit, start)
		}
	}
	for l.pos < len(l.s) {
		c := l.s[l.pos]
		l.pos++
		switch c {
		case '"':
			return l.tok(stringLit, start)
		case '\n':
			return l.fail(start, "string literal not terminated before end of line")
		case '\\':
			if l.pos >= len(l.s) {
				return l.fail(start, "unterminated string literal")
			}
			e := l.s[l.pos]
			switch {
			case e == '"' || e == '\\' || e == 'n' || e == 't':
				l.pos++
			case l.pos+1 < len(l.s) && isHex(e) && isHex(l.s[l.pos+1]):
				l.pos += 2
			default:
				return l.fail(l.pos-1, "unknown escape in string literal")
			}
		}
	}
	return l.fail(start, "unterminated string literal")
}

func (l *lexer) lexAt(start int) token {
	if l.pos < len(l.s) && l.s[l.pos] == '"' {
		l.pos++
		t := l.lexString(l.pos - 1)
		if t.Kind == EOF {
			return t
		}
		return l.tok(atIdent, start)
	}
	if l.pos < len(l.s) && (isLetter(l.s[l.pos]) || l.s[l.pos] == '_') {
		for l.pos < len(l.s) && isBareIdentChar(l.s[l.pos]) {
			l.pos++
		}
		return l.tok(atIdent, start)
	}
	return l.fail(start, "@ identifier expected to start with a letter, '_' or '\"'")
}

// lexPrefixed lexes %id ^id #id !id. Their suffix is either all digits or a
// letter-led run of identifier characters (MLIR's suffix-id).
func (l *lexer) lexPrefixed(start int, c byte) token {
	var k kind
	switch c {
	case '%':
		k = percentIdent
	case '^':
		k = caretIdent
	case '#':
		k = hashIdent
	default:
		k = bangIdent
	}
	if l.pos >= len(l.s) {
		return l.fail(start, "invalid %c identifier", c)
	}
	d := l.s[l.pos]
	switch {
	case isDigit(d):
		for l.pos < len(l.s) && isDigit(l.s[l.pos]) {
			l.pos++
		}
	case isLetter(d) || d == '_' || d == '$' || d == '.' || d == '-':
		for l.pos < len(l.s) && isSuffixChar(l.s[l.pos]) {
			l.pos++
		}
	default:
		return l.fail(start, "invalid %c identifier", c)
	}
	return l.tok(k, start)
}

func (l *lexer) lexNumber(start int) token {
	// Hex integer: 0x... (also how MLIR spells float bit patterns).
	if l.s[start] == '0' && l.pos < len(l.s) && l.s[l.pos] == 'x' && l.pos+1 < len(l.s) && isHex(l.s[l.pos+1]) {
		l.pos++
		for l.pos < len(l.s) && isHex(l.s[l.pos]) {
			l.pos++
		}
		return l.tok(integer, start)
	}
	for l.pos < len(l.s) && isDigit(l.s[l.pos]) {
		l.pos++
	}
	if l.pos >= len(l.s) || l.s[l.pos] != '.' {
		return l.tok(integer, start)
	}
	l.pos++
	for l.pos < len(l.s) && isDigit(l.s[l.pos]) {
		l.pos++
	}
	if l.pos < len(l.s) && (l.s[l.pos] == 'e' || l.s[l.pos] == 'E') {
		p := l.pos + 1
		if p < len(l.s) && (l.s[p] == '+' || l.s[p] == '-') {
			p++
		}
		if p < len(l.s) && isDigit(l.s[p]) {
			l.pos = p
			for l.pos < len(l.s) && isDigit(l.s[l.pos]) {
				l.pos++
			}
		}
	}
	return l.tok(float, start)
}

// BalancedBody scans a dialect attribute/type body starting just after its
// opening '<' and returns the offset of the matching '>'. Nested <>, (), [],
// {} and string literals are honoured; the '>' of '->' does not close.
func (l *lexer) BalancedBody(open int) (int, *Error) {
	var stack []byte
	stack = append(stack, '>')
	i := open
	for i < len(l.s) {
		c := l.s[i]
		switch c {
		case '"':
			j := i + 1
			for j < len(l.s) && l.s[j] != '"' {
				if l.s[j] == '\\' {
					j++
				}
				if j < len(l.s) && l.s[j] == '\n' {
					return 0, l.src.ErrorAt(i, "unterminated string in dialect body")
				}
				j++
			}
			if j >= len(l.s) {
				return 0, l.src.ErrorAt(i, "unterminated string in dialect body")
			}
			i = j
		case '<':
			stack = append(stack, '>')
		case '(':
			stack = append(stack, ')')
		case '[':
			stack = append(stack, ']')
		case '{':
			stack = append(stack, '}')
		case '>':
			if i > 0 && l.s[i-1] == '-' {
				break
			}
			fallthrough
		case ')', ']', '}':
			if stack[len(stack)-1] != c {
				return 0, l.src.ErrorAt(i, "unbalanced %q in dialect body (expected %q)", c, stack[len(stack)-1])
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i, nil
			}
		}
		i++
	}
	return 0, l.src.ErrorAt(open-1, "unterminated dialect body: missing '>'")
}

// unquote decodes an MLIR string literal (with quotes) into its bytes. MLIR
// escapes are \" \\ \n \t and \XX (two hex digits, any byte).
func unquote(lit string) (string, bool) {
	if len(lit) < 2 || lit[0] != '"' || lit[len(lit)-1] != '"' {
		return "", false
	}
	body := lit[1 : len(lit)-1]
	if !strings.Contains(body, `\`) {
		return body, true
	}
	b := make([]byte, 0, len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			b = append(b, c)
			continue
		}
		i++
		if i >= len(body) {
			return "", false
		}
		switch e := body[i]; e {
		case '"', '\\':
			b = append(b, e)
		case 'n':
			b = append(b, '\n')
		case 't':
			b = append(b, '\t')
		default:
			if i+1 >= len(body) {
				return "", false
			}
			v, err := strconv.ParseUint(body[i:i+2], 16, 8)
			if err != nil {
				return "", false
			}
			b = append(b, byte(v))
			i++
		}
	}
	return string(b), true
}
