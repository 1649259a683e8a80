package synth

import (
	"fmt"
	"math"

	"github.com/anefix/anefix/graph"
)

// Trained-like structure of arms A–D (issue 29): i.i.d. weights make a
// stand-in whose numerics differ from a trained model's in two ways that
// decide whether fp16 is safe, so by default synth adds both.
//
// Recurrence gates (trainedGates). The decay of a gated-delta step is
// exp(g), g = −A·softplus(a + dt_bias). Trained gated-delta and Mamba2
// models initialise dt = softplus(dt_bias) log-uniform on [0.001, 0.1] and
// A log-uniform on [1, 16] (A_log uniform on [0, ln 16]); with a ≈ N(0, 1)
// from the input projection the decay is then mostly above 0.9 (long
// memory), where the older N(1, 0.5) bias gave exp(g) ≤ 0.24 (the state
// forgot almost everything every step). Modelled: the initialisation's
// distributions. A guess: that trained values stay near them.
//
// Massive activations (massive). Trained LLMs carry a handful of residual
// channels with magnitudes in the hundreds to thousands, on fixed channels,
// growing over the early layers and staying large (the phenomenon of
// "massive activations" and "super weights": one large weight of an early
// MLP's down projection writes them). synth makes them arise the same way,
// on every token:
//   - the embedding's columns at the massive channels have mean ±seedMean
//     (3.4 tiny, 16.6 full: a consistent sign on every token, large enough
//     to dominate the first MLP's norm input);
//   - every layer's MLP has one "super neuron" per massive channel c: it
//     reads c only (up and gate weight superIn from c, zero from the rest),
//     and writes c (down weight superOut) and little else (the rest of its
//     down column is drawn small), adding about 480/L (tiny) or 2400/L
//     (full) to c per layer once c dominates the norm, L the layer count;
//   - the residual norms (input, post-attention, final) weigh the massive
//     channels by normW = √(M/H), so after the norm they are about 1 like
//     the ordinary channels, and weigh the ordinary channels by a gain for
//     the share of the RMS the massive channels take: blockGainFrac of it
//     in the blocks (the full gain runs away, see blockGainFrac) and, at
//     the final norm, enough to give the logits the spread they had
//     without massive channels.
//
// Measured with the interpreter over 24 positions (TestMassiveActivations
// and scratch runs at seed 0): tiny arm A's largest channel reaches 141,
// 370, 611, 853 after its 4 layers' MLPs, full arm A's about 220 after
// layer 1 and 3700 after layer 24; the other channels stay in single
// digits (tiny) and below 1 (full).
//
// What is modelled: few fixed channels, a fixed sign each, magnitudes
// growing with depth into the hundreds (tiny) and thousands (full), written
// by super weights, and norms that keep the rest of the model working. What
// is a guess: the magnitudes (chosen so that fp16 squares of the stream,
// |x| > 256, overflow past the first layers), that every token carries them
// (trained models show them on a few tokens, such as the first, and an
// all-token version needs no token selection by a neuron that has no bias
// to threshold with), the super neurons' wiring, and the norm weights and
// gains (which also leave the blocks' ordinary inputs about half as large
// as without the channels).

// massiveChannels is how many residual channels are massive: 2 at tiny
// scale, 4 at full (trained models show two to four).
func massiveChannels(d hybridDims) int {
	if d.Hidden >= 256 {
		return 4
	}
	return 2
}

// Design constants (see above). massiveStep is what one layer adds to a
// massive channel once it saturates; superIn and superOut realise it.
// blockGainFrac is the share of normGain the block norms apply: the full
// gain makes the blocks' inputs follow the ordinary channels' growth, which
// the MLP squares, and tiny arm A's stream then runs away within four
// layers (measured: 0.8 diverges, ordinary RMS 36 at the last add; 0.6
// holds). The blocks therefore see ordinary inputs about half their size
// without massive channels. A stand-in's compromise.
const blockGainFrac = 0.6

const superNeuron = 4.0 // the saturated super neuron's input: superIn·normW·√(H/M)

