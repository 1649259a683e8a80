// Package plist decodes property lists (XML, binary bplist00, and the
// openStep/GNUstep text form) into plain Go values, within limits on
// nesting depth, value count and the decoded tree's size that are checked
// while decoding, so no input can make it recurse, allocate or run without
// bound. It only reads; anefix writes no property list.
//
// A compiled package's manifest.plist is XML in every package seen
// (../shared/corpus/apple-compiled); binary and text lists are read because
// Apple's tools accept all three for the same file.
package plist

import (
	"bytes"
	"errors"
	"fmt"
	"time"
)

// The decoded values. A dictionary is a map[string]any (a key written twice
// is an error, so nothing is dropped silently), an array []any, and the
// scalars are:
//
//	string             <string>, bplist strings, openStep strings
//	int64, uint64      <integer> (uint64 only above MaxInt64), <*I…>
//	float64            <real>, <*R…>
//	bool               <true/>, <false/>, <*BY>, <*BN>
//	[]byte             <data>, openStep <hex>
//	time.Time          <date> (UTC), <*D…>
//	UID                bplist UID objects (keyed archives)
//	Set                bplist sets
//	nil                bplist null
type (
	uid uint64
	set []any
)

// Format is the form a property list was written in.
type Format int

const (
	XML Format = iota + 1
	Binary
	openStep // the text form; GNUstep's typed values (<*I1>) are read too
)

func (f Format) String() string {
	switch f {
	case XML:
		return "XML"
	case Binary:
		return "binary"
	case openStep:
		return "OpenStep"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// Limits bound a decode. A zero field takes the DefaultLimits value.
type Limits struct {
	// MaxDepth is the deepest nesting of arrays and dictionaries.
	MaxDepth int
	// MaxValues is the number of values in the decoded tree, each counted
	// every time it appears: a binary list can name one object from many
	// places, and each place gets its own copy.
	MaxValues int
	// MaxBytes bounds the decoded tree's estimated heap (Cost).
	MaxBytes int64
}

// DefaultLimits are far above the manifests seen (nesting 7, about 130
// values, 30 KB) and far below what hurts: at the limits a decode takes
// well under a second and a few hundred MB at most (TestLimitsCost).
var DefaultLimits = Limits{MaxDepth: 256, MaxValues: 1 << 20, MaxBytes: 256 << 20}

// errLimit is wrapped by every error that a limit, not a malformed input,
// caused.
var errLimit = errors.New("over the decoder's limit")

// Error is a malformed or over-limit property list. Pos is a byte offset
// (binary, XML) or "line L, column C" (text).
type Error struct {
	Format Format
	Pos    string
	Msg    string
	// Limit is the limit that stopped the decode ("depth", "values" or
	// "bytes"), "" for a malformed input.
	Limit string
}

func (e *Error) Error() string {
	if e.Pos == "" {
		return fmt.Sprintf("%s property list: %s", e.Format, e.Msg)
	}
	return fmt.Sprintf("%s property list, %s: %s", e.Format, e.Pos, e.Msg)
}

// Unwrap makes errors.Is(err, errLimit) true for limit errors.
func (e *Error) Unwrap() error {
	if e.Limit != "" {
		return errLimit
	}
	return nil
}

// The heap the decoded tree costs, as counted against MaxBytes: an
// interface slot per value plus what it points to. These are Go's sizes on
// 64-bit machines (string and slice headers 16 and 24 bytes, a map entry
// about a key, a value and a tophash byte, rounded up for the map's
// overhead); TestCostModel checks that decoding allocates within a small
// factor of the count.
const (
	costValue    = 16 // the interface holding any value
	costString   = 16 // a string header (the bytes counted on top)
	costSlice    = 24 // a slice header
	costMapBase  = 48 // a map header
	costMapEntry = 48 // one key (string header) and value (interface), with overhead
	costScalar   = 8  // a boxed int64/uint64/float64
	costTime     = 24 // a time.Time
)

// budget is a decode's running count against its limits.
type budget struct {
	lim    Limits
	values int
	bytes  int64
	depth  int
	hit    string // the limit passed, for Error.Limit
}

func newBudget(l Limits) *budget {
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultLimits.MaxDepth
	}
	if l.MaxValues <= 0 {
		l.MaxValues = DefaultLimits.MaxValues
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultLimits.MaxBytes
	}
	return &budget{lim: l}
}

// value counts one value costing n bytes; it returns the limit's message
// when a limit is passed.
func (b *budget) value(n int64) string {
	b.values++
	b.bytes += costValue + n
	switch {
	case b.values > b.lim.MaxValues:
		b.hit = "values"
		return fmt.Sprintf("more than %d values (counting every place a shared object appears); %v", b.lim.MaxValues, errLimit)
	case b.bytes > b.lim.MaxBytes:
		b.hit = "bytes"
		return fmt.Sprintf("the decoded values would take more than %d bytes; %v", b.lim.MaxBytes, errLimit)
	}
	return ""
}

// enter opens a container; leave closes it.
func (b *budget) enter() string {
	b.depth++
	if b.depth > b.lim.MaxDepth {
		b.hit = "depth"
		return fmt.Sprintf("arrays and dictionaries nested more than %d deep; %v", b.lim.MaxDepth, errLimit)
	}
	return ""
}

func (b *budget) leave() { b.depth-- }

// result is what Decode found besides the value.
type result struct {
	Format Format
	// Values and Bytes are the decoded tree's value count and estimated
	// heap, as counted against the limits.
	Values int
	Bytes  int64
}

// Decode reads one property list: binary when data starts with "bplist",
// XML when it starts (after an optional byte-order mark and white space)
// with "<?", "<!" or "<plist", else the text form.
func Decode(data []byte, lim Limits) (any, result, error) {
	b := newBudget(lim)
	var (
		v   any
		err error
		f   Format
	)
	switch {
	case bytes.HasPrefix(data, []byte("bplist")):
		f = Binary
		v, err = decodeBinary(data, b)
	case isXML(data):
		f = XML
		v, err = decodeXML(data, b)
	default:
		f = openStep
		v, err = decodeText(data, b)
	}
	if err != nil {
		return nil, result{Format: f}, err
	}
	return v, result{Format: f, Values: b.values, Bytes: b.bytes}, nil
}

func isXML(data []byte) bool {
	d := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	d = bytes.TrimLeft(d, " \t\r\n")
	return bytes.HasPrefix(d, []byte("<?")) || bytes.HasPrefix(d, []byte("<!")) || bytes.HasPrefix(d, []byte("<plist"))
}

// appleEpoch is the zero of binary and CF dates: 2001-01-01 00:00:00 UTC.
var appleEpoch = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)

// KindOf names a decoded value's kind for messages ("dictionary", "array",
// "string", "integer", …).
func KindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "dictionary"
	case []any:
		return "array"
	case set:
		return "set"
	case string:
		return "string"
	case int64, uint64:
		return "integer"
	case float64:
		return "real"
	case bool:
		return "boolean"
	case []byte:
		return "data"
	case time.Time:
		return "date"
	case uid:
		return "UID"
	}
	return fmt.Sprintf("%T", v)
}
