package graph

import (
	"path"
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

func (l *FileLoc) String() string {
	return QuoteString(l.File) + ":" + strconv.Itoa(l.Line) + ":" + strconv.Itoa(l.Col)
}

func (l *NameLoc) String() string {
	s := QuoteString(l.Name)
	if l.Child != nil {
		if _, unk := l.Child.(UnknownLoc); !unk {
			s += "(" + l.Child.String() + ")"
		}
	}
	return s
}

func (l *FusedLoc) String() string {
	var b strings.Builder
	b.WriteString("fused")
	if l.Metadata != nil {
		b.WriteByte('<')
		b.WriteString(l.Metadata.String())
		b.WriteByte('>')
	}
	b.WriteByte('[')
	for i, c := range l.Locs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.String())
	}
	b.WriteByte(']')
	return b.String()
}

func (l *DialectLoc) String() string { return l.Attr.String() }

func (l *CallSiteLoc) String() string {
	return "callsite(" + l.Callee.String() + " at " + l.Caller.String() + ")"
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
		// Readable only in its textual form (#debuginfo.location<…>); an
		// attribute kept in a bytecode encoding has no text to search.
		if _, encoded := x.Attr.(BytecodeOnly); !encoded {
			return metadataIdentifier(x.Attr)
		}
	}
	return ""
}

// metadataIdentifier finds the first string of an `identifiers = [...]`
// list in location metadata, however the metadata attribute is spelled.
func metadataIdentifier(a Attr) string {
	if a == nil {
		return ""
	}
	s := a.String()
	const key = "identifiers = [\""
	i := strings.Index(s, key)
	if i < 0 {
		return ""
	}
	s = s[i+len(key):]
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			if u, err := strconv.Unquote(`"` + s[:j] + `"`); err == nil {
				return u
			}
			return s[:j]
		}
	}
	return ""
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
	}
	return nil
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
