package probe

import (
	"errors"
	"fmt"
	"strings"
)

// candidateEnv is the environment variable that holds the candidate's path
// while a test command runs. {} in the command becomes a reference to it,
// never the path itself, so no byte of a path (an input named
// `$(rm -rf ~)`, a quote, a backquote) is read as syntax by the shell that
// runs the command. A command that hands the path on to a second parser
// (`eval`, `sh -c "… {} …"`) gives that parser the path's bytes, as it
// would give any argument; in a nested shell write "$ANEFIX_CANDIDATE"
// inside single quotes, so the nested shell expands it itself.
const candidateEnv = "ANEFIX_CANDIDATE"

// The references {} becomes: outside quotes one double-quoted word;
// inside double quotes the bare reference, braced so that text after it
// (`"{}.log"`) is not read as part of the name.
const (
	refUnquoted = `"$` + candidateEnv + `"`
	refInDouble = `${` + candidateEnv + `}`
)

// Expand returns command with every {} replaced by a reference to
// $ANEFIX_CANDIDATE, quoted for where the {} stands: `{}` and `"{}"` both
// reach the program as the path, one word, whatever the path holds. A {}
// whose context the reference cannot be put into right is an error that
// says what to write instead: inside single quotes (a program there, such
// as `sh -c '…'` or `python -c '…'`, would parse the path itself), inside
// ${…}, inside backquotes within double quotes, or after a here-document.
// A command must hold a {} (outside single quotes) or name
// $ANEFIX_CANDIDATE. The reading of quotes follows POSIX sh closely
// enough for these contexts; where it errs (a `case` pattern's `)` inside
// $(…)), the worst outcome is a reference quoted for the wrong context,
// never a path read as code.
func Expand(command string) (string, error) {
	if strings.TrimSpace(command) == "" {
		return "", errors.New("empty test command")
	}
	var out strings.Builder
	type frame struct {
		kind  byte // 'd' double quotes, '(' $(…), '`' backquotes, '{' ${…}
		depth int  // open parentheses ( $(…) ) or braces ( ${…} ) inside
		inDQ  bool // backquotes opened inside double quotes
	}
	var stack []frame
	top := func() *frame {
		if len(stack) == 0 {
			return nil
		}
		return &stack[len(stack)-1]
	}
	n := 0
	heredoc := false
	wordStart := true
	refuse := func(i int, why, instead string) error {
		return fmt.Errorf("%s: {} at byte %d is %s; %s", quoteCmd(command), i, why, instead)
	}
	const useEnv = "write \"$" + candidateEnv + "\" there instead (the candidate's path, set for every test)"
	for i := 0; i < len(command); i++ {
		c := command[i]
		f := top()
		if strings.HasPrefix(command[i:], "{}") {
			switch {
			case f != nil && f.kind == '{':
				return "", refuse(i, "inside ${…}", useEnv)
			case f != nil && f.kind == '`' && f.inDQ:
				return "", refuse(i, "inside backquotes within double quotes, where sh's quoting is not defined", "use $(…) instead of backquotes")
			case heredoc:
				return "", refuse(i, "after a here-document (<<), whose quoting anefix does not read", useEnv)
			case f != nil && f.kind == 'd':
				out.WriteString(refInDouble)
			default:
				out.WriteString(refUnquoted)
			}
			n++
			i++
			wordStart = false
			continue
		}
		inDQ := f != nil && f.kind == 'd'
		startsWord := wordStart
		wordStart = false
		switch {
		case c == '\\' && i+1 < len(command):
			out.WriteByte(c)
			i++
			out.WriteByte(command[i])
			continue
		case c == '\'' && !inDQ && (f == nil || f.kind != '{'):
			end := strings.IndexByte(command[i+1:], '\'')
			if end < 0 {
				end = len(command) - i - 1
			}
			body := command[i+1 : i+1+end]
			if j := strings.Index(body, "{}"); j >= 0 {
				return "", refuse(i+1+j, "inside single quotes, where a reference is not expanded and the program given that text (sh -c, python -c, awk) would read the path itself",
					"write {} outside the quotes, or \"$"+candidateEnv+"\" inside them for a nested shell")
			}
			out.WriteString(command[i : i+1+end])
			if i+1+end < len(command) {
				out.WriteByte('\'')
			}
			i += end + 1
			continue
		case c == '"' && inDQ:
			stack = stack[:len(stack)-1]
		case c == '"' && (f == nil || f.kind != '{'):
			stack = append(stack, frame{kind: 'd'})
		case c == '`' && f != nil && f.kind == '`':
			stack = stack[:len(stack)-1]
		case c == '`':
			stack = append(stack, frame{kind: '`', inDQ: inDQ})
		case c == '$' && strings.HasPrefix(command[i+1:], "("):
			stack = append(stack, frame{kind: '('})
			out.WriteString("$(")
			i++
			continue
		case c == '$' && strings.HasPrefix(command[i+1:], "{"):
			stack = append(stack, frame{kind: '{'})
			out.WriteString("${")
			i++
			continue
		case c == '(' && f != nil && f.kind == '(':
			f.depth++
		case c == ')' && f != nil && f.kind == '(':
			if f.depth == 0 {
				stack = stack[:len(stack)-1]
			} else {
				f.depth--
			}
		case c == '{' && f != nil && f.kind == '{':
			f.depth++
		case c == '}' && f != nil && f.kind == '{':
			if f.depth == 0 {
				stack = stack[:len(stack)-1]
			} else {
				f.depth--
			}
		case c == '#' && startsWord && !inDQ && (f == nil || f.kind != '{'):
			// A comment runs to the end of the line; quotes in it are
			// text, and a {} in it is left as it is.
			end := strings.IndexByte(command[i:], '\n')
			if end < 0 {
				end = len(command) - i
			}
			out.WriteString(command[i : i+end])
			i += end - 1
			continue
		case c == '<' && !inDQ && strings.HasPrefix(command[i:], "<<") && !strings.HasPrefix(command[i:], "<<<"):
			heredoc = true
			out.WriteString("<<")
			i++
			continue
		}
		if !inDQ && strings.IndexByte(" \t\n;&|()", c) >= 0 {
			wordStart = true
		}
		out.WriteByte(c)
	}
	if n == 0 && !strings.Contains(command, candidateEnv) {
		return "", fmt.Errorf("%s has no {} (where the candidate's path goes) and does not name $%s", quoteCmd(command), candidateEnv)
	}
	return out.String(), nil
}

// quoteCmd shows a command in a message.
func quoteCmd(s string) string { return fmt.Sprintf("test command %q", s) }
