package graph

import (
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Loc is an MLIR location. String returns the text inside `loc(…)`.
type Loc interface {
	String() string
	isLoc()
}

// UnknownLoc is `loc(unknown)`.
type UnknownLoc struct{}

// FileLoc is `loc("file":line:col)` (FileLineColLoc).
type FileLoc struct {
	File      string
	Line, Col int
	// Implicit marks a location the text reader made from the op's (or
	// block argument's) position because the text wrote none, as MLIR does.
	// The custom-form printer leaves it out, so a module printed back shows
	// only the locations its text carried; every other writer treats it as
	// the FileLoc it is.
	Implicit bool
}

// NameLoc is `loc("name")` or `loc("name"(child))`. Child may be nil.
type NameLoc struct {
	Name  string
	Child Loc
}

// FusedLoc is `loc(fused[a, b])` or `loc(fused<#meta>[a, b])`.
type FusedLoc struct {
	Locs     []Loc
	Metadata Attr // optional
}

// CallSiteLoc is `loc(callsite(callee at caller))`.
type CallSiteLoc struct{ Callee, Caller Loc }

// DialectLoc is a location that is a dialect attribute: coreai-torch writes
// `loc(#debuginfo.location<…>)`, and Apple's bytecode uses dialect-encoded
// attributes (aicode, mps) as op locations. The attribute is kept as read so
// that it survives every edit and round trip.
type DialectLoc struct{ Attr Attr }

func (UnknownLoc) isLoc()   {}
func (*FileLoc) isLoc()     {}
func (*NameLoc) isLoc()     {}
func (*FusedLoc) isLoc()    {}
func (*CallSiteLoc) isLoc() {}
func (*DialectLoc) isLoc()  {}

// Unknown is the shared unknown location.
var Unknown Loc = UnknownLoc{}

func (UnknownLoc) String() string { return "unknown" }

func (l *FileLoc) String() string     { return locString(l) }
func (l *NameLoc) String() string     { return locString(l) }
func (l *FusedLoc) String() string    { return locString(l) }
func (l *CallSiteLoc) String() string { return locString(l) }
func (l *DialectLoc) String() string  { return l.Attr.String() }

func locString(l Loc) string {
	var b strings.Builder
	WriteLoc(&b, l)
	return b.String()
}

// WriteLoc prints l's String form to w, part by part: a module has a
// location per op, and building each one's spelling as strings nested in
// strings (a fused location of name and file locations) cost more than the
// rest of printing the op.
func WriteLoc(w attrWriter, l Loc) {
	switch x := l.(type) {
	case *FileLoc:
		WriteQuoted(w, x.File)
		w.WriteByte(':')
		writeInt(w, int64(x.Line))
		w.WriteByte(':')
		writeInt(w, int64(x.Col))
	case *NameLoc:
		WriteQuoted(w, x.Name)
		if x.Child != nil {
			if _, unk := x.Child.(UnknownLoc); !unk {
				w.WriteByte('(')
				WriteLoc(w, x.Child)
				w.WriteByte(')')
			}
		}
	case *FusedLoc:
		w.WriteString("fused")
		if x.Metadata != nil {
			w.WriteByte('<')
			WriteAttr(w, x.Metadata)
			w.WriteByte('>')
		}
		w.WriteByte('[')
		for i, c := range x.Locs {
			if i > 0 {
				w.WriteString(", ")
			}
			WriteLoc(w, c)
		}
		w.WriteByte(']')
	case *CallSiteLoc:
		w.WriteString("callsite(")
		WriteLoc(w, x.Callee)
		w.WriteString(" at ")
		WriteLoc(w, x.Caller)
		w.WriteByte(')')
	case *DialectLoc:
		WriteAttr(w, x.Attr)
	default:
		w.WriteString(l.String())
	}
}

// writeInt writes n in decimal; into the writer's free buffer when it has
// one (a bufio.Writer or bytes.Buffer: no allocation).
func writeInt(w attrWriter, n int64) {
	if bw, ok := w.(interface{ AvailableBuffer() []byte }); ok {
		w.Write(strconv.AppendInt(bw.AvailableBuffer(), n, 10))
		return
	}
	w.WriteString(strconv.FormatInt(n, 10))
}

// OpID returns the FX node name carried by a location (e.g. "_to_copy_12"),
// or "". coreai-torch records it in fused-location metadata
// (`identifiers = ["_to_copy_12"]` in its debuginfo sources); other producers
// use name locations. The first one found in a pre-order walk wins.
func OpID(l Loc) string {
	switch x := l.(type) {
	case *NameLoc:
		return x.Name
	case *FusedLoc:
		if id := metadataIdentifier(x.Metadata); id != "" {
			return id
		}
		for _, c := range x.Locs {
			if id := OpID(c); id != "" {
				return id
			}
		}
	case *CallSiteLoc:
		if id := OpID(x.Callee); id != "" {
			return id
		}
		return OpID(x.Caller)
	case *DialectLoc:
		if x.Attr != nil {
			return identifierIn(x.Attr.String())
		}
	}
	return ""
}

// FXNames returns the FX node names of every debuginfo metadata a location
// carries (`identifiers = [...]`, the first of each), in pre-order, without
// repeats; name locations are not read as FX names here. A compiled
// package's specialized graph fuses its own name locations
// ("coreai"("op_id":10:0)) with the source op's metadata, where OpID stops
// at the name.
func FXNames(l Loc) []string {
	var out []string
	add := func(id string) {
		if id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	var walk func(l Loc)
	walk = func(l Loc) {
		switch x := l.(type) {
		case *FusedLoc:
			add(metadataIdentifier(x.Metadata))
			for _, c := range x.Locs {
				walk(c)
			}
		case *CallSiteLoc:
			walk(x.Callee)
			walk(x.Caller)
		case *DialectLoc:
			if x.Attr != nil {
				add(identifierIn(x.Attr.String()))
			}
		case *NameLoc:
			if x.Child != nil {
				walk(x.Child)
			}
		}
	}
	walk(l)
	return out
}

// metadataIdentifier finds the first string of an `identifiers = [...]`
// list in location metadata, however the metadata attribute is spelled.
func metadataIdentifier(a Attr) string {
	if a == nil {
		return ""
	}
	return identifierIn(a.String())
}

// identifierIn finds the first string of an `identifiers = [...]` list in
// attribute text, however the rest of the attribute is spelled.
func identifierIn(s string) string {
	m := identifiersRE.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return unescapeMLIR(m[1])
}

// unescapeMLIR decodes the body of an MLIR string literal (\XX hex bytes,
// \\, \", \n, \t); an escape it does not know stays as written.
func unescapeMLIR(s string) string {
	if !strings.ContainsRune(s, '\\') {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		switch n := s[i+1]; {
		case n == '\\' || n == '"':
			b.WriteByte(n)
			i++
		case n == 'n':
			b.WriteByte('\n')
			i++
		case n == 't':
			b.WriteByte('\t')
			i++
		case i+2 < len(s):
			if v, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// What anefix reads from a `#debuginfo.location<…>` (coreai-torch's
// locations, built in coreai_torch/_debug_locations.py). The attribute's
// printed syntax is not public: these patterns assume only what that file
// fixes (a source file location `"file":line:col` as src, a metadata entry
// "sources" whose dictionary has `identifiers = ["<FX node name>"]`, entries
// "op_id" with dictionaries `{type = "<stage>", value = N : ui64}`) and
// tolerate any order, keyword or positional parameters and other entries.
// What they cannot find reads as absent, never as an error.
var (
	identifiersRE = regexp.MustCompile(`identifiers\s*=\s*\[\s*"((?:[^"\\]|\\.)*)"`)
	fileLineColRE = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"\s*:\s*([0-9]+)\s*:\s*([0-9]+)`)
	opIDDictRE    = regexp.MustCompile(`\{[^{}]*\}`)
	opIDTypeRE    = regexp.MustCompile(`(?:^|[{,\s])type\s*=\s*"([^"]*)"`)
	opIDValueRE   = regexp.MustCompile(`(?:^|[{,\s])value\s*=\s*([0-9]+)`)
)

// OpNumber returns the numeric op id a location carries: coreai-torch's
// `op_id` metadata of type "coreai" (it numbers the ops it emits in IR
// order), else the first `op_id` value of any type. ok is false when there
// is none; only dialect (debuginfo) locations carry one.
func OpNumber(l Loc) (n uint64, ok bool) {
	switch x := l.(type) {
	case *DialectLoc:
		if x.Attr == nil {
			return 0, false
		}
		var first uint64
		found := false
		for _, d := range opIDDictRE.FindAllString(x.Attr.String(), -1) {
			tm, vm := opIDTypeRE.FindStringSubmatch(d), opIDValueRE.FindStringSubmatch(d)
			if tm == nil || vm == nil {
				continue
			}
			v, err := strconv.ParseUint(vm[1], 10, 64)
			if err != nil {
				continue
			}
			if tm[1] == "coreai" {
				return v, true
			}
			if !found {
				first, found = v, true
			}
		}
		return first, found
	case *FusedLoc:
		for _, c := range x.Locs {
			if n, ok := OpNumber(c); ok {
				return n, true
			}
		}
	case *NameLoc:
		if x.Child != nil {
			return OpNumber(x.Child)
		}
	case *CallSiteLoc:
		if n, ok := OpNumber(x.Callee); ok {
			return n, true
		}
		return OpNumber(x.Caller)
	}
	return 0, false
}

// OpLabel is how an op is named to users: the FX name (OpID) with the
// numeric op id beside it when the location carries one ("add_1 (op_id 7)"),
// the number alone ("op_id 7"), or the FX name alone; "" when neither.
func OpLabel(l Loc) string {
	id := OpID(l)
	n, ok := OpNumber(l)
	switch {
	case !ok:
		return id
	case id == "":
		return "op_id " + strconv.FormatUint(n, 10)
	}
	return id + " (op_id " + strconv.FormatUint(n, 10) + ")"
}

// dialectFileLoc reads the first `"file":line:col` in a dialect location's
// text (coreai-torch's src, the innermost stack frame), or nil.
func dialectFileLoc(x *DialectLoc) *FileLoc {
	if x.Attr == nil {
		return nil
	}
	m := fileLineColRE.FindStringSubmatch(x.Attr.String())
	if m == nil {
		return nil
	}
	file := unescapeMLIR(m[1])
	line, err1 := strconv.Atoi(m[2])
	col, err2 := strconv.Atoi(m[3])
	if err1 != nil || err2 != nil {
		return nil
	}
	return &FileLoc{File: file, Line: line, Col: col}
}

// SourceLoc returns the first file location in a pre-order walk, or nil.
func SourceLoc(l Loc) *FileLoc {
	switch x := l.(type) {
	case *FileLoc:
		return x
	case *NameLoc:
		if x.Child != nil {
			return SourceLoc(x.Child)
		}
	case *FusedLoc:
		for _, c := range x.Locs {
			if f := SourceLoc(c); f != nil {
				return f
			}
		}
	case *CallSiteLoc:
		if f := SourceLoc(x.Callee); f != nil {
			return f
		}
		return SourceLoc(x.Caller)
	case *DialectLoc:
		return dialectFileLoc(x)
	}
	return nil
}

// TextName is the SSA name ("%v13") the MLIR text read gave op's first
// result, which the text reader records for coreai.constant ops only
// (Value.Loc), else "".
func TextName(op *Operation) string {
	if op.NumResults() == 0 {
		return ""
	}
	if n, ok := op.Result(0).Loc.(*NameLoc); ok && n.Name != "" {
		return "%" + n.Name
	}
	return ""
}

// Source returns "file:line" for a location's first file location, or "".
func Source(l Loc) string {
	f := SourceLoc(l)
	if f == nil {
		return ""
	}
	return f.File + ":" + strconv.Itoa(f.Line)
}

// ShortSource is Source with the file cut to its last two path elements
// ("macos/qwen3_5.py:199"), for displays; exporters record absolute paths.
func ShortSource(l Loc) string {
	f := SourceLoc(l)
	if f == nil {
		return ""
	}
	return ShortFile(f.File) + ":" + strconv.Itoa(f.Line)
}

// ShortFile keeps the last two elements of a slash path.
func ShortFile(p string) string {
	dir, file := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		return file
	}
	return path.Base(dir) + "/" + file
}

// FileLocs lists every file location in l, innermost frame first: name and
// fused locations are looked through, a call site gives its callee's frames
// then its caller's, and a dialect location (coreai-torch's
// #debuginfo.location) gives each loc("file":line:col) in its text, in the
// order written.
func FileLocs(l Loc) []*FileLoc { return fileLocs(l, true, nil) }

// BuiltinFileLocs is FileLocs without the frames inside dialect locations.
// arm-d matches its region frames on these only (passes/armd.go); whether
// it should also look inside #debuginfo.location is untested, so it keeps
// the narrower walk it was written with.
func BuiltinFileLocs(l Loc) []*FileLoc { return fileLocs(l, false, nil) }

func fileLocs(l Loc, dialect bool, out []*FileLoc) []*FileLoc {
	switch x := l.(type) {
	case *FileLoc:
		out = append(out, x)
	case *NameLoc:
		if x.Child != nil {
			out = fileLocs(x.Child, dialect, out)
		}
	case *FusedLoc:
		for _, c := range x.Locs {
			out = fileLocs(c, dialect, out)
		}
	case *CallSiteLoc:
		out = fileLocs(x.Callee, dialect, out)
		out = fileLocs(x.Caller, dialect, out)
	case *DialectLoc:
		if dialect && x.Attr != nil {
			for _, m := range dialectFileRE.FindAllStringSubmatch(x.Attr.String(), -1) {
				file, err := strconv.Unquote(`"` + m[1] + `"`)
				if err != nil {
					file = m[1]
				}
				line, _ := strconv.Atoi(m[2])
				col, _ := strconv.Atoi(m[3])
				out = append(out, &FileLoc{File: file, Line: line, Col: col})
			}
		}
	}
	return out
}

// dialectFileRE matches a builtin file location inside a dialect
// location's text: loc("file":line:col).
var dialectFileRE = regexp.MustCompile(`loc\("((?:[^"\\]|\\.)*)":(\d+):(\d+)\)`)

// ForgetDialectLocs replaces every dialect location in m (on ops and block
// arguments) by the unknown location, in place: mlir-opt refuses
// `#debuginfo.location<…>` attributes used as locations, so tests that
// check anefix's output with mlir-opt check this form of it.
func ForgetDialectLocs(m *Module) {
	unk := func(l Loc) Loc {
		if _, ok := l.(*DialectLoc); ok {
			return Unknown
		}
		return l
	}
	m.Op.Loc = unk(m.Op.Loc)
	m.Walk(func(op *Operation) bool {
		op.Loc = unk(op.Loc)
		for _, r := range op.Regions {
			for _, b := range r.Blocks {
				for _, a := range b.Args() {
					a.Loc = unk(a.Loc)
				}
			}
		}
		return true
	})
}
