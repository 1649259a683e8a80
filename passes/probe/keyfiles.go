package probe

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"
)

// The cache key covers, besides the candidate and the command's text, the
// files the command names: `sh no-f32.sh {}` answered from the cache after
// no-f32.sh was edited would be the old script's answer. A file the test
// reads without the command naming it (one the script calls) is not
// covered; the help says to use --no-cache then.

// commandWords splits command into words as sh would before expansion:
// at unquoted blanks and operators (; & | ( ) < > and backquotes), quotes
// and backslashes removed. The word after an output redirection (> out,
// >> log, 2> err) is left out: a file the test writes says nothing about
// its answer, and would change the key on every run. Words holding {} or
// $ (expanded only when the test runs) are left out too.
func commandWords(command string) []string {
	var words []string
	var cur strings.Builder
	inWord, output, expands := false, false, false
	end := func() {
		if inWord && !output && !expands {
			words = append(words, cur.String())
		}
		if inWord {
			output = false
		}
		cur.Reset()
		inWord, expands = false, false
	}
	for i := 0; i < len(command); i++ {
		c := command[i]
		switch {
		case c == '\\' && i+1 < len(command):
			i++
			cur.WriteByte(command[i])
			inWord = true
		case c == '\'':
			j := strings.IndexByte(command[i+1:], '\'')
			if j < 0 {
				j = len(command) - i - 1
			}
			cur.WriteString(command[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			for i++; i < len(command) && command[i] != '"'; i++ {
				if command[i] == '\\' && i+1 < len(command) && strings.IndexByte("\"\\$`", command[i+1]) >= 0 {
					i++
				} else if command[i] == '$' || command[i] == '`' {
					expands = true
				}
				cur.WriteByte(command[i])
			}
			inWord = true
		case strings.IndexByte(" \t\n;&|()<>`", c) >= 0:
			if (c == '>' || c == '<') && inWord && !expands && strings.Trim(cur.String(), "0123456789") == "" {
				inWord = false // 2>err.log: a file descriptor, not a word
			}
			end()
			if c == '>' {
				output = true
			}
		default:
			if c == '$' {
				expands = true
			}
			cur.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words
}

// namedFiles is every word of command (commandWords) that is a path,
// relative to the working directory or absolute, to a regular file (a
// link to one counts), each once, in order.
func namedFiles(command string) []string {
	var files []string
	seen := map[string]bool{}
	for _, w := range commandWords(command) {
		if w == "" || strings.Contains(w, "{}") || seen[w] {
			continue
		}
		seen[w] = true
		if fi, err := os.Stat(w); err == nil && fi.Mode().IsRegular() {
			files = append(files, w)
		}
	}
	return files
}

// keyPrefix is what every candidate's key of command is hashed with: the
// command's text, then for each named file its name and the SHA-256 of
// its bytes, read now (once per search). A command naming no file gives
// the text alone, the key of earlier versions, whose answers stay valid.
// A named file that cannot be read is an error when strict (there is a
// cache to key), else it is left out.
func keyPrefix(command string, files []string, strict bool) (string, []string, error) {
	var b strings.Builder
	b.WriteString(command)
	var used []string
	for _, f := range files {
		d, err := fileDigest(f)
		if err != nil {
			if strict {
				return "", nil, fmt.Errorf("the test command names %s, whose bytes key the cache, and it cannot be read: %w (make it readable, or use --no-cache)", f, err)
			}
			continue
		}
		// The command cannot hold a NUL (it is an argument), so the text
		// and the files part cannot be confused.
		fmt.Fprintf(&b, "\x00file %d:%s %s", len(f), f, d)
		used = append(used, f)
	}
	return b.String(), used, nil
}

func fileDigest(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
