package aimodelc

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/anefix/anefix/graph/plist"
)

// manifestFile is the property list inside an .mpsgraphpackage.
const manifestFile = "manifest.plist"

// manifest is what anefix reads from an .mpsgraphpackage's manifest.plist.
type manifest struct {
	// Format is the property list's form (XML in every real package).
	Format plist.Format
	// Versions are the "Package Version" keys (e.g. "7.0.56"), sorted.
	Versions []string
	// ANERegionsHash maps an architecture to its ANERegionsHash string.
	ANERegionsHash map[string]string
	// Original is the "Original" file name (original_model_0.mpsgraph).
	Original string
	// Functions are the entry functions of every optimized module, sorted
	// by symbol then name.
	Functions []manifestFunction
	// Notes are the values found in a shape the real packages do not show,
	// each with its key path and the value; what depends on one is left
	// unknown, the rest is read.
	Notes []string
}

// manifestFunction is one entry function of an optimized module.
type manifestFunction struct {
	// Name is the descriptor's entryFunctionName.
	Name string
	// Symbol is the function's symbol in the specialized graph ("Key to
	// Symbol Name"); "" when the manifest does not map the descriptor.
	Symbol string
	// File is the module's "File Name" (specialized_model_1.mpsgraph); ""
	// when the module names none.
	File string
	// Attributes are the strings among the "Entry Function Attributes" of
	// Symbol, in order (mps.aneAlignedIO, mps.fullyPlacedOnANE, …).
	Attributes []string
	// Valued are the dictionary entries among them, "key = value" in
	// order (the value as plist.Describe prints it), such as
	// "mps.stateInputIndices = [0, 1]".
	Valued []string
	// StateInputs are the input indices mps.stateInputIndices names and
	// TokenResults the result indices of mps.tokenResIndices; Has* says
	// whether the manifest gave them (in a shape this reader reads).
	StateInputs, TokenResults       []int
	HasStateInputs, HasTokenResults bool
	// Arch is the third element of deviceDescriptor ("h18p"), if a string.
	Arch string
	// PreferredDevice and AllowedComputeDevices are the compilation
	// descriptor's integers; Has* says whether the key was there.
	PreferredDevice          int64
	HasPreferredDevice       bool
	AllowedComputeDevices    int64
	HasAllowedComputeDevices bool
	// UseANELLIR is the descriptor's useANELLIR, when present.
	UseANELLIR    bool
	HasUseANELLIR bool
}

// HasAttribute reports whether the entry function carries attribute a.
func (f *manifestFunction) HasAttribute(a string) bool {
	return slices.Contains(f.Attributes, a)
}

// descriptor is the JSON object each "Optimized Modules" key (and each "Key
// to Symbol Name" key) holds.
type descriptor struct {
	EntryFunctionName     string            `json:"entryFunctionName"`
	DeviceDescriptor      []json.RawMessage `json:"deviceDescriptor"`
	CompilationDescriptor map[string]any    `json:"compilationDescriptor"`
}

// describeMax bounds how much of an unexpected value a note shows.
const describeMax = 120

// parseManifest reads a manifest.plist (XML, binary or OpenStep property
// list) within the decoder's default limits. name is used in messages.
func parseManifest(data []byte, name string) (*manifest, error) {
	return parseManifestWithin(data, name, plist.Limits{})
}

// parseManifestWithin is parseManifest within lim. It fails only when data is not
// a property list (or passes a limit) or holds no "Package Version"
// dictionary; any other value of a shape the real packages do not show is
// a Note, and only what depends on it is left out.
func parseManifestWithin(data []byte, name string, lim plist.Limits) (*manifest, error) {
	root, res, err := plist.Decode(data, lim)
	if err != nil {
		return nil, fmt.Errorf("%s is not a property list anefix can read: %w", name, err)
	}
	top, ok := root.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: the top level is %s, want a dictionary", name, article(root))
	}
	pv, ok := top["Package Version"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf(`%s: no "Package Version" dictionary; this is not an .mpsgraphpackage manifest anefix knows`, name)
	}
	m := &manifest{Format: res.Format, ANERegionsHash: map[string]string{}}
	note := func(format string, args ...any) { m.Notes = append(m.Notes, fmt.Sprintf(format, args...)) }
	m.Versions = slices.Sorted(maps.Keys(pv))
	for _, v := range m.Versions {
		where := fmt.Sprintf(`%s: "Package Version"/%q`, name, v)
		pkg, ok := pv[v].(map[string]any)
		if !ok {
			note("%s is %s, want a dictionary; not read", where, article(pv[v]))
			continue
		}
		if h, ok := pkg["ANERegionsHash"]; ok {
			if hd, ok := h.(map[string]any); !ok {
				note("%s/ANERegionsHash is %s, want a dictionary; not read", where, article(h))
			} else {
				for _, arch := range slices.Sorted(maps.Keys(hd)) {
					if s, ok := hd[arch].(string); ok {
						m.ANERegionsHash[arch] = s
					} else {
						note("%s/ANERegionsHash/%q is %s, want a string; not read", where, arch, article(hd[arch]))
					}
				}
			}
		}
		if o, ok := pkg["Original"]; ok {
			if s, ok := o.(string); ok {
				m.Original = s
			} else {
				note("%s/Original is %s, want a string; not read", where, article(o))
			}
		}
		mods, ok := pkg["Optimized Modules"]
		if !ok {
			continue
		}
		md, ok := mods.(map[string]any)
		if !ok {
			note(`%s/"Optimized Modules" is %s, want a dictionary; no entry function is read from it`, where, article(mods))
			continue
		}
		for i, k := range slices.Sorted(maps.Keys(md)) {
			m.Functions = append(m.Functions, parseModule(k, md[k], fmt.Sprintf(`%s/"Optimized Modules" entry %d`, where, i+1), note)...)
		}
	}
	sort.SliceStable(m.Functions, func(i, j int) bool {
		a, b := m.Functions[i], m.Functions[j]
		if a.Symbol != b.Symbol {
			return a.Symbol < b.Symbol
		}
		return a.Name < b.Name
	})
	return m, nil
}

