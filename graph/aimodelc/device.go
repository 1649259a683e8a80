package aimodelc

import (
	"strconv"
	"strings"
)

// deviceName spells a compilation descriptor's preferredDevice or
// allowedComputeDevices integer. GUESS: the values are taken as the
// MPSGraphComputeDevice bit set (GPU 1, ANE 2, CPU 4) as two independent
// public bindings of MPSGraph spell it; Apple's headers are not public
// here. The corpus is consistent with it: preferredDevice 1 and
// allowedComputeDevices 1 next to "preferredDevice=GPU" in the main file.
// A value with other bits is returned as "unknown(N)".
func deviceName(v int64) string {
	if v <= 0 || v&^7 != 0 {
		return "unknown(" + strconv.FormatInt(v, 10) + ")"
	}
	var parts []string
	for _, d := range []struct {
		bit  int64
		name string
	}{{1, "GPU"}, {2, "ANE"}, {4, "CPU"}} {
		if v&d.bit != 0 {
			parts = append(parts, d.name)
		}
	}
	return strings.Join(parts, "+")
}
