// Package compilerlog reads what `xcrun coreai-build compile` prints to
// stderr and turns it into typed records: per-op `warning:` lines (with the
// compiler's ane_validation_message, the "ANE I/O op" failure and the
// maxReorderingDistance note), and the `ANECCompileOffline() failed` blocks
// with their status numbers, ErrorList and region file names.
//
// It sits under passes/ane because it is the compiler's side of the same
// question the rule model answers (where the Neural Engine refuses); it
// depends on nothing but the standard library and never opens files, so
// both passes/ane (which maps records back to ops) and cmd/anefix (which
// runs the compiler) can use it without a cycle.
//
// The line layout is modelled on the excerpts testdata/compilerlogs/README.md
// cites; since no public source shows a complete
// warning line, the parser keys on the phrases the compiler is known to use
// and takes locations, op names and op ids from wherever they appear.
package compilerlog

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Kind classifies one diagnostic line.
type Kind int

const (
	// KindOther is a warning/note/error line the parser does not classify.
	KindOther Kind = iota
	// KindElementType is "Incompatible element type for ANE: expected …".
	KindElementType
	// KindIOOp is "… failed: ANE I/O op isn't a squeeze / expandDims".
	KindIOOp
	// KindReorder is "Reached maxReorderingDistance N".
	KindReorder
	// KindValidation is any other ane_validation_message.
	KindValidation
)

