package plist

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/anefix/anefix/graph/oracle"
	hplist "howett.net/plist"
)

// howett.net/plist is used here only as an encoder of test inputs and as a
// second reader of the real manifests; anefix itself decodes with this
// package.

// canon maps a decoded value (this package's or howett.net/plist's) to a
// form reflect.DeepEqual compares meaningfully: integers as int64 where
// they fit, data and dates and UIDs as tagged strings.
func canon(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = canon(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = canon(e)
		}
		return out
	case uint64:
		if x <= math.MaxInt64 {
			return int64(x)
		}
		return x
	case []byte:
		return "data:" + hex.EncodeToString(x)
	case time.Time:
		return "date:" + x.UTC().Format(time.RFC3339Nano)
	case uid:
		return fmt.Sprintf("uid:%d", uint64(x))
	case hplist.UID:
		return fmt.Sprintf("uid:%d", uint64(x))
	case float64:
		if math.IsNaN(x) {
			return "NaN"
		}
	}
	return v
}

func corpusManifests(t *testing.T) map[string][]byte {
	t.Helper()
	return readManifests(t, oracle.CorpusGlob(t, manifestGlob))
}

// corpusManifestsF is corpusManifests for fuzz seeds: nothing without the
// corpus (failing only under ANEFIX_REQUIRE_ORACLES or CI).
func corpusManifestsF(t testing.TB) map[string][]byte {
	t.Helper()
	return readManifests(t, oracle.CorpusSeedGlob(t, manifestGlob))
}

// manifestGlob finds the manifests of the corpus's compiled packages.
const manifestGlob = "apple-compiled/*.aimodelc/main-*-delegates/MPSGraph/*.mpsgraphpackage/manifest.plist"

func readManifests(t testing.TB, ds []string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, p := range ds {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[p] = b
	}
	return out
}

// The real manifests read the same here as with howett.net/plist, in
// their own XML form and re-encoded in the binary and text forms.
func TestCorpusManifests(t *testing.T) {
	ms := corpusManifests(t)
	for p, b := range ms {
		var want any
		if _, err := hplist.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		for _, form := range []int{-1, hplist.BinaryFormat, hplist.GNUStepFormat, hplist.XMLFormat} {
			in := b
			if form >= 0 {
				var err error
				if in, err = hplist.Marshal(want, form); err != nil {
					t.Fatal(err)
				}
			}
			got, res, err := Decode(in, Limits{})
			if err != nil {
				t.Fatalf("%s (form %d): %v", p, form, err)
			}
			if !reflect.DeepEqual(canon(got), canon(want)) {
				t.Errorf("%s (form %d) reads differently:\n%s\nwant\n%s", p, form, Describe(got, 2000), Describe(want, 2000))
			}
			if res.Values < 50 || res.Values > 5000 {
				t.Errorf("%s: %d values", p, res.Values)
			}
		}
	}
}

// gen makes a random property list value of at most depth levels, with
// the kinds a form can hold.
type gen struct {
	r          *rand.Rand
	stringOnly bool // openStep: strings, data, arrays and dictionaries
}

func (g *gen) str() string {
	pieces := []string{"", "a", "mps.stateInputIndices", "Entry Function Attributes", "x y", "\"q\"", "back\\slash", "new\nline", "tab\t", "é", "日本", "🙂", "semi;colon", "=", "()", "{}", "<>", "//", "/*", "0x1F", "-3"}
	var sb strings.Builder
	for range g.r.IntN(4) {
		sb.WriteString(pieces[g.r.IntN(len(pieces))])
	}
	return sb.String()
}