// parseModule reads one "Optimized Modules" entry: its key is a JSON array
// of JSON strings, each a descriptor object; its value names the file, the
// descriptor → symbol map and the attributes per symbol.
func parseModule(key string, val any, where string, note func(string, ...any)) []manifestFunction {
	var descs []string
	if err := json.Unmarshal([]byte(key), &descs); err != nil {
		note("%s: the key is not a JSON array of strings (%v); its functions are not read", where, err)
		return nil
	}
	mod, ok := val.(map[string]any)
	if !ok {
		note("%s: the value is %s, want a dictionary; its functions are read from the key only", where, article(val))
		mod = map[string]any{}
	}
	file := ""
	switch f := mod["File Name"].(type) {
	case string:
		file = f
	case nil:
		note(`%s: no "File Name"; the functions' specialized graph is unknown`, where)
	default:
		note(`%s: "File Name" is %s, want a string; the functions' specialized graph is unknown`, where, article(f))
	}
	symbols := map[string]string{} // entryFunctionName -> symbol
	if ks, ok := mod["Key to Symbol Name"]; ok {
		kd, ok := ks.(map[string]any)
		if !ok {
			note(`%s: "Key to Symbol Name" is %s, want a dictionary; no symbol is read`, where, article(ks))
		}
		conflicting := map[string]bool{}
		for _, dk := range slices.Sorted(maps.Keys(kd)) {
			sym, ok := kd[dk].(string)
			if !ok {
				note(`%s: a "Key to Symbol Name" value is %s, want a string; not read`, where, article(kd[dk]))
				continue
			}
			var d descriptor
			if err := json.Unmarshal([]byte(dk), &d); err != nil {
				note(`%s: a "Key to Symbol Name" key is not a JSON descriptor (%v); its symbol %q is not read`, where, err, sym)
				continue
			}
			if prev, dup := symbols[d.EntryFunctionName]; dup && prev != sym {
				note(`%s: "Key to Symbol Name" maps entry function %q to both %q and %q; its symbol is unknown`, where, d.EntryFunctionName, prev, sym)
				conflicting[d.EntryFunctionName] = true
			}
			symbols[d.EntryFunctionName] = sym
		}
		for fn := range conflicting {
			delete(symbols, fn)
		}
	}
	attrs := map[string]*manifestFunction{} // symbol -> the attribute fields
	if ea, ok := mod["Entry Function Attributes"]; ok {
		ed, ok := ea.(map[string]any)
		if !ok {
			note(`%s: "Entry Function Attributes" is %s, want a dictionary; not read`, where, article(ea))
		}
		for _, sym := range slices.Sorted(maps.Keys(ed)) {
			attrs[sym] = parseAttributes(ed[sym], fmt.Sprintf(`%s: "Entry Function Attributes"/%q`, where, sym), note)
		}
	}
	var out []manifestFunction
	for i, ds := range descs {
		var d descriptor
		if err := json.Unmarshal([]byte(ds), &d); err != nil {
			note("%s: descriptor %d is not a JSON object (%v); not read", where, i+1, err)
			continue
		}
		if d.EntryFunctionName == "" {
			note("%s: descriptor %d has no entryFunctionName; not read", where, i+1)
			continue
		}
		f := manifestFunction{Name: d.EntryFunctionName, Symbol: symbols[d.EntryFunctionName], File: file}
		if a := attrs[f.Symbol]; f.Symbol != "" && a != nil {
			f.Attributes, f.Valued = a.Attributes, a.Valued
			f.StateInputs, f.HasStateInputs = a.StateInputs, a.HasStateInputs
			f.TokenResults, f.HasTokenResults = a.TokenResults, a.HasTokenResults
		}
		if len(d.DeviceDescriptor) >= 3 {
			var arch string
			if json.Unmarshal(d.DeviceDescriptor[2], &arch) == nil {
				f.Arch = arch
			}
		}
		dwhere := fmt.Sprintf("%s: descriptor %d", where, i+1)
		cd := d.CompilationDescriptor
		if v, ok := intField(cd, "preferredDevice", dwhere, note); ok {
			f.PreferredDevice, f.HasPreferredDevice = v, true
		}
		if v, ok := intField(cd, "allowedComputeDevices", dwhere, note); ok {
			f.AllowedComputeDevices, f.HasAllowedComputeDevices = v, true
		}
		if v, ok := cd["useANELLIR"]; ok {
			if b, isBool := v.(bool); isBool {
				f.UseANELLIR, f.HasUseANELLIR = b, true
			} else {
				note("%s: compilationDescriptor.useANELLIR is %s, want true or false; not read", dwhere, jsonDescribe(v))
			}
		}
		out = append(out, f)
	}
	return out
}