var kindNames = [...]string{"other", "element-type", "io-op", "reorder", "validation"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// The compiler's phrases the parser keys on (testdata/compilerlogs).
const (
	phraseElementType = "Incompatible element type for ANE"
	phraseIOOp        = "ANE I/O op isn't a squeeze / expandDims"
	phraseReorder     = "maxReorderingDistance"
	phraseValidation  = "ane_validation_message"
	phraseANECFailed  = "ANECCompileOffline() failed"
	regionMarker      = "_ANE_region"
)

// diagnostic is one warning, note or error line.
type diagnostic struct {
	Line     int    // 1-based line number in the log
	Severity string // "warning", "note", "error" or "" when the line has none
	Kind     Kind
	// Message is the text after "warning:" (or the whole line).
	Message string
	// Validation is the ane_validation_message argument, when present.
	Validation string
	// OpName is the MLIR op name quoted as 'dialect.op' in the line, if any.
	OpName string
	// OpIDs are the FX node names found in the line (quoted identifiers such
	// as "_to_copy_12" and loc("add_40") names), in order, without repeats.
	OpIDs []string
	// File, SrcLine, Col give the first source location in the line.
	File    string
	SrcLine int
	Col     int
	// Distance is N of "Reached maxReorderingDistance N" (0 otherwise).
	Distance int
	Raw      string
}

// Source returns "file:line" or "".
func (d *diagnostic) Source() string {
	if d.File == "" {
		return ""
	}
	return d.File + ":" + strconv.Itoa(d.SrcLine)
}

// field is one key = value entry of a statusdict, value as text.
type field struct {
	Key, Value string
}

// failure is one `ANECCompileOffline() failed` block.
type failure struct {
	Line      int   // line of "ANECCompileOffline() failed"
	OSStatus  int64 // OSStatus=N
	Status    int64 // aneCompileStatus=N
	HasStatus bool
	// SourceFile is CompiledInputSourceFileName.
	SourceFile string
	// Region is the region parsed from SourceFile (zero when none).
	Region region
	// ErrorList holds the ErrorList entries (empty list = the silent case of
	// testdata/compilerlogs/issue205-empty-errorlist.log).
	ErrorList []string
	// Fields are the other statusdict entries, sorted by key.
	Fields []field
	// Truncated is set when the log ended inside the statusdict.
	Truncated bool
}

// region identifies an ANE region file `<function>_ANE_region_<i>_<j>…`.
type region struct {
	File     string // base name
	Function string // text before "_ANE_region" (may be elided with "...")
	I, J     int
	Valid    bool
}

// Log is everything parsed from one compiler run. Counts cover the whole
// log; the records kept are bounded (see MaxKept), so a log of any size
// takes memory in proportion to the bounds, not to the log.
type Log struct {
	// Diagnostics are the diagnostics kept: the first MaxKeptPerGroup of
	// each group (kind, op name, validation message), at most MaxKept in
	// all, in log order.
	Diagnostics []diagnostic
	// Failures are the first MaxKeptFailures failure blocks.
	Failures []failure
	Lines    int
	// Unclassified counts non-empty lines that are neither diagnostics nor
	// part of a failure block.
	Unclassified int
	// Other are those lines, so that a message no rule knows still reaches
	// the user (such as the two-line bf16 "Incompatible element type for
	// parameter at index 0, …" of coreai-facts.md §0): each distinct text
	// once, with the line it first appeared on and how often it appeared,
	// in order of first appearance; at most MaxKeptOther texts.
	Other []otherLine
	// OtherNotKept counts the unclassified lines whose text is not among
	// Other (the log had more than MaxKeptOther distinct texts).
	OtherNotKept int
	// Counts are the diagnostics of each kind in the whole log, kept or not.
	Counts map[Kind]int
	// DroppedDiagnostics and DroppedFailures count the records not kept.
	DroppedDiagnostics, DroppedFailures int
	// LongLines counts lines longer than maxLineBytes: only their first
	// maxLineBytes are parsed.
	LongLines int
}

// otherLine is one distinct unclassified line of the log.
type otherLine struct {
	Line  int    // 1-based line of its first appearance
	Text  string // the line, spaces trimmed, cut to maxKeptText bytes
	Count int    // how many lines of the log have this text
}

// Count returns how many diagnostics of kind k the whole log holds.
func (l *Log) Count(k Kind) int { return l.Counts[k] }

// The retention bounds. With lines cut at maxLineBytes and the kept text
// of each record cut at maxKeptText, what a Log keeps is at most about
// MaxKept*(5*maxKeptText + maxKeptIDs*maxKeptID) + 2*MaxKeptFailures*maxBlockBytes
// + 2*MaxKeptOther*maxKeptText + maxLineBytes, under 96 MiB, whatever the log's size. Every kept string is a copy, so no record
// pins the (up to 1 MiB) line it came from.
const (
	// maxLineBytes bounds the part of one log line that is parsed.
	maxLineBytes = 1 << 20
	// MaxKept bounds the diagnostics kept; MaxKeptPerGroup those of one group.
	MaxKept         = 4096
	MaxKeptPerGroup = 64
	// maxKeptText bounds each kept diagnostic's Raw and Message.
	maxKeptText = 2048
	// MaxKeptFailures bounds the failure blocks kept.
	MaxKeptFailures = 64
	// maxBlockBytes bounds the text of one failure block.
	maxBlockBytes = 256 << 10
	// MaxKeptOther bounds the distinct unclassified lines kept.
	MaxKeptOther = 256
)

// maxKeptIDs and maxKeptID bound the op ids kept per diagnostic.
const (
	maxKeptIDs = 16
	maxKeptID  = 256
)

// maxBlockLines bounds one statusdict block.
const maxBlockLines = 100000

var (
	reOpName    = regexp.MustCompile(`'([A-Za-z_][A-Za-z0-9_]*\.[A-Za-z0-9_.]+)' op`)
	reQuotedID  = regexp.MustCompile(`"([A-Za-z_][A-Za-z0-9_]*)"`)
	reReorder   = regexp.MustCompile(`maxReorderingDistance\s*(?:=|:)?\s*(\d+)`)
	reOSStatus  = regexp.MustCompile(`OSStatus\s*=\s*(-?\d+)`)
	reANEStatus = regexp.MustCompile(`aneCompileStatus\s*=\s*(-?\d+)`)
	reRegion    = regexp.MustCompile(`_ANE_region_(\d+)_(\d+)`)
)

// ignoredIDs are quoted identifiers that are keys, not op ids.
var ignoredIDs = map[string]bool{"ane_validation_message": true, "torch": true}

// Parse reads a coreai-build stderr log. It fails only on read errors;
// unknown text is counted, never rejected.
func Parse(r io.Reader) (*Log, error) {
	p := NewParser()
	if _, err := io.Copy(p, r); err != nil {
		return nil, fmt.Errorf("reading compiler log: %w", err)
	}
	return p.Finish(), nil
}

type groupKey struct {
	kind              Kind
	opName, validated string
}

// parser parses a log as it is written (an io.Writer, so a running
// compiler's stderr can feed it directly), keeping at most one line
// (maxLineBytes) of unparsed text and the bounded records of Log.
type parser struct {
	log    Log
	line   []byte
	long   bool // the current line passed maxLineBytes
	fail   *failure
	block  []string
	blockN int // bytes in block
	depth  int
	groups map[groupKey]int
	other  map[string]int // Other's index by text
	done   bool
}

// NewParser returns a Parser with an empty Log.
func NewParser() *parser {
	return &parser{log: Log{Counts: map[Kind]int{}}, groups: map[groupKey]int{}, other: map[string]int{}}
}

// Write feeds log bytes; it never fails.
func (p *parser) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		chunk := b
		if i >= 0 {
			chunk = b[:i]
		}
		if room := maxLineBytes - len(p.line); len(chunk) > room {
			p.line = append(p.line, chunk[:room]...)
			p.long = true
		} else {
			p.line = append(p.line, chunk...)
		}
		if i < 0 {
			break
		}
		p.endLine()
		b = b[i+1:]
	}
	return n, nil
}

