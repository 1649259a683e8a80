package passes

import (
	"fmt"
	"sort"
	"strings"

	"github.com/anefix/anefix/graph"
)

// absentWeights lists the dense_resource keys the module's ops refer to
// that have no entry in its resources: published IR excerpts often leave
// out the `{-# dialect_resources … #-}` block that holds the weights.
func absentWeights(m *graph.Module) []string {
	refs, _ := m.ResourceRefs()
	var out []string
	have := m.ResourcesByKey()
	for k := range refs {
		if have[k] == nil {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// MarkAbsentWeights gives every absent weight an entry without a blob, so
// that a module that is complete except for its weights verifies and can be
// inspected and checked. Whatever needs the bytes (a pass converting them,
// the interpreter, a writer) still fails on such an entry, naming the key.
// Only read-only commands call it; it returns the keys it marked.
func MarkAbsentWeights(m *graph.Module) []string {
	keys := absentWeights(m)
	for _, k := range keys {
		m.Resources = append(m.Resources, &graph.Resource{Dialect: "builtin", Key: k, Kind: graph.BlobResource, Alignment: 1})
	}
	return keys
}

// AbsentWeightsNote says which weights are absent and what that allows.
func AbsentWeightsNote(keys []string) string {
	shown := keys
	more := ""
	if len(shown) > 5 {
		shown, more = shown[:5], fmt.Sprintf(" and %d more", len(keys)-5)
	}
	return fmt.Sprintf("the weights are absent: %d dense_resource blob(s) are not in the file (%s%s; no dialect_resources entry); the graph is shown and checked without them, but converting them, running the graph (verify) and writing a model need the bytes",
		len(keys), strings.Join(shown, ", "), more)
}