func (g *gen) value(depth int) any {
	kinds := 9
	if g.stringOnly {
		kinds = 4
	}
	k := g.r.IntN(kinds)
	if depth == 0 && k < 2 {
		k = 2
	}
	switch k {
	case 0:
		n := g.r.IntN(5)
		a := make([]any, n)
		for i := range a {
			a[i] = g.value(depth - 1)
		}
		return a
	case 1:
		n := g.r.IntN(5)
		m := map[string]any{}
		for range n {
			m[g.str()] = g.value(depth - 1)
		}
		return m
	case 2:
		return g.str()
	case 3:
		b := make([]byte, g.r.IntN(40))
		for i := range b {
			b[i] = byte(g.r.UintN(256))
		}
		return b
	case 4:
		switch g.r.IntN(4) {
		case 0:
			return int64(g.r.IntN(300)) - 150
		case 1:
			return g.r.Int64()
		case 2:
			return -g.r.Int64()
		}
		return uint64(math.MaxInt64) + g.r.Uint64N(1<<62)
	case 5:
		return []float64{0, 1.5, -2.25, 1e300, 5e-324, math.Inf(1), math.Inf(-1), 3.141592653589793}[g.r.IntN(8)]
	case 6:
		return g.r.IntN(2) == 0
	case 7:
		return time.Unix(978307200+g.r.Int64N(2e9)-1e9, 0).UTC()
	}
	return map[string]any{}
}

// Generated values encoded by howett.net/plist in every form read back
// equal to what was encoded.
func TestGeneratedRoundTrip(t *testing.T) {
	forms := []struct {
		name       string
		form       int
		stringOnly bool
	}{{"xml", hplist.XMLFormat, false}, {"binary", hplist.BinaryFormat, false}, {"gnustep", hplist.GNUStepFormat, false}, {"openstep", hplist.OpenStepFormat, true}}
	for _, f := range forms {
		t.Run(f.name, func(t *testing.T) {
			g := &gen{r: rand.New(rand.NewPCG(1, uint64(f.form))), stringOnly: f.stringOnly}
			const n = 3000
			skipped := 0
			for i := range n {
				v := g.value(4)
				b, ok := howettRoundTrips(v, f.form)
				if !ok {
					skipped++
					continue
				}
				got, res, err := Decode(b, Limits{})
				if err != nil {
					t.Fatalf("case %d: %v\n%s", i, err, b)
				}
				if !reflect.DeepEqual(canon(got), canon(v)) {
					t.Fatalf("case %d reads differently:\n got %s\nwant %s\ninput %q", i, Describe(got, 500), Describe(v, 500), b)
				}
				if res.Values < 1 {
					t.Fatalf("case %d: %d values", i, res.Values)
				}
			}
			t.Logf("%d of %d cases skipped: howett.net/plist does not read its own encoding of them back", skipped, n)
			if skipped > n/3 {
				t.Errorf("%d of %d cases skipped", skipped, n)
			}
		})
	}
}

// howettRoundTrips encodes v with howett.net/plist and reports whether that
// library reads it back equal: its text encoder writes some strings
// unquoted that its own reader (and Apple's) takes for comments, and
// panics on others, so only what it round-trips is a fair test input.
func howettRoundTrips(v any, form int) (b []byte, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	b, err := hplist.Marshal(v, form)
	if err != nil {
		return nil, false
	}
	var back any
	if _, err := hplist.Unmarshal(b, &back); err != nil {
		return nil, false
	}
	return b, reflect.DeepEqual(canon(back), canon(v))
}