// Finish ends the log (a last line without a newline counts) and returns it.
func (p *parser) Finish() *Log {
	if p.done {
		return &p.log
	}
	p.done = true
	if len(p.line) > 0 || p.long {
		p.endLine()
	}
	if p.fail != nil {
		p.fail.Truncated = true
		p.finishBlock()
	}
	return &p.log
}

func (p *parser) endLine() {
	if p.long {
		p.log.LongLines++
	}
	line := strings.TrimRight(string(p.line), "\r")
	p.line, p.long = p.line[:0], false
	if cap(p.line) > 64<<10 { // do not hold a long line's buffer for the rest of the log
		p.line = nil
	}
	p.lineText(line)
}

func (p *parser) lineText(line string) {
	log := &p.log
	log.Lines++
	if p.fail != nil {
		if p.blockN < maxBlockBytes {
			if len(line) > maxBlockBytes-p.blockN {
				line = line[:maxBlockBytes-p.blockN]
			}
			p.block = append(p.block, line)
			p.blockN += len(line) + 1
		}
		p.depth += braceDelta(line)
		if p.depth <= 0 || len(p.block) >= maxBlockLines || p.blockN >= maxBlockBytes {
			p.fail.Truncated = p.depth > 0
			p.finishBlock()
		}
		return
	}
	if i := strings.Index(line, phraseANECFailed); i >= 0 {
		p.fail = &failure{Line: log.Lines}
		rest := line[i:]
		if len(rest) > maxBlockBytes {
			rest = rest[:maxBlockBytes]
		}
		p.block = []string{rest}
		p.blockN = len(rest) + 1
		p.depth = braceDelta(rest)
		if p.depth <= 0 {
			p.finishBlock()
		}
		return
	}
	if d, ok := parseDiagnostic(line, log.Lines); ok {
		log.Counts[d.Kind]++
		if len(log.Diagnostics) >= MaxKept {
			log.DroppedDiagnostics++
			return
		}
		// Keys are cut copies, so the map (at most MaxKept keys) pins no line.
		d.OpName = keepText(d.OpName)
		d.Validation = keepText(d.Validation)
		k := groupKey{d.Kind, d.OpName, d.Validation}
		if p.groups[k] >= MaxKeptPerGroup {
			log.DroppedDiagnostics++
			return
		}
		p.groups[k]++
		d.Raw = keepText(d.Raw)
		d.Message = keepText(d.Message)
		d.File = keepText(d.File)
		d.Severity = strings.Clone(d.Severity)
		if len(d.OpIDs) > maxKeptIDs {
			d.OpIDs = d.OpIDs[:maxKeptIDs]
		}
		for i, id := range d.OpIDs {
			d.OpIDs[i] = strings.Clone(id[:min(len(id), maxKeptID)])
		}
		d.OpIDs = slices.Clip(d.OpIDs)
		log.Diagnostics = append(log.Diagnostics, d)
		return
	}
	if t := strings.TrimSpace(line); t != "" {
		log.Unclassified++
		p.keepOther(t)
	}
}

// keepOther records an unclassified line: a text seen before only counts
// again, a new one is kept while fewer than MaxKeptOther are.
func (p *parser) keepOther(t string) {
	log := &p.log
	if len(t) > maxKeptText {
		t = t[:maxKeptText]
	}
	if i, ok := p.other[t]; ok {
		log.Other[i].Count++
		return
	}
	if len(log.Other) >= MaxKeptOther {
		log.OtherNotKept++
		return
	}
	t = strings.Clone(t) // the map key and the record share one copy
	p.other[t] = len(log.Other)
	log.Other = append(log.Other, otherLine{Line: log.Lines, Text: t, Count: 1})
}

