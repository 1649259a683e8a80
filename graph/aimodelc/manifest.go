package aimodelc

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"howett.net/plist"
)

// ManifestFile is the property list inside an .mpsgraphpackage.
const ManifestFile = "manifest.plist"

// Manifest is what anefix reads from an .mpsgraphpackage's manifest.plist.
type Manifest struct {
	// Versions are the "Package Version" keys (e.g. "7.0.56"), sorted.
	Versions []string
	// ANERegionsHash maps an architecture to its ANERegionsHash string.
	ANERegionsHash map[string]string
	// Original is the "Original" file name (original_model_0.mpsgraph).
	Original string
	// Functions are the entry functions of every optimized module, sorted
	// by symbol then name.
	Functions []ManifestFunction
}

// ManifestFunction is one entry function of an optimized module.
type ManifestFunction struct {
	// Name is the descriptor's entryFunctionName.
	Name string
	// Symbol is the function's symbol in the specialized graph ("Key to
	// Symbol Name"); "" when the manifest does not map the descriptor.
	Symbol string
	// File is the module's "File Name" (specialized_model_1.mpsgraph).
	File string
	// Attributes are the "Entry Function Attributes" of Symbol, as listed.
	Attributes []string
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
func (f *ManifestFunction) HasAttribute(a string) bool {
	for _, x := range f.Attributes {
		if x == a {
			return true
		}
	}
	return false
}

// descriptor is the JSON object each "Optimized Modules" key (and each "Key
// to Symbol Name" key) holds.
type descriptor struct {
	EntryFunctionName     string            `json:"entryFunctionName"`
	DeviceDescriptor      []json.RawMessage `json:"deviceDescriptor"`
	CompilationDescriptor map[string]any    `json:"compilationDescriptor"`
}

// ParseManifest reads a manifest.plist (XML, binary or OpenStep property
// list). name is used in errors. Anything that is not the layout the real
// packages show is an error naming the key path, never a guessed value.
func ParseManifest(data []byte, name string) (*Manifest, error) {
	var root any
	if _, err := plist.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s is not a property list: %v", name, err)
	}
	top, ok := root.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: the top level is a %s, want a dictionary", name, kindOf(root))
	}
	pv, ok := top["Package Version"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf(`%s: no "Package Version" dictionary; this is not an .mpsgraphpackage manifest anefix knows`, name)
	}
	m := &Manifest{ANERegionsHash: map[string]string{}}
	for v := range pv {
		m.Versions = append(m.Versions, v)
	}
	sort.Strings(m.Versions)
	for _, v := range m.Versions {
		pkg, ok := pv[v].(map[string]any)
		if !ok {
			return nil, fmt.Errorf(`%s: "Package Version"/%q is a %s, want a dictionary`, name, v, kindOf(pv[v]))
		}
		where := fmt.Sprintf(`%s: "Package Version"/%q`, name, v)
		if h, ok := pkg["ANERegionsHash"]; ok {
			hd, ok := h.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s/ANERegionsHash is a %s, want a dictionary", where, kindOf(h))
			}
			for _, arch := range slices.Sorted(maps.Keys(hd)) {
				s := hd[arch]
				str, ok := s.(string)
				if !ok {
					return nil, fmt.Errorf("%s/ANERegionsHash/%q is a %s, want a string", where, arch, kindOf(s))
				}
				m.ANERegionsHash[arch] = str
			}
		}
		if o, ok := pkg["Original"].(string); ok {
			m.Original = o
		}
		mods, ok := pkg["Optimized Modules"]
		if !ok {
			continue
		}
		md, ok := mods.(map[string]any)
		if !ok {
			return nil, fmt.Errorf(`%s/"Optimized Modules" is a %s, want a dictionary`, where, kindOf(mods))
		}
		for i, k := range slices.Sorted(maps.Keys(md)) {
			fns, err := parseModule(k, md[k], fmt.Sprintf(`%s/"Optimized Modules" entry %d`, where, i+1))
			if err != nil {
				return nil, err
			}
			m.Functions = append(m.Functions, fns...)
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
func parseModule(key string, val any, where string) ([]ManifestFunction, error) {
	var descs []string
	if err := json.Unmarshal([]byte(key), &descs); err != nil {
		return nil, fmt.Errorf("%s: the key is not a JSON array of strings: %v", where, err)
	}
	mod, ok := val.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: the value is a %s, want a dictionary", where, kindOf(val))
	}
	file, _ := mod["File Name"].(string)
	if file == "" {
		return nil, fmt.Errorf(`%s: no "File Name" string`, where)
	}
	symbols := map[string]string{} // entryFunctionName -> symbol
	if ks, ok := mod["Key to Symbol Name"]; ok {
		kd, ok := ks.(map[string]any)
		if !ok {
			return nil, fmt.Errorf(`%s: "Key to Symbol Name" is a %s, want a dictionary`, where, kindOf(ks))
		}
		for _, dk := range slices.Sorted(maps.Keys(kd)) {
			sv := kd[dk]
			sym, ok := sv.(string)
			if !ok {
				return nil, fmt.Errorf(`%s: a "Key to Symbol Name" value is a %s, want a string`, where, kindOf(sv))
			}
			var d descriptor
			if err := json.Unmarshal([]byte(dk), &d); err != nil {
				return nil, fmt.Errorf(`%s: a "Key to Symbol Name" key is not a JSON descriptor: %v`, where, err)
			}
			if prev, dup := symbols[d.EntryFunctionName]; dup && prev != sym {
				return nil, fmt.Errorf(`%s: "Key to Symbol Name" maps entry function %q to both %q and %q`, where, d.EntryFunctionName, prev, sym)
			}
			symbols[d.EntryFunctionName] = sym
		}
	}
	attrs := map[string][]string{}
	if ea, ok := mod["Entry Function Attributes"]; ok {
		ed, ok := ea.(map[string]any)
		if !ok {
			return nil, fmt.Errorf(`%s: "Entry Function Attributes" is a %s, want a dictionary`, where, kindOf(ea))
		}
		for _, sym := range slices.Sorted(maps.Keys(ed)) {
			list := ed[sym]
			arr, ok := list.([]any)
			if !ok {
				return nil, fmt.Errorf(`%s: "Entry Function Attributes"/%q is a %s, want an array`, where, sym, kindOf(list))
			}
			for _, a := range arr {
				s, ok := a.(string)
				if !ok {
					return nil, fmt.Errorf(`%s: "Entry Function Attributes"/%q holds a %s, want strings`, where, sym, kindOf(a))
				}
				attrs[sym] = append(attrs[sym], s)
			}
		}
	}
	var out []ManifestFunction
	for i, ds := range descs {
		var d descriptor
		if err := json.Unmarshal([]byte(ds), &d); err != nil {
			return nil, fmt.Errorf("%s: descriptor %d is not a JSON object: %v", where, i+1, err)
		}
		if d.EntryFunctionName == "" {
			return nil, fmt.Errorf("%s: descriptor %d has no entryFunctionName", where, i+1)
		}
		f := ManifestFunction{Name: d.EntryFunctionName, Symbol: symbols[d.EntryFunctionName], File: file}
		f.Attributes = attrs[f.Symbol]
		if len(d.DeviceDescriptor) >= 3 {
			var arch string
			if json.Unmarshal(d.DeviceDescriptor[2], &arch) == nil {
				f.Arch = arch
			}
		}
		cd := d.CompilationDescriptor
		if v, ok, err := intField(cd, "preferredDevice"); err != nil {
			return nil, fmt.Errorf("%s: descriptor %d: %v", where, i+1, err)
		} else if ok {
			f.PreferredDevice, f.HasPreferredDevice = v, true
		}
		if v, ok, err := intField(cd, "allowedComputeDevices"); err != nil {
			return nil, fmt.Errorf("%s: descriptor %d: %v", where, i+1, err)
		} else if ok {
			f.AllowedComputeDevices, f.HasAllowedComputeDevices = v, true
		}
		if v, ok := cd["useANELLIR"]; ok {
			b, isBool := v.(bool)
			if !isBool {
				return nil, fmt.Errorf("%s: descriptor %d: useANELLIR is a %s, want true or false", where, i+1, kindOf(v))
			}
			f.UseANELLIR, f.HasUseANELLIR = b, true
		}
		out = append(out, f)
	}
	return out, nil
}

// intField reads an integral JSON number.
func intField(m map[string]any, key string) (int64, bool, error) {
	v, ok := m[key]
	if !ok {
		return 0, false, nil
	}
	f, isNum := v.(float64)
	if !isNum || f != float64(int64(f)) {
		return 0, false, fmt.Errorf("compilationDescriptor.%s is %v, want an integer", key, v)
	}
	return int64(f), true, nil
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "nothing"
	case map[string]any:
		return "dictionary"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case []byte:
		return "data"
	}
	return strings.TrimPrefix(fmt.Sprintf("%T", v), "*")
}
