package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	pb "github.com/anefix/anefix/proto/anefixpb"
	"github.com/anefix/anefix/proto/pbprint"
)

// Release stamps, set by .ci/release with -ldflags "-X main.version=...":
// the release name and the commit it was built from, its time (RFC 3339)
// and "true" when the tree had uncommitted changes. The commit stamp
// exists because the go command records no VCS information in some
// checkouts (a git worktree, -buildvcs=false); without stamps the build
// info's vcs.* settings are used.
var (
	version      = ""
	commit       = ""
	commitTime   = ""
	treeModified = ""
)

const devVersion = "0.1.0-dev"

// buildStamp is what --version reports about a build.
type buildStamp struct {
	Version, Commit, Time string
	Modified              bool
	Go                    string
}

// stampOf merges the -X stamps with the build info (ok false: none): a
// stamp wins; the version falls back to the module version that `go
// install module@version` records, then to devVersion.
func stampOf(bi *debug.BuildInfo, ok bool) buildStamp {
	s := buildStamp{Version: version, Commit: commit, Time: commitTime, Modified: treeModified == "true", Go: runtime.Version()}
	if !ok {
		if s.Version == "" {
			s.Version = devVersion
		}
		return s
	}
	if s.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		s.Version = bi.Main.Version
	}
	if s.Version == "" {
		s.Version = devVersion
	}
	if s.Commit == "" {
		for _, kv := range bi.Settings {
			switch kv.Key {
			case "vcs.revision":
				s.Commit = kv.Value
			case "vcs.time":
				s.Time = kv.Value
			case "vcs.modified":
				s.Modified = kv.Value == "true"
			}
		}
	}
	if bi.GoVersion != "" {
		s.Go = bi.GoVersion
	}
	return s
}

// currentStamp is this binary's stamp.
func currentStamp() buildStamp { return stampOf(debug.ReadBuildInfo()) }

// toolName is "anefix VERSION", the tool an output's record names (no
// commit, so outputs read the same from every build of one release).
func toolName() string { return "anefix " + currentStamp().Version }

// runVersion is `anefix --version [--json]` (also `anefix version`): the
// text, or the VersionInfo message.
func runVersion(env *Env, name string, args []string) int {
	asJSON := len(args) == 1 && args[0] == "--json"
	if len(args) > 0 && !asJSON {
		fmt.Fprintf(env.Stderr, "anefix %s: takes only --json (got %q)\n", name, args[0])
		return exitUsage
	}
	s := currentStamp()
	if !asJSON {
		fmt.Fprint(env.Stdout, s.text())
		return exitOK
	}
	out, err := pbprint.Marshal(s.proto())
	if err != nil {
		fmt.Fprintf(env.Stderr, "anefix %s: %v\n", name, err)
		return exitFailure
	}
	env.Stdout.Write(out)
	return exitOK
}

// proto is s as anefix.v1.VersionInfo: commit, date and dirty absent when
// the build has no commit stamp (as the text says "unknown").
func (s buildStamp) proto() *pb.VersionInfo {
	v := &pb.VersionInfo{SchemaVersion: pbprint.SchemaVersion, Version: s.Version, GoVersion: s.Go, Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if s.Commit != "" {
		v.Commit, v.Dirty = &s.Commit, &s.Modified
		if s.Time != "" {
			v.Date = &s.Time
		}
	}
	return v
}

// text is what `anefix --version` prints. Without a commit (go run, go
// test, a build without VCS information) it says so rather than invent one.
func (s buildStamp) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "anefix %s\n", s.Version)
	if s.Commit == "" {
		b.WriteString("commit: unknown (no VCS stamp: go run, go test, or a build without VCS information; .ci/release stamps one)\n")
	} else {
		fmt.Fprintf(&b, "commit: %s\n", s.Commit)
		if s.Time != "" {
			fmt.Fprintf(&b, "date:   %s\n", s.Time)
		}
		state := "clean"
		if s.Modified {
			state = "dirty (built with uncommitted changes)"
		}
		fmt.Fprintf(&b, "tree:   %s\n", state)
	}
	fmt.Fprintf(&b, "go:     %s %s/%s\n", s.Go, runtime.GOOS, runtime.GOARCH)
	return b.String()
}