// keepText copies s, cut to maxKeptText bytes, so a kept record does not
// pin the line it came from.
func keepText(s string) string {
	if len(s) > maxKeptText {
		s = s[:maxKeptText]
	}
	return strings.Clone(s)
}

func (p *parser) finishBlock() {
	if len(p.log.Failures) < MaxKeptFailures {
		finishFailure(p.fail, p.block)
		p.log.Failures = append(p.log.Failures, *p.fail)
	} else {
		p.log.DroppedFailures++
	}
	p.fail, p.block, p.blockN, p.depth = nil, nil, 0, 0
}

// braceDelta counts { ( against } ) outside double-quoted strings.
func braceDelta(s string) int {
	d, inStr := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '(':
			d++
		case c == '}' || c == ')':
			d--
		}
	}
	return d
}

func parseDiagnostic(line string, n int) (diagnostic, bool) {
	d := diagnostic{Line: n, Raw: line}
	sev := findSeverity(line)
	hasPhrase := strings.Contains(line, phraseValidation) || strings.Contains(line, phraseElementType) ||
		strings.Contains(line, phraseIOOp) || strings.Contains(line, phraseReorder)
	if sev == nil && !hasPhrase {
		return d, false
	}
	loc := line
	d.Message = strings.TrimSpace(line)
	if sev != nil {
		d.Severity = line[sev[2]:sev[3]]
		d.Message = strings.TrimSpace(line[sev[1]:])
		loc = line[:sev[2]]
	}
	stripped := line // the line without the message string, for op ids
	if a, b, c, e, ok := findValidation(line); ok {
		d.Validation = unescape(line[c:e])
		stripped = line[:a] + line[b:]
	}
	switch {
	case strings.Contains(line, phraseElementType):
		d.Kind = KindElementType
	case strings.Contains(line, phraseIOOp):
		d.Kind = KindIOOp
	case strings.Contains(line, phraseReorder):
		d.Kind = KindReorder
		if m := reReorder.FindStringSubmatch(line); m != nil {
			d.Distance, _ = strconv.Atoi(m[1])
		}
	case d.Validation != "":
		d.Kind = KindValidation
	}
	if m := reOpName.FindStringSubmatch(line); m != nil {
		d.OpName = m[1]
	}
	// Prefer a location before the severity; fall back to any in the line.
	ok := false
	if d.File, d.SrcLine, d.Col, ok = findFileLoc(loc); !ok {
		d.File, d.SrcLine, d.Col, _ = findFileLoc(line)
	}
	seen := map[string]bool{}
	for _, m := range reQuotedID.FindAllStringSubmatch(stripped, -1) {
		id := m[1]
		if ignoredIDs[id] || seen[id] || !looksLikeFXName(id) {
			continue
		}
		seen[id] = true
		d.OpIDs = append(d.OpIDs, id)
	}
	return d, true
}

// findSeverity finds the first "warning:", "note:", "error:" or "remark:"
// at the start of the line or after a space or ':'. It returns
// [keywordStart, keywordEnd, keywordStart, keywordEnd] shifted like a
// regexp submatch index: [0]/[1] span "kw: ", [2]/[3] the keyword; nil if
// none.
func findSeverity(s string) []int {
	best := []int(nil)
	for _, kw := range [...]string{"warning", "note", "error", "remark"} {
		from := 0
		for {
			i := strings.Index(s[from:], kw+":")
			if i < 0 {
				break
			}
			i += from
			if i == 0 || s[i-1] == ' ' || s[i-1] == '\t' || s[i-1] == ':' {
				if best == nil || i < best[2] {
					end := i + len(kw) + 1
					if end < len(s) && (s[end] == ' ' || s[end] == '\t') {
						end++
					}
					best = []int{i, end, i, i + len(kw)}
				}
				break
			}
			from = i + 1
		}
	}
	return best
}

