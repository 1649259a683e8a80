package mlirtext

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"

	"github.com/anefix/anefix/graph"
)

// hexBlob is a resource blob still in the text as hex digits: text[off:]
// holds 2*n digits of data (after the 8-digit alignment prefix). Bytes are
// decoded only when read, so parsing a file with large weights costs one
// validation scan, not a copy.
type hexBlob struct {
	text string
	off  int
	n    int64
}

func (h *hexBlob) Size() int64 { return h.n }

func (h *hexBlob) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("hex blob: negative offset")
	}
	if off >= h.n {
		return 0, io.EOF
	}
	k := min(int64(len(p)), h.n-off)
	// Decode straight from the text: no copy of the digits.
	src := h.text[h.off+int(2*off):]
	for i := int64(0); i < k; i++ {
		hi, ok1 := unhex(src[2*i])
		lo, ok2 := unhex(src[2*i+1])
		if !ok1 || !ok2 {
			return int(i), fmt.Errorf("hex blob: invalid digit at byte %d", off+i)
		}
		p[i] = hi<<4 | lo
	}
	if k < int64(len(p)) {
		return int(k), io.EOF
	}
	return int(k), nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// parseFileMetadata reads `{-# dialect_resources: {…}, external_resources: {…} #-}`.
func (p *parser) parseFileMetadata(m *graph.Module) {
	p.next() // {-#
	for p.ok() && !p.is(fileMetaEnd) {
		if !p.is(bareIdent) {
			p.fail("expected identifier key in file metadata dictionary")
			return
		}
		section, pos := p.tok.Text, p.tok.Pos
		p.next()
		if !p.expect(colon, "':'") {
			return
		}
		switch section {
		case "dialect_resources":
			p.parseResourceSection(m, false)
		case "external_resources":
			p.parseResourceSection(m, true)
		default:
			p.failAt(pos, "unknown key '%s' in file metadata dictionary", section)
			return
		}
		if !p.accept(comma) {
			break
		}
	}
	p.expect(fileMetaEnd, "'#-}' to end file metadata")
}

func (p *parser) parseResourceKey() (string, bool) {
	return p.parseKey("identifier key for resource entry")
}

func (p *parser) parseResourceSection(m *graph.Module, external bool) {
	p.parseCommaList(lBrace, rBrace, "'{'", func() {
		owner, ok := p.parseResourceKey()
		if !ok || !p.expect(colon, "':'") {
			return
		}
		p.parseCommaList(lBrace, rBrace, "'{'", func() {
			keyPos := p.tok.Pos
			if p.progress != nil {
				p.progress(keyPos)
			}
			key, ok := p.parseResourceKey()
			if !ok || !p.expect(colon, "':'") {
				return
			}
			r := &graph.Resource{Dialect: owner, Key: key}
			valTok := p.tok
			switch {
			case p.isKeyword("true") || p.isKeyword("false"):
				r.Kind = graph.BoolResource
				r.Bool = p.tok.Text == "true"
			case p.is(stringLit):
				if !p.fillBlobOrString(r, valTok) {
					return
				}
			default:
				p.fail("expected resource value (hex blob string, string or bool), found %s", describe(p.tok))
				return
			}
			p.next()
			if external {
				r.Text = valTok.Text
				m.ExternalResources = append(m.ExternalResources, r)
				return
			}
			if owner == "builtin" && p.hasResource(m, key) {
				p.failAt(keyPos, "duplicate resource key '%s'", key)
				return
			}
			m.Resources = append(m.Resources, r)
			if p.resKeys != nil {
				p.resKeys[key] = true
			}
		})
	})
}

// hasResource is m.Resource(key) != nil through a set of the keys parsed
// so far (searching the list for each entry was quadratic in their number).
func (p *parser) hasResource(m *graph.Module, key string) bool {
	if p.resKeys == nil {
		p.resKeys = make(map[string]bool, len(m.Resources))
		for _, r := range m.Resources {
			p.resKeys[r.Key] = true
		}
	}
	return p.resKeys[key]
}

// fillBlobOrString decides between a hex blob ("0x" + 8-digit little-endian
// alignment + data) and a plain string, validating the hex digits now so a
// bad file fails at parse time with a position.
func (p *parser) fillBlobOrString(r *graph.Resource, tok token) bool {
	body := tok.Text[1 : len(tok.Text)-1]
	if len(body) < 2 || body[:2] != "0x" {
		s, ok := unquote(tok.Text)
		if !ok {
			p.fail("invalid string literal")
			return false
		}
		r.Kind = graph.StringResource
		r.String = s
		return true
	}
	digits := body[2:]
	if len(digits) < 8 || len(digits)%2 != 0 {
		p.failAt(tok.Pos, "resource blob needs a 4-byte alignment prefix and whole bytes of hex data")
		return false
	}
	if i := firstNonHex(digits); i >= 0 {
		p.failAt(tok.Pos+3+i, "invalid hex digit in resource blob")
		return false
	}
	var a [4]byte
	hex.Decode(a[:], []byte(digits[:8]))
	align := binary.LittleEndian.Uint32(a[:])
	if !graph.ValidAlignment(uint64(align)) {
		p.failAt(tok.Pos+3, "resource blob alignment %d is not a power of two up to %d", align, graph.MaxBlobAlignment)
		return false
	}
	r.Kind = graph.BlobResource
	r.Alignment = uint64(align)
	r.Blob = &hexBlob{text: p.src.Text, off: tok.Pos + 1 + 2 + 8, n: int64(len(digits)-8) / 2}
	return true
}
