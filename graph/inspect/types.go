package inspect

// The report's domain types. They mirror proto/inspect.proto field for
// field; cmd/anefix converts them to the report schema (as it does for
// every other analysis), so this package does not depend on proto/.

// Inspection is what Report finds in a module.
type Inspection struct {
	TopLevelOp        string
	ModuleOpCounts    []*OpCount
	Dialects          []*DialectUse
	OpaquePropertyOps []*OpCount // ops whose properties are kept unread
	Graphs            []*GraphInspection
}

// GraphInspection is one coreai.graph or func.func.
type GraphInspection struct {
	Name          string
	Visibility    string
	Noinline      bool
	CompositeDecl string
	Inputs        []*Port
	Outputs       []*Port
	OpTotal       int32
	OpCounts      []*OpCount
	ElementTypes  []*TypeCount
	Fp32Islands   []*Fp32Island
	IoReshapes    []*IOReshape
	Invocations   []*Invocation
	// StateNotes: what the state analysis left unpaired and why.
	StateNotes []string
}

// Port is one graph input or output.
type Port struct {
	Name         string
	Index        int32
	Type         string
	IsState      bool
	StatePartner string
	Attributes   []string
	// State is set when the state analysis pairs the port (graph/states.go).
	State *statePair
}

// statePair says how a state's ports were paired.
type statePair struct{ Form, Kind, Evidence string }

// OpRef names one op; OpNumber is nil when its location carries no number.
type OpRef struct {
	OpID     string
	OpName   string
	Source   string
	Graph    string
	Index    int32
	OpNumber *uint32
}

// Value is one SSA value; DefinedBy is nil for a graph input, which
// InputName names.
type Value struct {
	Name      string
	Type      string
	DefinedBy *OpRef
	InputName string
}

// OpCount counts ops by name.
type OpCount struct {
	OpName string
	Count  int32
}

// TypeCount counts values by element type.
type TypeCount struct {
	Type  string
	Count int32
}

// Fp32Island is a connected set of f32 values and the casts around it.
type Fp32Island struct {
	Values     []*Value
	EntryCasts []*OpRef
	ExitCasts  []*OpRef
	FromInputs []string
	ToOutputs  []string
	Ops        []*OpRef
}

// IOReshape is an expand/shrink op at a graph input or output.
type IOReshape struct {
	Op       *OpRef
	Port     string
	IsOutput bool
	FromType string
	ToType   string
}

// Invocation counts the calls of one callee.
type Invocation struct {
	Callee    string
	Count     int32
	Composite string
}

// DialectUse is one dialect with its op count and, from a bytecode file's
// dialect table, its version.
type DialectUse struct {
	Name       string
	Ops        int32
	HasVersion bool
	VersionHex string
}
