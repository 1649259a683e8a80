package main

import (
	"bytes"
	"github.com/anefix/anefix/passes"
	"strings"

	"github.com/spf13/pflag"

	"github.com/anefix/anefix/graph/bundle"
	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
	"github.com/anefix/anefix/proto/pbview"
)

// viewFlags are check's drawn outputs: --html FILE and --dot FILE (each
// "-" for stdout), replaced only with --force.
type viewFlags struct {
	html, dot string
	force     bool
}

func (v *viewFlags) declare(fs *pflag.FlagSet) {
	fs.StringVar(&v.html, "html", "", "write the graph view (one self-contained HTML page: ops coloured by predicted device, grouped, searchable) to FILE, or - for stdout")
	fs.StringVar(&v.dot, "dot", "", "write the graph as Graphviz DOT to FILE, or - for stdout")
	declareForce(fs, &v.force)
}

// any is whether a drawn output was asked for.
func (v *viewFlags) any() bool { return v.html != "" || v.dot != "" }

// stdout is whether a drawn output goes to stdout (the text report is
// then not printed).
func (v *viewFlags) stdout() bool { return v.html == "-" || v.dot == "-" }

// vet rejects what cannot be honoured, before any work: two things on
// stdout, a path inside the input, an existing file without --force.
func (v *viewFlags) vet(in string, asJSON bool) error {
	switch {
	case v.html == "-" && v.dot == "-":
		return usagef("--html - and --dot - would both write stdout; give one a file")
	case asJSON && v.stdout():
		return usagef("--json prints the report on stdout; give --html/--dot a file")
	case v.html != "" && v.html == v.dot:
		return usagef("--html and --dot name the same file %s", v.html)
	case v.force && !v.any():
		return usagef("--force replaces an existing --html or --dot file; give one")
	}
	for _, o := range []struct{ flag, path string }{{"--html", v.html}, {"--dot", v.dot}} {
		if o.path == "" || o.path == "-" {
			continue
		}
		if err := checkSideOutput(o.flag, o.path, in, "", v.force); err != nil {
			return err
		}
	}
	return nil
}

// write draws msg (the JSON report, with its per-graph findings and ops)
// into the files asked for, each put in place atomically, or on stdout.
func (v *viewFlags) write(env *Env, msg *pb.CheckReport) error {
	// The page's verdict is the text report's headline, word for word.
	var head bytes.Buffer
	tc := &textChunks{w: &head}
	writeCheckHeadline(tc, pbprint.ForText(msg))
	if err := tc.Flush(); err != nil {
		return err
	}
	return v.writeWith(env, msg, pbview.Options{Headline: strings.Split(strings.TrimRight(head.String(), "\n"), "\n"), FixCommand: fixCommand})
}

// writeWith is write with the drawing's options given (diff: its summary
// and changes).
func (v *viewFlags) writeWith(env *Env, msg *pb.CheckReport, o pbview.Options) error {
	for _, out := range []struct {
		path string
		draw func(*bytes.Buffer) error
	}{
		{v.html, func(b *bytes.Buffer) error { return pbview.HTML(b, msg, o) }},
		{v.dot, func(b *bytes.Buffer) error { return pbview.DOT(b, msg, o) }},
	} {
		if out.path == "" {
			continue
		}
		var b bytes.Buffer
		if err := out.draw(&b); err != nil {
			return err
		}
		if out.path == "-" {
			if _, err := env.Stdout.Write(b.Bytes()); err != nil {
				return err
			}
			continue
		}
		if err := bundle.WriteFile(out.path, b.Bytes(), v.force, nil); err != nil {
			return err
		}
	}
	return nil
}

// fixCommand is how a user runs pass: a plain rewrite when the pass is on
// by default, else the rewrite that enables it.
func fixCommand(pass string) string {
	if p, ok := passes.Lookup(pass); ok && p.DefaultOn {
		return "anefix rewrite (" + pass + " is on by default)"
	}
	return "anefix rewrite --enable " + pass
}
