package graph

// valueSets groups values into disjoint sets (union-find with path
// halving). Passes and analyses use it to find connected islands of values,
// such as the f32 values a pair of casts encloses.
type valueSets struct{ parent map[*Value]*Value }

// NewValueSets returns empty sets.
func NewValueSets() *valueSets { return &valueSets{parent: map[*Value]*Value{}} }

// Add makes v a member (its own set if new).
func (s *valueSets) Add(v *Value) {
	if _, ok := s.parent[v]; !ok {
		s.parent[v] = v
	}
}

// Has reports whether v was added.
func (s *valueSets) Has(v *Value) bool {
	countWork(workLookups, 1)
	_, ok := s.parent[v]
	return ok
}

// Find returns the representative of v's set (adding v if new).
func (s *valueSets) Find(v *Value) *Value {
	s.Add(v)
	countWork(workLookups, 1)
	for s.parent[v] != v {
		countWork(workLookups, 1)
		s.parent[v] = s.parent[s.parent[v]]
		v = s.parent[v]
	}
	return v
}

// Union merges the sets of a and b; a's representative stays the
// representative, so the first value seen names an island.
func (s *valueSets) Union(a, b *Value) {
	ra, rb := s.Find(a), s.Find(b)
	if ra != rb {
		s.parent[rb] = ra
	}
}
