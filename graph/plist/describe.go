package plist

import (
	"encoding/hex"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Describe renders a value in one line, JSON-like, dictionary keys sorted,
// strings quoted with Go escapes (so a newline in a value cannot start a
// line of its own), cut to at most max bytes with "…" (the walk stops
// there, so describing a large tree costs no more than max).
func Describe(v any, max int) string {
	d := &describer{max: max}
	d.value(v)
	if d.cut {
		return d.b.String() + "…"
	}
	return d.b.String()
}

type describer struct {
	b   strings.Builder
	max int
	cut bool
}

func (d *describer) write(s string) bool {
	if d.cut {
		return false
	}
	if d.b.Len()+len(s) > d.max {
		n := max(d.max-d.b.Len(), 0)
		// Cut on a rune boundary.
		for n > 0 && n < len(s) && s[n]&0xc0 == 0x80 {
			n--
		}
		d.b.WriteString(s[:n])
		d.cut = true
		return false
	}
	d.b.WriteString(s)
	return true
}

func (d *describer) value(v any) {
	switch x := v.(type) {
	case nil:
		d.write("null")
	case string:
		d.write(strconv.Quote(x))
	case int64:
		d.write(strconv.FormatInt(x, 10))
	case uint64:
		d.write(strconv.FormatUint(x, 10))
	case float64:
		d.write(strconv.FormatFloat(x, 'g', -1, 64))
	case bool:
		d.write(strconv.FormatBool(x))
	case []byte:
		if len(x) > d.max {
			x = x[:d.max]
		}
		d.write("<" + hex.EncodeToString(x) + ">")
	case time.Time:
		d.write(x.UTC().Format(time.RFC3339))
	case uid:
		d.write("UID(" + strconv.FormatUint(uint64(x), 10) + ")")
	case []any:
		d.list("[", "]", x)
	case set:
		d.list("set[", "]", x)
	case map[string]any:
		if !d.write("{") {
			return
		}
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 && !d.write(", ") {
				return
			}
			if !d.write(strconv.Quote(k) + ": ") {
				return
			}
			d.value(x[k])
			if d.cut {
				return
			}
		}
		d.write("}")
	default:
		d.write(KindOf(v))
	}
}

func (d *describer) list(open, close string, xs []any) {
	if !d.write(open) {
		return
	}
	for i, e := range xs {
		if i > 0 && !d.write(", ") {
			return
		}
		d.value(e)
		if d.cut {
			return
		}
	}
	d.write(close)
}
