package expect

import "testing"

func TestFrameHas(t *testing.T) {
	for _, c := range []struct {
		f    Frame
		file string
		line int
		want bool
	}{
		{Frame{File: "models/macos/qwen3_5.py"}, "/Users/u/src/models/macos/qwen3_5.py", 199, true},
		{Frame{File: "models/macos/qwen3_5.py"}, "/Users/u/src/models/ios/qwen3_5_ios.py", 199, false},
		{Frame{File: "qwen3_5_ios.py", From: 58, To: 64}, "/a/qwen3_5_ios.py", 58, true},
		{Frame{File: "qwen3_5_ios.py", From: 58, To: 64}, "/a/qwen3_5_ios.py", 64, true},
		{Frame{File: "qwen3_5_ios.py", From: 58, To: 64}, "/a/qwen3_5_ios.py", 65, false},
		{Frame{File: "qwen3_5_ios.py", From: 58, To: 64}, "/a/qwen3_5_ios.py", 57, false},
		{Frame{File: "long/name.py"}, "name.py", 1, false},
	} {
		if got := c.f.Has(c.file, c.line); got != c.want {
			t.Errorf("%+v.Has(%q, %d) = %v, want %v", c.f, c.file, c.line, got, c.want)
		}
	}
}

func TestPairState(t *testing.T) {
	if s := (Pair{In: "conv_state", Out: "new_conv_state", Plain: true}).State(); s != "conv_state" {
		t.Errorf("plain pair's state = %q, want the input's name", s)
	}
	if s := (Pair{In: "key_cache", Out: "new_k_cache"}).State(); s != "new_k_cache" {
		t.Errorf("state pair's state = %q, want the output's name", s)
	}
}