// massive is the structure one module's massive channels need.
type massive struct {
	on       bool
	chans    []int64   // the massive channels, in order
	signs    []float64 // ±1 per channel
	neurons  [][]int64 // per layer, the MLP hidden unit of each channel
	superIn  float64   // up and gate weight from a massive channel
	superOut float64   // down weight into it
	normW    float64   // residual norms' weight on a massive channel
	perAdd   float64   // ordinary variance one residual add contributes
	seedMean float64   // embedding column mean at a massive channel
	// expected is the design's magnitude of a massive channel at the input
	// of layer i (index Layers: at the final norm), from the recurrence in
	// planMassive; normGain uses it.
	expected []float64
}

// ordinaryRMS is the RMS of the ordinary residual channels after k
// residual adds (two per layer), which the gains aim at keeping: the
// stream without massive channels starts at the embedding's 0.02 and gains
// about v of variance per add, v measured on arm A without massive channels
// (0.18 tiny, 0.27 full: 16 adds of full arm A reach RMS 2.1). An estimate,
// not a law: the gains only need it within tens of percent.
func (mv *massive) ordinaryRMS(k int) float64 { return math.Sqrt(0.02*0.02 + mv.perAdd*float64(k)) }

func planMassive(d hybridDims, seed uint64, on bool) *massive {
	mv := &massive{on: on, perAdd: 0.27}
	if d.Hidden < 256 {
		mv.perAdd = 0.18
	}
	if !on {
		return mv
	}
	M := massiveChannels(d)
	H := int64(d.Hidden)
	taken := map[int64]bool{}
	for k := 0; k < M; k++ {
		c := int64(mix64(seed^0x6d61737369766521+uint64(k)*golden) % uint64(H))
		for taken[c] {
			c = (c + 1) % H
		}
		taken[c] = true
		mv.chans = append(mv.chans, c)
		mv.signs = append(mv.signs, float64(1-2*(k%2)))
	}
	inter := int64(d.Intermediate)
	for i := 0; i < d.Layers; i++ {
		used := map[int64]bool{}
		var ns []int64
		for k := 0; k < M; k++ {
			j := int64(mix64(seed^0x7375706572ab+uint64(i*M+k)*golden) % uint64(inter))
			for used[j] {
				j = (j + 1) % inter
			}
			used[j] = true
			ns = append(ns, j)
		}
		mv.neurons = append(mv.neurons, ns)
	}
	sat := math.Sqrt(float64(H) / float64(M)) // a dominating channel's normalized size
	mv.normW = 1 / sat
	// The seed must dominate the first MLP's norm input, where the ordinary
	// channels are at ordinaryRMS(1), so the neuron fires in the channel's
	// sign on every token: twice the size at which it would hold half the RMS.
	mv.seedMean = 2 * mv.ordinaryRMS(1) * sat
	// The last layer reaches about 480 at tiny scale and 2400 at full
	// whatever the layer count (120 and 100 per saturated layer at the
	// default 4 and 24 layers): a fixed step per layer made a 24-layer
	// tiny stream run past fp16's range on some seeds.
	step := 2400.0 / float64(d.Layers)
	if d.Hidden < 256 {
		step = 480.0 / float64(d.Layers)
	}
	mv.superIn = superNeuron
	m := superNeuron * silu(superNeuron)
	mv.superOut = step / m
	// The design's expectation, layer by layer: layer i's neuron sees
	// b = superIn·normW·x/rms at the post-attention norm, x the channel, rms
	// over all channels with the ordinary ones at ordinaryRMS(2i+1).
	x := mv.seedMean
	for i := 0; i <= d.Layers; i++ {
		mv.expected = append(mv.expected, x)
		if i == d.Layers {
			break
		}
		b := mv.superIn * mv.normW * x / mv.rms(d, x, 2*i+1)
		x += mv.superOut * b * silu(b)
	}
	return mv
}

// rms is the stream's RMS with the massive channels at x and the ordinary
// ones at ordinaryRMS(k).
func (mv *massive) rms(d hybridDims, x float64, k int) float64 {
	M, H, r := float64(len(mv.chans)), float64(d.Hidden), mv.ordinaryRMS(k)
	return math.Sqrt((M*x*x + (H-M)*r*r) / H)
}

func silu(x float64) float64 { return x / (1 + math.Exp(-x)) }

