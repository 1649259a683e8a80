package statenames

import (
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	cases := map[string]string{
		"conv_state":       "conv state",
		"convState":        "conv state",
		"ConvState0":       "conv state 0",
		"conv-state-12":    "conv state 12",
		"SSMState":         "ssm state",
		"recurrent_states": "recurrent state",
		"new_k_cache":      "new k cache",
		"conv_state_out_3": "conv state out 3",
	}
	for in, want := range cases {
		if got := strings.Join(Words(in), " "); got != want {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatcher(t *testing.T) {
	pm := New([]string{"conv", "ssm"}, []string{"out", "new"}, false)
	kv := New([]string{"conv"}, []string{"out", "new"}, true)
	for _, c := range []struct {
		m    *Matcher
		name string
		want bool
	}{
		{pm, "conv_state", true}, {pm, "SSMState", true}, {pm, "hidden_state", false},
		{pm, "key_cache", false}, {kv, "key_cache", true}, {kv, "cache", false},
	} {
		if got := c.m.Candidate(c.name); got != c.want {
			t.Errorf("Candidate(%q) = %v", c.name, got)
		}
	}
	for _, c := range []struct {
		m       *Matcher
		in, out string
		want    bool
	}{
		{pm, "conv_state", "conv_state_out", true},
		{pm, "conv_state", "new_conv_state", true},
		{pm, "conv_state", "conv_state", true},
		{pm, "conv_state", "ssm_state_out", false},
		{pm, "conv_state", "conv_state_grad", false},
		{kv, "key_cache", "new_k_cache", true},
		{pm, "key_cache", "new_k_cache", false},
	} {
		ik, _ := c.m.key(c.in)
		ok, affixed := c.m.key(c.out)
		if got := c.out == c.in || affixed && ok == ik; got != c.want {
			t.Errorf("%s pairs with %s = %v", c.in, c.out, got)
		}
	}
}