// Hand-written inputs of each form and what they decode to.
func TestForms(t *testing.T) {
	date := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	cases := []struct {
		name string
		in   string
		want any
	}{
		{"xml every type", `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0"><dict>
  <key>s</key><string>a &amp; b</string><key>i</key><integer>-42</integer><key>h</key><integer>0x10</integer>
  <key>u</key><integer>18446744073709551615</integer><key>r</key><real>1.5</real><key>t</key><true/><key>f</key><false/>
  <key>d</key><date>2024-05-06T07:08:09Z</date><key>b</key><data>
  AAEC
  </data><key>a</key><array><string>x</string><dict/></array><key>e</key><string/>
</dict></plist>`, map[string]any{"s": "a & b", "i": int64(-42), "h": int64(16), "u": uint64(math.MaxUint64), "r": 1.5, "t": true, "f": false,
			"d": date, "b": []byte{0, 1, 2}, "a": []any{"x", map[string]any{}}, "e": ""}},
		{"xml bare value", `<plist><array/></plist>`, []any{}},
		{"openstep", `// comment
{ key = value; "quoted key" = "a\nb\"c\\d\101\U00e9"; list = ( 1, "two", <0a0B>, ); nested = { a = (); }; /* block */ }`,
			map[string]any{"key": "value", "quoted key": "a\nb\"c\\dAé", "list": []any{"1", "two", []byte{0x0a, 0x0b}}, "nested": map[string]any{"a": []any{}}}},
		{"gnustep typed", `{ i = <*I-7>; r = <*R2.5>; y = <*BY>; n = <*BN>; d = <*D2024-05-06 07:08:09 +0000>; b = <[AAEC]>; }`,
			map[string]any{"i": int64(-7), "r": 2.5, "y": true, "n": false, "d": date, "b": []byte{0, 1, 2}}},
		{"strings file", "a = b;\n\"c\" = \"d\";\nkeyonly;\n", map[string]any{"a": "b", "c": "d", "keyonly": "keyonly"}},
		{"surrogate pair", `"\UD83D\UDE42"`, "🙂"},
		{"utf-8 bom", "\xef\xbb\xbf(a)", []any{"a"}},
		{"utf-16 bom", "\xfe\xff\x00(\x00a\x00)", []any{"a"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := Decode([]byte(c.in), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(canon(got), canon(c.want)) {
				t.Errorf("got %s\nwant %s", Describe(got, 500), Describe(c.want, 500))
			}
		})
	}
}

// bp builds a binary property list from objects (each the bytes of one
// object, references as refSize-byte indices) for hostile-input tests.
type bp struct {
	objs       [][]byte
	refSize    int
	offsetSize int
	top        uint64
	// Overrides of the trailer, to break it.
	numObjects *uint64
	tableOff   *uint64
}

func (p bp) bytes() []byte {
	out := []byte("bplist00")
	var offs []uint64
	for _, o := range p.objs {
		offs = append(offs, uint64(len(out)))
		out = append(out, o...)
	}
	table := uint64(len(out))
	for _, off := range offs {
		for i := p.offsetSize - 1; i >= 0; i-- {
			out = append(out, byte(off>>(8*i)))
		}
	}
	tr := make([]byte, 32)
	tr[6], tr[7] = byte(p.offsetSize), byte(p.refSize)
	n := uint64(len(p.objs))
	if p.numObjects != nil {
		n = *p.numObjects
	}
	if p.tableOff != nil {
		table = *p.tableOff
	}
	binary.BigEndian.PutUint64(tr[8:], n)
	binary.BigEndian.PutUint64(tr[16:], p.top)
	binary.BigEndian.PutUint64(tr[24:], table)
	return append(out, tr...)
}

func ref(i, size int) []byte {
	b := make([]byte, size)
	for k := size - 1; k >= 0; k-- {
		b[k] = byte(i)
		i >>= 8
	}
	return b
}

// container is a marker byte with its count (0xF and an integer object
// above 14).
func container(kind byte, n uint64) []byte {
	if n < 15 {
		return []byte{kind<<4 | byte(n)}
	}
	b := []byte{kind<<4 | 0xF, 0x13}
	return binary.BigEndian.AppendUint64(b, n)
}

// doublingDAG is the 383-byte shape: object i is an array holding
// object i+1 twice, so the tree doubles per level (2^levels leaves).
func doublingDAG(levels int) []byte {
	p := bp{refSize: 1, offsetSize: 2}
	for i := range levels {
		p.objs = append(p.objs, append([]byte{0xA2}, byte(i+1), byte(i+1)))
	}
	p.objs = append(p.objs, []byte{0x10, 0x01}) // the leaf: integer 1
	return p.bytes()
}

// chainBinary is a chain of one-element arrays, levels deep.
func chainBinary(levels int) []byte {
	p := bp{refSize: 4, offsetSize: 4}
	for i := range levels {
		p.objs = append(p.objs, append([]byte{0xA1}, ref(i+1, 4)...))
	}
	p.objs = append(p.objs, []byte{0x50}) // ""
	return p.bytes()
}

// hostile are the crafted shapes and their relatives; each must be
// refused (or read) quickly and in bounded memory.
func hostile() []struct {
	name  string
	in    []byte
	limit bool // refused for a limit (errLimit), not as malformed
} {
	return hostileScaled(1)
}

// hostileScaled is hostile with the long shapes cut by div (the fuzz
// target's seeds: a fuzzer spends its time on each seed's length).
func hostileScaled(div int) []struct {
	name  string
	in    []byte
	limit bool
} {
	huge := uint64(1) << 62
	tooMany := uint64(1) << 40
	tableBeyond := uint64(1) << 50
	return []struct {
		name  string
		in    []byte
		limit bool
	}{
		{"4 MB of ( (OpenStep)", bytes.Repeat([]byte("("), 4<<20/div), true},
		{"4 MB of { a = (OpenStep)", bytes.Repeat([]byte("{a="), 4<<20/3/div), true},
		{"deep <array> (XML)", []byte("<plist>" + strings.Repeat("<array>", 1<<20/div) + strings.Repeat("</array>", 1<<20/div) + "</plist>"), true},
		{"deep <dict> (XML)", []byte("<plist>" + strings.Repeat("<dict><key>k</key>", 100000/div) + "<true/>" + strings.Repeat("</dict>", 100000/div) + "</plist>"), true},
		{"doubling DAG, 60 levels (binary)", doublingDAG(60), true},
		{"doubling DAG, 120 levels (binary)", doublingDAG(120), true},
		{"chain of one-element arrays, 2M levels (binary)", chainBinary(2 << 20 / div), true},
		{"chain of one-element arrays, 2M levels (OpenStep)", []byte(strings.Repeat("(", 2<<20/div) + strings.Repeat(")", 2<<20/div)), true},
		{"array of 2^62 elements (binary)", bp{refSize: 1, offsetSize: 1, objs: [][]byte{container(0xA, huge)}}.bytes(), false},
		{"dictionary of 2^62 entries (binary)", bp{refSize: 1, offsetSize: 1, objs: [][]byte{container(0xD, huge)}}.bytes(), false},
		{"dictionary of 2^63+1 entries (binary)", bp{refSize: 1, offsetSize: 1, objs: [][]byte{container(0xD, 1<<63+1)}}.bytes(), false},
		{"string of 2^62 bytes (binary)", bp{refSize: 1, offsetSize: 1, objs: [][]byte{container(0x5, huge)}}.bytes(), false},
		{"UTF-16 string of 2^63 units (binary)", bp{refSize: 1, offsetSize: 1, objs: [][]byte{container(0x6, 1<<63)}}.bytes(), false},
		{"data of 2^62 bytes (binary)", bp{refSize: 1, offsetSize: 1, objs: [][]byte{container(0x4, huge)}}.bytes(), false},
		{"2^40 objects in a 1-object table (binary)", bp{refSize: 1, offsetSize: 1, objs: [][]byte{{0x09}}, numObjects: &tooMany}.bytes(), false},
		{"offset table past the end (binary)", bp{refSize: 1, offsetSize: 1, objs: [][]byte{{0x09}}, tableOff: &tableBeyond}.bytes(), false},
		{"offset table cut short (binary)", func() []byte {
			b := chainBinary(100)
			n := uint64(101)
			binary.BigEndian.PutUint64(b[len(b)-32+24:], binary.BigEndian.Uint64(b[len(b)-32+24:])+uint64(4*n)-8)
			return b
		}(), false},
		{"offset beyond the object area (binary)", bp{refSize: 1, offsetSize: 8, objs: [][]byte{{0x09}}}.bytesWith(func(b []byte) {
			binary.BigEndian.PutUint64(b[9:], 1<<40)
		}), false},
		{"reference past the objects (binary)", bp{refSize: 1, offsetSize: 1, objs: [][]byte{{0xA1, 0x07}}}.bytes(), false},
		{"an array holding itself (binary)", bp{refSize: 1, offsetSize: 1, objs: [][]byte{{0xA1, 0x00}}}.bytes(), false},
		{"two arrays holding each other (binary)", bp{refSize: 1, offsetSize: 1, objs: [][]byte{{0xA1, 0x01}, {0xA1, 0x00}}}.bytes(), false},
		{"a 2^60-byte integer count marker (binary)", bp{refSize: 1, offsetSize: 1, objs: [][]byte{{0xAF, 0x1F}}}.bytes(), false},
		{"truncated trailer (binary)", []byte("bplist00\x09\x08"), false},
	}
}

func (p bp) bytesWith(edit func([]byte)) []byte {
	b := p.bytes()
	edit(b)
	return b
}

// decodeWithin runs Decode under a deadline: a hang is a failure, not a
// stuck test.
func decodeWithin(t *testing.T, in []byte, lim Limits, d time.Duration) (any, result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	type out struct {
		v   any
		r   result
		err error
	}
	done := make(chan out, 1)
	go func() {
		v, r, err := Decode(in, lim)
		done <- out{v, r, err}
	}()
	select {
	case o := <-done:
		return o.v, o.r, o.err
	case <-ctx.Done():
		t.Fatalf("Decode did not return within %v", d)
	}
	return nil, result{}, nil
}

// The shapes (4 MB of "(": a stack overflow, 1.75 GB; the 383-byte
// doubling DAG: 3.9 GB in 8 s; 2M one-element arrays: over 30 s) are
// refused with a message naming the limit, allocating at most a small
// multiple of the input (or of MaxBytes, for the DAG).
func TestHostile(t *testing.T) {
	for _, c := range hostile() {
		t.Run(c.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			v, _, err := decodeWithin(t, c.in, Limits{}, 60*time.Second)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes in: %v; allocated %d bytes", len(c.in), err, alloc)
			if err == nil {
				t.Fatalf("accepted: %s", Describe(v, 200))
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Errorf("error %T, want *Error", err)
			}
			if errors.Is(err, errLimit) != c.limit {
				t.Errorf("limit error %v, want %v: %v", errors.Is(err, errLimit), c.limit, err)
			}
			if bound := 8*uint64(len(c.in)) + 64<<20; alloc > bound {
				t.Errorf("allocated %d bytes for %d bytes of input; the bound is %d", alloc, len(c.in), bound)
			}
		})
	}
}

