package plist

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// The XML form: <plist> holding one value; <dict> of <key>/value pairs,
// <array>, <string>, <integer> (decimal, or hex after 0x), <real>, <true/>,
// <false/>, <date> (ISO 8601 in UTC) and <data> (base64). encoding/xml
// does the tokenizing (it keeps open elements in a list, not on the call
// stack) and expands only XML's own entities; nesting is counted here.

type xmlDecoder struct {
	d *xml.Decoder
	b *budget
}

func (x *xmlDecoder) errAt(format string, args ...any) error {
	return &Error{Format: XML, Pos: fmt.Sprintf("byte %d", x.d.InputOffset()), Msg: fmt.Sprintf(format, args...)}
}

func (x *xmlDecoder) limitErr(msg string) error {
	return &Error{Format: XML, Pos: fmt.Sprintf("byte %d", x.d.InputOffset()), Msg: msg, Limit: x.b.hit}
}

func decodeXML(data []byte, b *budget) (any, error) {
	x := &xmlDecoder{d: xml.NewDecoder(bytes.NewReader(data)), b: b}
	// The root: <plist> around one value, or (as Apple's readers allow) a
	// bare value.
	start, err := x.nextStart(nil)
	if err != nil {
		return nil, err
	}
	if start == nil {
		return nil, x.errAt("no element: not a property list")
	}
	var v any
	if start.Name.Local == "plist" {
		inner, err := x.nextStart(&start.Name)
		if err != nil {
			return nil, err
		}
		if inner == nil {
			return nil, x.errAt("<plist> holds no value")
		}
		if v, err = x.value(*inner); err != nil {
			return nil, err
		}
		if after, err := x.nextStart(&start.Name); err != nil {
			return nil, err
		} else if after != nil {
			return nil, x.errAt("<plist> holds a second value, <%s>", after.Name.Local)
		}
	} else if v, err = x.value(*start); err != nil {
		return nil, err
	}
	// Nothing but white space, comments and processing instructions may
	// follow.
	if extra, err := x.nextStart(nil); err != nil {
		return nil, err
	} else if extra != nil {
		return nil, x.errAt("<%s> after the property list", extra.Name.Local)
	}
	return v, nil
}

// nextStart skips white space, comments, processing instructions and
// directives up to the next start element (returned) or the end of the
// element named end (nil; or the end of input when end is nil). Text other
// than white space is an error.
func (x *xmlDecoder) nextStart(end *xml.Name) (*xml.StartElement, error) {
	for {
		tok, err := x.d.Token()
		if err == io.EOF {
			if end != nil {
				return nil, x.errAt("the input ends inside <%s>", end.Local)
			}
			return nil, nil
		}
		if err != nil {
			return nil, x.syntaxErr(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			return &t, nil
		case xml.EndElement:
			// encoding/xml has matched it with its start element.
			return nil, nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return nil, x.errAt("text %q where an element belongs", truncate(string(t), 40))
			}
		}
	}
}

func (x *xmlDecoder) syntaxErr(err error) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return &Error{Format: XML, Pos: fmt.Sprintf("line %d", se.Line), Msg: se.Msg}
	}
	return x.errAt("%v", err)
}

// text reads an element's character data up to its end tag; a child
// element is an error.
func (x *xmlDecoder) text(name string) (string, error) {
	var sb strings.Builder
	for {
		tok, err := x.d.Token()
		if err != nil {
			if err == io.EOF {
				return "", x.errAt("the input ends inside <%s>", name)
			}
			return "", x.syntaxErr(err)
		}
		switch t := tok.(type) {
		case xml.CharData:
			sb.Write(t)
		case xml.EndElement:
			return sb.String(), nil
		case xml.StartElement:
			return "", x.errAt("<%s> inside <%s>, which holds only text", t.Name.Local, name)
		}
	}
}