// parseAttributes reads one symbol's "Entry Function Attributes": a list
// of strings (stateless packages) that may also hold dictionaries (stateful
// ones: {"mps.stateInputIndices": [0, 1]}, {"mps.tokenResIndices": [1,
// 2]}, coreai-facts §0). Any other element is noted and skipped.
func parseAttributes(v any, where string, note func(string, ...any)) *manifestFunction {
	f := &manifestFunction{}
	list, ok := v.([]any)
	if !ok {
		note("%s is %s, want an array; not read", where, article(v))
		return f
	}
	for i, e := range list {
		switch x := e.(type) {
		case string:
			f.Attributes = append(f.Attributes, x)
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				f.Valued = append(f.Valued, k+" = "+plist.Describe(x[k], describeMax))
				switch k {
				case "mps.stateInputIndices":
					f.StateInputs, f.HasStateInputs = indexList(x[k], where+": "+k, note)
				case "mps.tokenResIndices":
					f.TokenResults, f.HasTokenResults = indexList(x[k], where+": "+k, note)
				}
			}
		default:
			note("%s: element %d holds %s, want a string or a dictionary; not read", where, i+1, article(e))
		}
	}
	return f
}

// indexList reads an array of non-negative integers (input or result
// indices); anything else is noted and gives no list.
func indexList(v any, where string, note func(string, ...any)) ([]int, bool) {
	list, ok := v.([]any)
	if !ok {
		note("%s is %s, want an array of indices; not read", where, article(v))
		return nil, false
	}
	out := make([]int, 0, len(list))
	for _, e := range list {
		var n int64 = -1
		switch x := e.(type) {
		case int64:
			n = x
		case uint64:
			n = math.MaxInt32 + 1
		}
		if n < 0 || n > math.MaxInt32 {
			what := article(e)
			if n < 0 {
				if i, isInt := e.(int64); isInt {
					what = fmt.Sprint(i)
				}
			}
			note("%s holds %s, want indices 0 to %d; not read", where, what, math.MaxInt32)
			return nil, false
		}
		out = append(out, int(n))
	}
	return out, true
}

// intField reads an integral JSON number of a compilation descriptor.
func intField(m map[string]any, key, where string, note func(string, ...any)) (int64, bool) {
	v, ok := m[key]
	if !ok {
		return 0, false
	}
	f, isNum := v.(float64)
	if !isNum || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		note("%s: compilationDescriptor.%s is %s, want an integer; not read", where, key, jsonDescribe(v))
		return 0, false
	}
	return int64(f), true
}

// article names a property list value's kind with the value, for notes:
// `an integer (7)`, `a dictionary ({"x": true})`.
func article(v any) string {
	k := plist.KindOf(v)
	a := "a"
	if k == "integer" || k == "array" {
		a = "an"
	}
	if v == nil {
		return "nothing"
	}
	return fmt.Sprintf("%s %s (%s)", a, k, plist.Describe(v, describeMax))
}

// jsonDescribe shows a value decoded from a descriptor's JSON.
func jsonDescribe(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > describeMax {
		s = s[:describeMax] + "…"
	}
	return s
}

// errManifestLimit reports whether a manifest error came from a decoder
// limit, and which.
func manifestLimit(err error) (string, bool) {
	var pe *plist.Error
	if errors.As(err, &pe) && pe.Limit != "" {
		return pe.Limit, true
	}
	return "", false
}