// Each limit stops a decode on its own, and exactly at its value.
func TestLimits(t *testing.T) {
	nest := func(n int) []byte { return []byte(strings.Repeat("(", n) + strings.Repeat(")", n)) }
	if _, _, err := Decode(nest(10), Limits{MaxDepth: 10}); err != nil {
		t.Errorf("depth 10 under MaxDepth 10: %v", err)
	}
	if _, _, err := Decode(nest(11), Limits{MaxDepth: 10}); !errors.Is(err, errLimit) || !strings.Contains(err.Error(), "nested more than 10 deep") {
		t.Errorf("depth 11 under MaxDepth 10: %v", err)
	}
	list := []byte("(" + strings.Repeat("a,", 99) + "a)") // 101 values: the array and 100 strings
	if _, r, err := Decode(list, Limits{MaxValues: 101}); err != nil || r.Values != 101 {
		t.Errorf("101 values under MaxValues 101: %v, %d", err, r.Values)
	}
	if _, _, err := Decode(list, Limits{MaxValues: 100}); !errors.Is(err, errLimit) || !strings.Contains(err.Error(), "more than 100 values") {
		t.Errorf("101 values under MaxValues 100: %v", err)
	}
	_, r, err := Decode(list, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Decode(list, Limits{MaxBytes: r.Bytes}); err != nil {
		t.Errorf("%d bytes under MaxBytes %d: %v", r.Bytes, r.Bytes, err)
	}
	if _, _, err := Decode(list, Limits{MaxBytes: r.Bytes - 1}); !errors.Is(err, errLimit) || !strings.Contains(err.Error(), "more than") {
		t.Errorf("%d bytes under MaxBytes %d: %v", r.Bytes, r.Bytes-1, err)
	}
	// A shared object counts once per place: the DAG of 10 levels has
	// 2^11-1 values.
	if _, r, err := Decode(doublingDAG(10), Limits{}); err != nil || r.Values != 1<<11-1 {
		t.Errorf("DAG of 10 levels: %v, %d values", err, r.Values)
	}
}

// The cost model: decoding allocates within a small multiple of the
// estimated size Result.Bytes plus the input, for each form, on a large
// generated list.
func TestCostModel(t *testing.T) {
	g := &gen{r: rand.New(rand.NewPCG(7, 7))}
	big := map[string]any{}
	for len(big) < 20000 {
		if v := g.value(3); func() bool { _, ok := howettRoundTrips(v, hplist.GNUStepFormat); return ok }() {
			big[fmt.Sprintf("k%d", len(big))] = v
		}
	}
	for _, form := range []int{hplist.XMLFormat, hplist.BinaryFormat, hplist.GNUStepFormat} {
		in, err := hplist.Marshal(big, form)
		if err != nil {
			t.Fatal(err)
		}
		var before, after, kept runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		v, r, err := Decode(in, Limits{})
		runtime.ReadMemStats(&after)
		runtime.GC()
		runtime.ReadMemStats(&kept)
		runtime.KeepAlive(v)
		if err != nil {
			t.Fatal(err)
		}
		alloc := int64(after.TotalAlloc - before.TotalAlloc)
		retained := int64(kept.HeapAlloc) - int64(before.HeapAlloc)
		t.Logf("form %d: %d bytes in, %d values, estimate %d; retained %d (%.2f× the estimate), allocated %d (%.2f× the estimate, %.1f× the input)",
			form, len(in), r.Values, r.Bytes, retained, float64(retained)/float64(r.Bytes), alloc, float64(alloc)/float64(r.Bytes), float64(alloc)/float64(len(in)))
		// What stays is the tree the estimate counts; what is collected on
		// the way is in proportion to the input (XML's tokenizer allocates
		// per token).
		if retained > 2*r.Bytes {
			t.Errorf("form %d: retained %d bytes, more than 2× the estimate %d", form, retained, r.Bytes)
		}
		if alloc > 2*r.Bytes+24*int64(len(in)) {
			t.Errorf("form %d: allocated %d bytes, more than 2× the estimate %d plus 24× the input %d", form, alloc, r.Bytes, len(in))
		}
	}
}

func TestErrorsNamePositions(t *testing.T) {
	cases := []struct{ in, want string }{
		{"{ a = b }", "line 1, column 9: no ';' after the value of key \"a\""},
		{"(\n a,\n b c)", "line 3, column 4: \"c)\" where ',' or ')' belongs"},
		{"<plist><dict><key>a</key></dict></plist>", "key \"a\" has no value"},
		{"<plist><dict><key>a</key><true/><key>a</key><true/></dict></plist>", "dictionary key \"a\" appears twice"},
		{"<plist><integer>1.5</integer></plist>", "not an integer"},
		{"<plist><foo/></plist>", "<foo> is not a property list element"},
		{"bplist01" + strings.Repeat("\x00", 40), "version \"01\""},
		{"{ a = \"unclosed; }", "line 1, column 7: the string opened here is not closed"},
	}
	for _, c := range cases {
		_, _, err := Decode([]byte(c.in), Limits{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	v := map[string]any{"b": []any{int64(1), "x\ny", true}, "a": []byte{0xab}}
	if got, want := Describe(v, 100), `{"a": <ab>, "b": [1, "x\ny", true]}`; got != want {
		t.Errorf("Describe = %s, want %s", got, want)
	}
	if got := Describe(v, 10); got != `{"a": <ab>…` {
		t.Errorf("Describe cut = %s", got)
	}
	// Describing the largest tree the limits allow costs no more than max.
	deep, _, err := Decode(doublingDAG(18), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := Describe(deep, 50); len(got) > 50+len("…") {
		t.Errorf("Describe of a large tree: %d bytes", len(got))
	}
}