// normGain is the weight a residual norm after k residual adds gives
// ordinary channels: the factor by which the massive channels' share of
// the RMS shrinks them (layer i's input norm reads the stream after 2i
// adds, its post-attention norm after 2i+1, the final norm after 2·Layers).
func (mv *massive) normGain(d hybridDims, k int) float64 {
	if !mv.on {
		return 1
	}
	return mv.rms(d, mv.expected[k/2], k) / mv.ordinaryRMS(k)
}

// residualNormWeight returns the weight of a residual norm after k
// residual adds: ordinary channels about normGain, massive channels normW.
func (h *hybrid) residualNormWeight(key string, k int) *graph.Value {
	d := h.d
	g := h.mv.normGain(d, k)
	if k < 2*d.Layers {
		g = 1 + (g-1)*blockGainFrac
	} else if h.mv.on {
		// The blocks' partial gains leave the ordinary channels smaller
		// than ordinaryRMS: measured on arm A at seed 0 (scratch runs of
		// the interpreter over 24 positions), RMS 0.6 tiny and 0.3 full at
		// the final norm; the final gain restores them to 1, the size the
		// logits had without massive channels.
		r := 0.3
		if d.Hidden < 256 {
			r = 0.6
		}
		g = h.mv.rms(d, h.mv.expected[d.Layers], k) / r
	}
	dist := dist{Mean: g * normWeight.Mean, Std: g * normWeight.Std}
	var elems []elemValue
	if h.mv.on {
		for _, c := range h.mv.chans {
			elems = append(elems, elemValue{Index: c, Value: h.mv.normW})
		}
	}
	return h.patchedWeight(key, dist, nil, elems, int64(d.Hidden))
}

// embedding returns the embedding table, with the massive channels'
// columns.
func (h *hybrid) embedding() *graph.Value {
	d := h.d
	var cols []colDist
	if h.mv.on {
		for k, c := range h.mv.chans {
			cols = append(cols, colDist{Col: c, Stride: int64(d.Hidden), Dist: dist{Mean: h.mv.signs[k] * h.mv.seedMean, Std: 0.02}})
		}
	}
	return h.patchedWeight("model.embed_tokens.weight", normal(0.02), cols, nil, int64(d.Vocab), int64(d.Hidden))
}

// superWeights are layer i's MLP patches: up and gate [inter, hid] get
// superIn·sign at [neuron, channel], down [hid, inter] superOut·sign at
// [channel, neuron] (sign², so the channel grows away from zero in its
// own sign whatever the sign).
//
// The neuron reads its channel only (the rest of its up and gate rows are
// zero), so its activation follows the channel and nothing else. The rest
// of the neuron's down column is drawn with its std divided by the
// neuron's saturated activation superNeuron·silu(superNeuron), so the
// neuron writes its channel and leaks into the others no more than an
// ordinary neuron does (a trained super neuron's output is concentrated
// the same way).
func (mv *massive) superWeights(d hybridDims, i int) (upGate []elemValue, downCols []colDist, down []elemValue) {
	if !mv.on {
		return nil, nil, nil
	}
	hid, inter := int64(d.Hidden), int64(d.Intermediate)
	leak := normal(1 / math.Sqrt(float64(inter)) / (superNeuron * silu(superNeuron)))
	for k, c := range mv.chans {
		j := mv.neurons[i][k]
		s := mv.signs[k]
		for a := int64(0); a < hid; a++ {
			upGate = append(upGate, elemValue{Index: j*hid + a}) // reads its channel only
		}
		upGate = append(upGate, elemValue{Index: j*hid + c, Value: s * mv.superIn})
		downCols = append(downCols, colDist{Col: j, Stride: inter, Dist: leak})
		down = append(down, elemValue{Index: c*inter + j, Value: s * mv.superOut})
	}
	return upGate, downCols, down
}

// String describes the plan, for tests and messages.
func (mv *massive) String() string {
	if !mv.on {
		return "no massive channels"
	}
	return fmt.Sprintf("channels %v, signs %v, seed %.3g, super neuron in %.3g out %.3g, norm weight %.3g, expected %.4g", mv.chans, mv.signs, mv.seedMean, mv.superIn, mv.superOut, mv.normW, mv.expected)
}
