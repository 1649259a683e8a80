package passes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/anefix/anefix/graph"
)

// cleanupCase runs one pass on a small module and checks the printed result.
type cleanupCase struct {
	name        string
	text        string
	wantRemoved int
	want        []string
	notWant     []string
	check       func(t *testing.T, m *graph.Module, ch *Change)
}

func runCleanupCases(t *testing.T, pass string, cases []cleanupCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := ptParse(t, tc.text)
			res, err := ptRun(t, m, Spec{Passes: []string{pass}})
			if err != nil {
				t.Fatal(err)
			}
			ch := res.Steps[0].Change
			out := ptPrint(t, m)
			if ch.OpsRemoved != tc.wantRemoved {
				t.Errorf("OpsRemoved = %d, want %d:\n%s", ch.OpsRemoved, tc.wantRemoved, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
			if tc.check != nil {
				tc.check(t, m, ch)
			}
		})
	}
}

func TestFoldCasts(t *testing.T) {
	pair := func(a, b string) string {
		return `module {
  coreai.graph @main(%x: tensor<4x` + a + `>) -> tensor<4x` + a + `> {
    %0 = coreai.cast %x : tensor<4x` + a + `> to tensor<4x` + b + `>
    %1 = coreai.cast %0 : tensor<4x` + b + `> to tensor<4x` + a + `>
    coreai.output %1 : tensor<4x` + a + `>
  }
}`
	}
	runCleanupCases(t, "fold-casts", []cleanupCase{
		{name: "f16 to f32 and back folds", text: pair("f16", "f32"), wantRemoved: 2, notWant: []string{"coreai.cast"}, want: []string{"coreai.output %arg0"}},
		{name: "bf16 to f32 and back folds", text: pair("bf16", "f32"), wantRemoved: 2},
		{name: "si8 to si32 and back folds", text: pair("si8", "si32"), wantRemoved: 2},
		{name: "ui8 to si16 and back folds", text: pair("ui8", "si16"), wantRemoved: 2},
		{name: "f32 to f16 and back rounds: kept", text: pair("f32", "f16"), wantRemoved: 0},
		{name: "si32 to si8 and back wraps: kept", text: pair("si32", "si8"), wantRemoved: 0},
		{name: "ui16 to si16 and back: kept", text: pair("ui16", "si16"), wantRemoved: 0},
		{name: "f16 to si32 and back: kept", text: pair("f16", "si32"), wantRemoved: 0},
		{
			name: "identity cast",
			text: `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf16>
    %1 = coreai.exp %0 : tensor<4xf16> -> tensor<4xf16>
    coreai.output %1 : tensor<4xf16>
  }
}`,
			wantRemoved: 1, want: []string{"coreai.exp %arg0"},
		},
		{
			name: "inner cast still read elsewhere stays",
			text: `module {
  coreai.graph @main(%x: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf32>) {
    %0 = coreai.cast %x : tensor<4xf16> to tensor<4xf32>
    %1 = coreai.cast %0 : tensor<4xf32> to tensor<4xf16>
    coreai.output %1, %0 : tensor<4xf16>, tensor<4xf32>
  }
}`,
			wantRemoved: 1, want: []string{"coreai.output %arg0, %0"},
		},
	})
}