// findValidation finds `"ane_validation_message"("text")` (quotes around
// the key optional, spaces allowed) and returns the span of the whole
// construct [a, b) and of the text [c, e).
func findValidation(s string) (a, b, c, e int, ok bool) {
	i := strings.Index(s, phraseValidation)
	if i < 0 {
		return
	}
	a = i
	if a > 0 && s[a-1] == '"' {
		a--
	}
	j := i + len(phraseValidation)
	if j < len(s) && s[j] == '"' {
		j++
	}
	for j < len(s) && s[j] == ' ' {
		j++
	}
	if j >= len(s) || s[j] != '(' {
		return
	}
	j++
	for j < len(s) && s[j] == ' ' {
		j++
	}
	if j >= len(s) || s[j] != '"' {
		return
	}
	c = j + 1
	for k := c; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case '"':
			return a, k + 1, c, k, true
		}
	}
	return
}

// findFileLoc finds the first `file.ext:line[:col]` (file optionally
// quoted) in s by scanning for ':' + digit and walking back over the file
// name; linear in len(s), unlike a leading-wildcard regexp.
func findFileLoc(s string) (file string, line, col int, ok bool) {
	for i := 0; i+1 < len(s); i++ {
		if s[i] != ':' || s[i+1] < '0' || s[i+1] > '9' {
			continue
		}
		end := i
		if end > 0 && s[end-1] == '"' {
			end--
		}
		start := end
		for start > 0 && !strings.ContainsRune(" \t\"'():[],", rune(s[start-1])) {
			start--
		}
		name := s[start:end]
		dot := strings.LastIndexByte(name, '.')
		if dot <= 0 || dot == len(name)-1 || !isAlpha(name[dot+1]) || !isAlnum(name[dot-1]) {
			continue
		}
		j := i + 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		line, _ = strconv.Atoi(s[i+1 : j])
		if j+1 < len(s) && s[j] == ':' && s[j+1] >= '0' && s[j+1] <= '9' {
			k := j + 1
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			col, _ = strconv.Atoi(s[j+1 : k])
		}
		return name, line, col, true
	}
	return "", 0, 0, false
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' || c == '_' }

// looksLikeFXName accepts torch FX node names: "<aten op>[_<n>]" such as
// "_to_copy_12", "unsqueeze_3", "add", "slice_scatter_1".
func looksLikeFXName(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	if u, err := strconv.Unquote(`"` + s + `"`); err == nil {
		return u
	}
	return s
}

// finishFailure fills a Failure from its block text.
func finishFailure(f *failure, block []string) {
	text := strings.Join(block, "\n")
	if m := reOSStatus.FindStringSubmatch(text); m != nil {
		f.OSStatus, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m := reANEStatus.FindStringSubmatch(text); m != nil {
		f.Status, _ = strconv.ParseInt(m[1], 10, 64)
		f.HasStatus = true
	}
	i := strings.Index(text, "statusdict")
	if i < 0 {
		return
	}
	j := strings.IndexByte(text[i:], '{')
	if j < 0 {
		return
	}
	p := &plist{s: text[i+j:]}
	v := p.value()
	dict, ok := v.(plDict)
	if !ok {
		return
	}
	for _, kv := range dict {
		switch kv.key {
		case "CompiledInputSourceFileName":
			f.SourceFile = plText(kv.val)
			f.Region = parseRegion(f.SourceFile)
		case "ErrorList":
			if arr, ok := kv.val.(plArray); ok {
				for _, e := range arr {
					f.ErrorList = append(f.ErrorList, plText(e))
				}
			} else if t := plText(kv.val); t != "" {
				f.ErrorList = append(f.ErrorList, t)
			}
		default:
			f.Fields = append(f.Fields, field{kv.key, plText(kv.val)})
		}
	}
	sort.SliceStable(f.Fields, func(a, b int) bool { return f.Fields[a].Key < f.Fields[b].Key })
}

// parseRegion extracts the function and indices from an ANE region file
// name such as ".../extend_1024_16_..._ANE_region_1_0.bc.mlir".
func parseRegion(path string) region {
	base := path
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	r := region{File: base}
	loc := reRegion.FindStringSubmatchIndex(base)
	if loc == nil {
		return r
	}
	r.Function = base[:loc[0]]
	var err1, err2 error
	r.I, err1 = strconv.Atoi(base[loc[2]:loc[3]])
	r.J, err2 = strconv.Atoi(base[loc[4]:loc[5]])
	r.Valid = err1 == nil && err2 == nil
	return r
}
