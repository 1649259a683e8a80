package plist

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// The text form (openStep, "old-style"): { key = value; … }, ( a, b, ),
// "quoted" or unquoted strings, <hex data>, // and /* */ comments, and a
// dictionary body without braces at the top ("strings file"). GNUstep adds
// typed values <*I12> <*R1.5> <*BY> <*BN> <*D2001-01-01 00:00:00 +0000>
// and base64 data <[…]>. The parser is recursive descent over a byte slice;
// recursion is bounded by the budget's depth, every other loop advances.

type textDecoder struct {
	s   []byte
	pos int
	b   *budget
}

func (t *textDecoder) where(pos int) string {
	pos = max(min(pos, len(t.s)), 0)
	line := 1 + bytes.Count(t.s[:pos], []byte{'\n'})
	col := pos - bytes.LastIndexByte(t.s[:pos], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

func (t *textDecoder) errAt(pos int, format string, args ...any) error {
	return &Error{Format: openStep, Pos: t.where(pos), Msg: fmt.Sprintf(format, args...)}
}

func (t *textDecoder) limitErr(msg string) error {
	return &Error{Format: openStep, Pos: t.where(t.pos), Msg: msg, Limit: t.b.hit}
}

func decodeText(data []byte, b *budget) (any, error) {
	s, err := textBytes(data)
	if err != nil {
		return nil, err
	}
	t := &textDecoder{s: s, b: b}
	if err := t.skip(); err != nil {
		return nil, err
	}
	if t.pos == len(t.s) {
		return nil, t.errAt(0, "empty: no value")
	}
	v, err := t.value()
	if err != nil {
		return nil, err
	}
	if err := t.skip(); err != nil {
		return nil, err
	}
	if t.pos == len(t.s) {
		return v, nil
	}
	if _, isString := v.(string); !isString {
		return nil, t.errAt(t.pos, "%q after the property list", t.peekText())
	}
	// A string followed by more: a strings file, a dictionary body without
	// braces. Start again with a fresh count.
	*t = textDecoder{s: s, b: newBudget(b.lim)}
	v, err = t.dict(false)
	if err != nil {
		return nil, err
	}
	*b = *t.b
	return v, nil
}

// textBytes returns the text as UTF-8: a UTF-8 byte-order mark is dropped,
// UTF-16 with a byte-order mark is converted; a NUL byte is refused.
func textBytes(data []byte) ([]byte, error) {
	var bo binary.ByteOrder
	switch {
	case bytes.HasPrefix(data, []byte("\xef\xbb\xbf")):
		data = data[3:]
	case bytes.HasPrefix(data, []byte("\xfe\xff")):
		bo = binary.BigEndian
	case bytes.HasPrefix(data, []byte("\xff\xfe")):
		bo = binary.LittleEndian
	}
	if bo != nil {
		data = data[2:]
		if len(data)%2 != 0 {
			return nil, &Error{Format: openStep, Msg: "UTF-16 text of an odd number of bytes"}
		}
		u := make([]uint16, len(data)/2)
		for i := range u {
			u[i] = bo.Uint16(data[2*i:])
		}
		data = []byte(string(utf16.Decode(u)))
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, &Error{Format: openStep, Pos: fmt.Sprintf("byte %d", i), Msg: "a NUL byte: not a text property list"}
	}
	return data, nil
}

func (t *textDecoder) peekText() string {
	end := min(t.pos+20, len(t.s))
	return string(t.s[t.pos:end])
}

// skip passes white space and comments.
func (t *textDecoder) skip() error {
	for t.pos < len(t.s) {
		switch c := t.s[t.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			t.pos++
		case c == '/' && t.pos+1 < len(t.s) && t.s[t.pos+1] == '/':
			i := bytes.IndexAny(t.s[t.pos:], "\n\r")
			if i < 0 {
				t.pos = len(t.s)
			} else {
				t.pos += i
			}
		case c == '/' && t.pos+1 < len(t.s) && t.s[t.pos+1] == '*':
			i := bytes.Index(t.s[t.pos+2:], []byte("*/"))
			if i < 0 {
				return t.errAt(t.pos, "a /* comment is not closed")
			}
			t.pos += 2 + i + 2
		default:
			return nil
		}
	}
	return nil
}

// unquoted reports the bytes an unquoted string may hold: ASCII letters,
// digits and the punctuation GNUstep and Apple write bare.
func unquoted(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&*+-./:?@^_|~", c) >= 0
}

func (t *textDecoder) value() (any, error) {
	if t.pos >= len(t.s) {
		return nil, t.errAt(t.pos, "the input ends where a value belongs")
	}
	switch c := t.s[t.pos]; {
	case c == '{':
		t.pos++
		return t.dict(true)
	case c == '(':
		t.pos++
		return t.array()
	case c == '"':
		s, err := t.quoted()
		if err != nil {
			return nil, err
		}
		return t.scalar(s, costString+int64(len(s)))
	case c == '<':
		return t.angle()
	case unquoted(c):
		start := t.pos
		for t.pos < len(t.s) && unquoted(t.s[t.pos]) {
			t.pos++
		}
		s := string(t.s[start:t.pos])
		return t.scalar(s, costString+int64(len(s)))
	default:
		r, _ := utf8.DecodeRune(t.s[t.pos:])
		return nil, t.errAt(t.pos, "%q cannot start a value (quote strings holding it)", r)
	}
}

func (t *textDecoder) scalar(v any, cost int64) (any, error) {
	if msg := t.b.value(cost); msg != "" {
		return nil, t.limitErr(msg)
	}
	return v, nil
}

// key reads a dictionary key: a quoted or unquoted string.
func (t *textDecoder) key() (string, error) {
	if t.pos < len(t.s) && t.s[t.pos] == '"' {
		return t.quoted()
	}
	start := t.pos
	for t.pos < len(t.s) && unquoted(t.s[t.pos]) {
		t.pos++
	}
	if t.pos == start {
		if t.pos == len(t.s) {
			return "", t.errAt(t.pos, "the input ends where a key belongs")
		}
		return "", t.errAt(t.pos, "%q where a key belongs", t.peekText())
	}
	return string(t.s[start:t.pos]), nil
}

// dict reads entries up to '}' (braced) or the end of input (a strings
// file). "key;" alone gives the key as its own value, as Apple's reader
// does for strings files.
func (t *textDecoder) dict(braced bool) (any, error) {
	open := t.pos - 1
	if msg := t.b.enter(); msg != "" {
		return nil, t.limitErr(msg)
	}
	defer t.b.leave()
	if msg := t.b.value(costMapBase); msg != "" {
		return nil, t.limitErr(msg)
	}
	out := map[string]any{}
	for {
		if err := t.skip(); err != nil {
			return nil, err
		}
		if t.pos == len(t.s) {
			if braced {
				return nil, t.errAt(open, "the dictionary opened here is not closed")
			}
			return out, nil
		}
		if braced && t.s[t.pos] == '}' {
			t.pos++
			return out, nil
		}
		kpos := t.pos
		k, err := t.key()
		if err != nil {
			return nil, err
		}
		if msg := t.b.value(costMapEntry + int64(len(k))); msg != "" {
			return nil, t.limitErr(msg)
		}
		if _, dup := out[k]; dup {
			return nil, t.errAt(kpos, "dictionary key %q appears twice", truncate(k, 80))
		}
		if err := t.skip(); err != nil {
			return nil, err
		}
		if t.pos < len(t.s) && t.s[t.pos] == ';' {
			t.pos++
			v, err := t.scalar(k, costString+int64(len(k)))
			if err != nil {
				return nil, err
			}
			out[k] = v
			continue
		}
		if t.pos >= len(t.s) || t.s[t.pos] != '=' {
			return nil, t.errAt(t.pos, "no '=' after key %q", truncate(k, 80))
		}
		t.pos++
		if err := t.skip(); err != nil {
			return nil, err
		}
		v, err := t.value()
		if err != nil {
			return nil, err
		}
		if err := t.skip(); err != nil {
			return nil, err
		}
		if t.pos >= len(t.s) || t.s[t.pos] != ';' {
			return nil, t.errAt(t.pos, "no ';' after the value of key %q", truncate(k, 80))
		}
		t.pos++
		out[k] = v
	}
}

// array reads values separated by commas up to ')'; a trailing comma is
// allowed.
func (t *textDecoder) array() (any, error) {
	open := t.pos - 1
	if msg := t.b.enter(); msg != "" {
		return nil, t.limitErr(msg)
	}
	defer t.b.leave()
	if msg := t.b.value(costSlice); msg != "" {
		return nil, t.limitErr(msg)
	}
	out := []any{}
	for {
		if err := t.skip(); err != nil {
			return nil, err
		}
		if t.pos == len(t.s) {
			return nil, t.errAt(open, "the array opened here is not closed")
		}
		if t.s[t.pos] == ')' {
			t.pos++
			return out, nil
		}
		v, err := t.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if err := t.skip(); err != nil {
			return nil, err
		}
		if t.pos < len(t.s) && t.s[t.pos] == ',' {
			t.pos++
			continue
		}
		if t.pos < len(t.s) && t.s[t.pos] == ')' {
			continue
		}
		if t.pos == len(t.s) {
			return nil, t.errAt(open, "the array opened here is not closed")
		}
		return nil, t.errAt(t.pos, "%q where ',' or ')' belongs in an array", t.peekText())
	}
}

// quoted reads a "…" string with its escapes: \a \b \f \n \r \t \v, \\ \"
// and any other character standing for itself, \NNN octal, \Uhhhh (and
// \uhhhh) UTF-16 code units, surrogate pairs joined. GUESS: Apple's reader
// maps octal escapes above 0x7f through the NeXTSTEP character set; here
// they are the code point of that value, as GNUstep reads them.
func (t *textDecoder) quoted() (string, error) {
	open := t.pos
	t.pos++
	var sb strings.Builder
	var pendingHigh rune = -1
	flush := func() {
		if pendingHigh >= 0 {
			sb.WriteRune(utf8.RuneError)
			pendingHigh = -1
		}
	}
	for {
		i := bytes.IndexAny(t.s[t.pos:], `"\`)
		if i < 0 {
			return "", t.errAt(open, "the string opened here is not closed")
		}
		if i > 0 {
			flush()
			sb.Write(t.s[t.pos : t.pos+i])
		}
		t.pos += i
		if t.s[t.pos] == '"' {
			t.pos++
			flush()
			return sb.String(), nil
		}
		t.pos++ // the backslash
		if t.pos >= len(t.s) {
			return "", t.errAt(open, "the string opened here is not closed")
		}
		c := t.s[t.pos]
		t.pos++
		var r rune
		switch c {
		case 'a':
			r = '\a'
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'v':
			r = '\v'
		case '0', '1', '2', '3', '4', '5', '6', '7':
			r = rune(c - '0')
			for n := 1; n < 3 && t.pos < len(t.s) && t.s[t.pos] >= '0' && t.s[t.pos] <= '7'; n++ {
				r = r<<3 | rune(t.s[t.pos]-'0')
				t.pos++
			}
		case 'U', 'u':
			n := 0
			for ; n < 4 && t.pos < len(t.s) && isHex(t.s[t.pos]); n++ {
				r = r<<4 | rune(hexVal(t.s[t.pos]))
				t.pos++
			}
			if n == 0 {
				return "", t.errAt(t.pos-2, `\%c without hex digits`, c)
			}
			switch {
			case utf16.IsSurrogate(r) && r < 0xdc00:
				flush()
				pendingHigh = r
				continue
			case utf16.IsSurrogate(r) && pendingHigh >= 0:
				sb.WriteRune(utf16.DecodeRune(pendingHigh, r))
				pendingHigh = -1
				continue
			case utf16.IsSurrogate(r):
				r = utf8.RuneError
			}
		default:
			// Any other character stands for itself (\\, \", \', …); a
			// multi-byte one is copied whole.
			_, size := utf8.DecodeRune(t.s[t.pos-1:])
			flush()
			sb.Write(t.s[t.pos-1 : t.pos-1+size])
			t.pos += size - 1
			continue
		}
		flush()
		sb.WriteRune(r)
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// angle reads <hex data>, GNUstep's <*Tvalue> and <[base64]>.
func (t *textDecoder) angle() (any, error) {
	open := t.pos
	t.pos++
	end := bytes.IndexByte(t.s[t.pos:], '>')
	if end < 0 {
		return nil, t.errAt(open, "the '<' here is not closed by '>'")
	}
	body := t.s[t.pos : t.pos+end]
	t.pos += end + 1
	switch {
	case len(body) > 0 && body[0] == '*':
		return t.typed(open, body[1:])
	case len(body) > 0 && body[0] == '[':
		if len(body) < 2 || body[len(body)-1] != ']' {
			return nil, t.errAt(open, "GNUstep base64 data <[…]> is not closed by ']>'")
		}
		clean := bytes.Map(func(r rune) rune {
			if r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '+' || r == '/' || r == '=' {
				return r
			}
			return -1
		}, body[1:len(body)-1])
		d, err := base64.StdEncoding.DecodeString(string(clean))
		if err != nil {
			return nil, t.errAt(open, "GNUstep base64 data: %v", err)
		}
		return t.scalar(d, costSlice+int64(len(d)))
	}
	out := make([]byte, 0, len(body)/2)
	half, odd := byte(0), false
	for i, c := range body {
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case !isHex(c):
			return nil, t.errAt(open+1+i, "%q in <hex data>", rune(c))
		case odd:
			out = append(out, half<<4|hexVal(c))
			odd = false
		default:
			half, odd = hexVal(c), true
		}
	}
	if odd {
		return nil, t.errAt(open, "<hex data> of an odd number of digits")
	}
	return t.scalar(out, costSlice+int64(len(out)))
}

// gnustepDate is the layout of <*D…> values.
const gnustepDate = "2006-01-02 15:04:05 -0700"

func (t *textDecoder) typed(open int, body []byte) (any, error) {
	if len(body) == 0 {
		return nil, t.errAt(open, "an empty GNUstep typed value <*>")
	}
	typ, v := body[0], string(body[1:])
	// GNUstep writes some values quoted: <*I"5">, and tolerates <*I5">.
	v = strings.TrimSuffix(strings.TrimPrefix(v, `"`), `"`)
	switch typ {
	case 'I':
		n, err := parseInteger(v)
		if err != nil {
			return nil, t.errAt(open, "<*I%s>: %v", truncate(v, 40), err)
		}
		return t.scalar(n, costScalar)
	case 'R':
		f, err := parseReal(v)
		if err != nil {
			return nil, t.errAt(open, "<*R%s>: %v", truncate(v, 40), err)
		}
		return t.scalar(f, costScalar)
	case 'B':
		switch v {
		case "Y":
			return t.scalar(true, 0)
		case "N":
			return t.scalar(false, 0)
		}
		return nil, t.errAt(open, "<*B%s>: want <*BY> or <*BN>", truncate(v, 40))
	case 'D':
		d, err := time.Parse(gnustepDate, v)
		if err != nil {
			return nil, t.errAt(open, "<*D%s> is not a date of the form %s", truncate(v, 40), gnustepDate)
		}
		return t.scalar(d.UTC(), costTime)
	}
	return nil, t.errAt(open, "GNUstep typed value <*%c…> of an unknown type (I, R, B and D are read)", typ)
}