func (x *xmlDecoder) value(start xml.StartElement) (any, error) {
	name := start.Name.Local
	switch name {
	case "dict":
		return x.dict()
	case "array":
		return x.array()
	case "true", "false":
		if _, err := x.text(name); err != nil {
			return nil, err
		}
		return x.scalar(name == "true", 0)
	}
	s, err := x.text(name)
	if err != nil {
		return nil, err
	}
	switch name {
	case "string":
		return x.scalar(s, costString+int64(len(s)))
	case "key":
		return nil, x.errAt("<key> outside a <dict>")
	case "integer":
		v, err := parseInteger(strings.TrimSpace(s))
		if err != nil {
			return nil, x.errAt("<integer>%s</integer>: %v", truncate(s, 40), err)
		}
		return x.scalar(v, costScalar)
	case "real":
		f, err := parseReal(strings.TrimSpace(s))
		if err != nil {
			return nil, x.errAt("<real>%s</real>: %v", truncate(s, 40), err)
		}
		return x.scalar(f, costScalar)
	case "date":
		t, err := time.ParseInLocation(time.RFC3339, strings.TrimSpace(s), time.UTC)
		if err != nil {
			return nil, x.errAt("<date>%s</date> is not an ISO 8601 date: %v", truncate(s, 40), err)
		}
		return x.scalar(t.UTC(), costTime)
	case "data":
		clean := strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s)
		b, err := base64.StdEncoding.DecodeString(clean)
		if err != nil {
			return nil, x.errAt("<data> is not base64: %v", err)
		}
		return x.scalar(b, costSlice+int64(len(b)))
	}
	return nil, x.errAt("<%s> is not a property list element", name)
}

func (x *xmlDecoder) scalar(v any, cost int64) (any, error) {
	if msg := x.b.value(cost); msg != "" {
		return nil, x.limitErr(msg)
	}
	return v, nil
}

func (x *xmlDecoder) array() (any, error) {
	if msg := x.b.enter(); msg != "" {
		return nil, x.limitErr(msg)
	}
	defer x.b.leave()
	if msg := x.b.value(costSlice); msg != "" {
		return nil, x.limitErr(msg)
	}
	out := []any{}
	name := xml.Name{Local: "array"}
	for {
		el, err := x.nextStart(&name)
		if err != nil {
			return nil, err
		}
		if el == nil {
			return out, nil
		}
		v, err := x.value(*el)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

func (x *xmlDecoder) dict() (any, error) {
	if msg := x.b.enter(); msg != "" {
		return nil, x.limitErr(msg)
	}
	defer x.b.leave()
	if msg := x.b.value(costMapBase); msg != "" {
		return nil, x.limitErr(msg)
	}
	out := map[string]any{}
	name := xml.Name{Local: "dict"}
	for {
		el, err := x.nextStart(&name)
		if err != nil {
			return nil, err
		}
		if el == nil {
			return out, nil
		}
		if el.Name.Local != "key" {
			return nil, x.errAt("<%s> in a <dict> where a <key> belongs", el.Name.Local)
		}
		k, err := x.text("key")
		if err != nil {
			return nil, err
		}
		if msg := x.b.value(costMapEntry + int64(len(k))); msg != "" {
			return nil, x.limitErr(msg)
		}
		if _, dup := out[k]; dup {
			return nil, x.errAt("dictionary key %q appears twice", truncate(k, 80))
		}
		vel, err := x.nextStart(&name)
		if err != nil {
			return nil, err
		}
		if vel == nil {
			return nil, x.errAt("key %q has no value", truncate(k, 80))
		}
		v, err := x.value(*vel)
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
}

// parseInteger reads a decimal integer, or a hex one after 0x, with an
// optional sign; int64 where it fits, uint64 above MaxInt64.
func parseInteger(s string) (any, error) {
	neg := strings.HasPrefix(s, "-")
	digits := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	base := 10
	if strings.HasPrefix(digits, "0x") || strings.HasPrefix(digits, "0X") {
		digits, base = digits[2:], 16
	}
	if digits == "" || strings.ContainsAny(digits, "+-_") {
		return nil, errors.New("not an integer")
	}
	u, err := strconv.ParseUint(digits, base, 64)
	if err != nil {
		return nil, errors.New("not an integer that fits 64 bits")
	}
	switch {
	case !neg && u <= math.MaxInt64:
		return int64(u), nil
	case !neg:
		return u, nil
	case u <= 1<<63:
		return int64(-u), nil // -(1<<63) is MinInt64
	}
	return nil, errors.New("a negative integer below the 64-bit range")
}

// parseReal reads a decimal real, or nan / inf / infinity with a sign.
func parseReal(s string) (float64, error) {
	switch strings.ToLower(strings.TrimPrefix(s, "+")) {
	case "nan":
		return math.NaN(), nil
	case "inf", "infinity":
		return math.Inf(1), nil
	case "-inf", "-infinity":
		return math.Inf(-1), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, errors.New("not a real number")
	}
	return f, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