func TestDCE(t *testing.T) {
	runCleanupCases(t, "dce", []cleanupCase{
		{
			name: "dead chain and its constant and blob",
			text: `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %w = coreai.constant dense_resource<w0> : tensor<4xf16>
    %0 = coreai.decomposable.broadcasting_mul %x, %w : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %1 = coreai.exp %0 : tensor<4xf16> -> tensor<4xf16>
    %2 = coreai.sigmoid %x : tensor<4xf16> -> tensor<4xf16>
    coreai.output %2 : tensor<4xf16>
  }
}
{-#
  dialect_resources: {
    builtin: {
      w0: "0x02000000003C003C003C003C",
      other: "0x02000000003C"
    }
  }
#-}`,
			wantRemoved: 3,
			notWant:     []string{"exp", "broadcasting_mul", "w0", "other"},
			want:        []string{"coreai.sigmoid"},
		},
		{
			name: "referenced blob stays",
			text: `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    %w = coreai.constant dense_resource<w0> : tensor<4xf16>
    %0 = coreai.decomposable.broadcasting_mul %x, %w : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    coreai.output %0 : tensor<4xf16>
  }
}
{-#
  dialect_resources: {
    builtin: {
      w0: "0x02000000003C003C003C003C"
    }
  }
#-}`,
			wantRemoved: 0,
			want:        []string{"w0: \"0x02000000003C003C003C003C\""},
		},
		{
			name: "ops with side effects stay",
			text: `module {
  coreai.graph @main(%x: tensor<4xf16>, %h: !coreai.handle<tensor<4xf16>>) -> tensor<4xf16> {
    %t = "coreai.create_token"() : () -> !coreai.token
    %r:2 = "coreai.read_handle"(%h, %t) : (!coreai.handle<tensor<4xf16>>, !coreai.token) -> (tensor<4xf16>, !coreai.token)
    %w = "coreai.write_handle"(%h, %x, %t) : (!coreai.handle<tensor<4xf16>>, tensor<4xf16>, !coreai.token) -> !coreai.token
    "coreai.frob"(%x) : (tensor<4xf16>) -> ()
    %u = "other.thing"(%x) : (tensor<4xf16>) -> tensor<4xf16>
    %m = "coreai.mutable_slice_update"(%x, %x) : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xf16>
    %i = coreai.invoke @f(%x) : (tensor<4xf16>) -> tensor<4xf16>
    coreai.output %x : tensor<4xf16>
  }
  coreai.graph private @f(%a: tensor<4xf16>) -> tensor<4xf16> {
    coreai.output %a : tensor<4xf16>
  }
}`,
			wantRemoved: 0,
			want:        []string{"create_token", "read_handle", "write_handle", "coreai.frob", "other.thing", "mutable_slice_update", "coreai.invoke", "@f("},
		},
		{
			name: "unused private graph goes, public stays",
			text: `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    coreai.output %x : tensor<4xf16>
  }
  coreai.graph @other(%x: tensor<4xf16>) -> tensor<4xf16> {
    coreai.output %x : tensor<4xf16>
  }
  coreai.graph private @unused(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.invoke @inner(%x) : (tensor<4xf16>) -> tensor<4xf16>
    coreai.output %0 : tensor<4xf16>
  }
  coreai.graph private @inner(%x: tensor<4xf16>) -> tensor<4xf16> {
    coreai.output %x : tensor<4xf16>
  }
}`,
			want:    []string{"@main", "@other"},
			notWant: []string{"@unused", "@inner"},
			check: func(t *testing.T, m *graph.Module, ch *Change) {
				if len(ch.Notes) != 2 {
					t.Errorf("notes = %q", ch.Notes)
				}
			},
		},
		{
			// Each calls the one before it, so only the last is unused at
			// first; the others go as their callers do. A graph that
			// calls itself is no use of itself.
			name: "dead chain of private graphs goes from its end",
			text: `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    coreai.output %x : tensor<4xf16>
  }
  coreai.graph private @c0(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.invoke @c0(%x) : (tensor<4xf16>) -> tensor<4xf16>
    coreai.output %0 : tensor<4xf16>
  }
  coreai.graph private @c1(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.invoke @c0(%x) : (tensor<4xf16>) -> tensor<4xf16>
    coreai.output %0 : tensor<4xf16>
  }
  coreai.graph private @c2(%x: tensor<4xf16>) -> tensor<4xf16> {
    %0 = coreai.invoke @c1(%x) : (tensor<4xf16>) -> tensor<4xf16>
    coreai.output %0 : tensor<4xf16>
  }
}`,
			want:    []string{"@main"},
			notWant: []string{"@c0", "@c1", "@c2"},
			check: func(t *testing.T, m *graph.Module, ch *Change) {
				want := "[removed private graph @c2 (no op calls it) removed private graph @c1 (no op calls it) removed private graph @c0 (no op calls it)]"
				if got := fmt.Sprint(ch.Notes); got != want {
					t.Errorf("notes = %s, want %s", got, want)
				}
			},
		},
		{
			// Attribute text anefix cannot read names @kept: kept, as
			// long as the op holding it stays.
			name: "opaque text naming a private graph keeps it",
			text: `module {
  coreai.graph @main(%x: tensor<4xf16>) -> tensor<4xf16> {
    "other.use"() {ref = #other.thing<"@kept">} : () -> ()
    coreai.output %x : tensor<4xf16>
  }
  coreai.graph private @kept(%x: tensor<4xf16>) -> tensor<4xf16> {
    coreai.output %x : tensor<4xf16>
  }
  coreai.graph private @gone(%x: tensor<4xf16>) -> tensor<4xf16> {
    coreai.output %x : tensor<4xf16>
  }
}`,
			want:    []string{"@main", "@kept"},
			notWant: []string{"@gone"},
		},
	})
}
