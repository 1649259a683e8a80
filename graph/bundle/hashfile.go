package bundle

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
)

// hashForm is how a main.hash file spells the SHA-256 digest of the main
// bytecode file.
type hashForm int

const (
	// hashNone: there was no main.hash (or an unreadable one was ignored
	// under --ignore-hash). Outputs then get HashRaw.
	hashNone hashForm = iota
	// HashRaw is the 32 digest bytes themselves and nothing else: what
	// Apple's toolchain writes (every package in ../shared/corpus holds
	// sha256(main-h18p.mlirb) this way; a test checks it).
	HashRaw
	// hashHex is 64 hexadecimal digits without a newline: what anefix
	// versions before the switch to raw wrote.
	hashHex
	// hashHexLine is hashHex followed by one "\n", as `echo` or an editor
	// leaves it.
	hashHexLine
)

func (f hashForm) String() string {
	switch f {
	case HashRaw:
		return "raw"
	case hashHex:
		return "hex"
	case hashHexLine:
		return "hex+newline"
	}
	return "none"
}

// ParseHash reads the bytes of a main.hash file. Exactly two spellings are
// accepted, told apart by length: 32 bytes are the raw digest (HashRaw); 64
// hex digits of either case, optionally followed by a single "\n", are the
// hex form (hashHex, hashHexLine). Anything else (other lengths, other
// whitespace, `sha256sum`'s "digest  name" lines) is an error that says what
// was found. The digest is returned as lower-case hex.
func ParseHash(b []byte) (string, hashForm, error) {
	switch {
	case len(b) == sha256.Size:
		return hex.EncodeToString(b), HashRaw, nil
	case len(b) == 2*sha256.Size || len(b) == 2*sha256.Size+1 && b[len(b)-1] == '\n':
		form := hashHex
		if len(b) > 2*sha256.Size {
			form = hashHexLine
		}
		d, err := hex.DecodeString(string(b[:2*sha256.Size]))
		if err == nil {
			return hex.EncodeToString(d), form, nil
		}
	}
	return "", hashNone, fmt.Errorf("want the 32-byte SHA-256 digest Apple's toolchain writes (or the 64 hex digits earlier anefix versions wrote), but it holds %d bytes (%s)", len(b), describeBytes(b))
}

// formatHash spells the hex digest sum in form; hashNone gives HashRaw.
func formatHash(sum string, form hashForm) ([]byte, error) {
	d, err := hex.DecodeString(sum)
	if err != nil || len(d) != sha256.Size {
		return nil, fmt.Errorf("internal error: %q is not a hex SHA-256", sum)
	}
	switch form {
	case hashHex:
		return []byte(hex.EncodeToString(d)), nil
	case hashHexLine:
		return []byte(hex.EncodeToString(d) + "\n"), nil
	}
	return d, nil
}

// describeBytes shows the start of a file that may be text or binary.
func describeBytes(b []byte) string {
	const n = 40
	for _, c := range b {
		if c < 0x20 && c != '\n' || c >= 0x7f {
			if len(b) > n {
				return fmt.Sprintf("hex %x…", b[:n])
			}
			return fmt.Sprintf("hex %x", b)
		}
	}
	return fmt.Sprintf("text %q", truncate(string(b), n))
}

// checkHashFile compares the main.hash file hashPath (either form, see
// ParseHash) with the SHA-256 of mainPath, for layouts Open does not
// handle, such as a compiled package whose main file is main-<arch>.mlirb.
// A main.hash that cannot be parsed is an error naming it; a digest that
// differs is reported in the result, not as an error.
func checkHashFile(hashPath, mainPath string) (hashCheck, error) {
	var c hashCheck
	f, err := os.Open(hashPath)
	if err != nil {
		return c, err
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxHashFileSize+1))
	f.Close()
	if err != nil {
		return c, fmt.Errorf("reading %s: %w", hashPath, err)
	}
	if c.Want, c.Form, err = ParseHash(raw); err != nil {
		return c, fmt.Errorf("%s: %w", hashPath, err)
	}
	m, err := os.Open(mainPath)
	if err != nil {
		return c, err
	}
	defer m.Close()
	if c.Got, err = hashReader(m, nil); err != nil {
		return c, fmt.Errorf("hashing %s: %w", mainPath, err)
	}
	c.Checked, c.Matches = true, c.Got == c.Want
	return c, nil
}
