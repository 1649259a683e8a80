package graph

// NameFinder finds which of a set of names occur in a text as substrings
// (how anefix tells whether attribute text it cannot read, such as an
// opaque dialect attribute, may name a graph or a resource). It scans a
// text once whatever the number of names (an Aho-Corasick automaton), where
// strings.Contains per name took time in the product of texts and names.
type NameFinder struct {
	names []string
	next  map[uint64]int32 // the trie's edges, keyed by state<<8 | byte
	fail  []int32          // a state's longest proper suffix that is a state
	out   []int32          // the name a state spells, or -1
	dict  []int32          // the nearest state on the failure chain spelling a name, or -1
	// seen stamps the states reported for the current text (Find).
	seen  []uint32
	stamp uint32
	empty int // the index of a name "" (in every text), or -1
}

type nameEdge struct {
	b  byte
	to int32
}

// NewNameFinder prepares a finder of names (duplicates are found once).
func NewNameFinder(names []string) *NameFinder {
	f := &NameFinder{next: map[uint64]int32{}, out: []int32{-1}, empty: -1}
	kids := [][]nameEdge{nil}
	n := 0
	for _, name := range names {
		n += len(name)
		if name == "" {
			if f.empty < 0 {
				f.empty = len(f.names)
				f.names = append(f.names, name)
			}
			continue
		}
		s := int32(0)
		for i := 0; i < len(name); i++ {
			key := uint64(s)<<8 | uint64(name[i])
			t, ok := f.next[key]
			if !ok {
				t = int32(len(f.out))
				f.next[key] = t
				kids[s] = append(kids[s], nameEdge{name[i], t})
				kids = append(kids, nil)
				f.out = append(f.out, -1)
			}
			s = t
		}
		if f.out[s] < 0 {
			f.out[s] = int32(len(f.names))
			f.names = append(f.names, name)
		}
	}
	countWork(workLookups, n)
	f.fail = make([]int32, len(f.out))
	f.dict = make([]int32, len(f.out))
	f.seen = make([]uint32, len(f.out))
	f.dict[0] = -1
	// Breadth first: a state's failure link is set before its children's.
	queue := make([]int32, 0, len(f.out))
	for _, e := range kids[0] {
		f.fail[e.to], f.dict[e.to] = 0, -1
		queue = append(queue, e.to)
	}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, e := range kids[u] {
			v := e.to
			f.fail[v] = f.step(f.fail[u], e.b)
			if w := f.fail[v]; f.out[w] >= 0 {
				f.dict[v] = w
			} else {
				f.dict[v] = f.dict[w]
			}
			queue = append(queue, v)
		}
	}
	return f
}

// step is the automaton's move from state s on byte b.
func (f *NameFinder) step(s int32, b byte) int32 {
	for {
		if t, ok := f.next[uint64(s)<<8|uint64(b)]; ok {
			return t
		}
		if s == 0 {
			return 0
		}
		s = f.fail[s]
	}
}

// Find calls found once for each name that occurs in text.
func (f *NameFinder) Find(text string, found func(name string)) {
	countWork(workLookups, len(text))
	if f.empty >= 0 {
		found(f.names[f.empty])
	}
	if len(f.out) == 1 {
		return
	}
	f.stamp++
	if f.stamp == 0 { // wrapped: clear the stamps
		clear(f.seen)
		f.stamp = 1
	}
	s := int32(0)
	for i := 0; i < len(text); i++ {
		s = f.step(s, text[i])
		t := s
		if f.out[t] < 0 {
			t = f.dict[t]
		}
		// A state reported for this text had its whole chain reported.
		for t > 0 && f.seen[t] != f.stamp {
			f.seen[t] = f.stamp
			found(f.names[f.out[t]])
			t = f.dict[t]
		}
	}
}
