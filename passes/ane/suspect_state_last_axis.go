package ane

import (
	"fmt"

	"github.com/anefix/anefix/passes/anefacts"
)

// stateAxisMultiple is the multiple a state's last axis had where a
// stateful model ran on the Neural Engine (suspectStateLastAxis).
const stateAxisMultiple = 32

// suspectStateLastAxis: a state of an entry graph whose last axis is not a
// multiple of 32.
var suspectStateLastAxis = &Rule{
	ID:    "suspect.state-last-axis",
	Title: "state whose last axis is not a multiple of 32",
	Message: "UNCONFIRMED: a state whose last axis is not a multiple of 32: a stateful model with such a state " +
		"failed on the Neural Engine where the same model with a multiple of 32 ran",
	Evidence: "apple/coremltools issue 2631 (coremltools 9.0, Core ML, macOS 15.2, M4, Xcode's performance report): a " +
		"convolutional recurrent model whose state is [1, C, H, W] ran on the Neural Engine with W = 256 and failed there " +
		"with W = 270 (CPU and GPU ran both); the reporter names the multiple of 32. One pair of widths, on Core ML, not " +
		"coreai-build: 256 is also a multiple of 64, and no coreai-build compile of such a state is on record. At fp16, 32 " +
		"elements are the 64 bytes perf.io-alignment pads inputs and outputs to",
	Severity: suspect,
	Experiment: "pad the state's last axis to a multiple of 32 in the source model, re-export, and compare the regions " +
		"(anefix compile --require-ane) with this export's",
	Run: runStateLastAxis,
}

func runStateLastAxis(p *Pass) {
	if !p.Entry {
		return
	}
	for i, port := range p.Inputs {
		if !port.IsState {
			continue
		}
		t := anefacts.DataTensor(port.Type)
		if t == nil || !t.IsStatic() || t.Rank() == 0 {
			continue
		}
		if last := t.Shape[t.Rank()-1]; last%stateAxisMultiple != 0 {
			p.ReportPort("state "+anefacts.PortName(p.Inputs, i), fmt.Sprintf("%s: last axis %d", t.String(), last))
		}
	}
}
