package interp

// Conv is conv for the tests, without the settings only exec uses.
func Conv(x, w, bias *Tensor, p convParams, out Elem, acc16 bool) (*Tensor, error) {
	return conv(x, w, bias, p, out, acc16, false, nil)
}

// MatMul is matMul for the tests, without the settings only exec uses.
func MatMul(a, b *Tensor, transposeA, transposeB bool, out Elem, acc16 bool) (*Tensor, error) {
	return matMul(a, b, transposeA, transposeB, out, acc16, false, nil)
}

// LutToDense is lutToDense for the tests, without the settings only exec uses.
func LutToDense(indices, lut *Tensor, axis int64, out Elem) (*Tensor, error) {
	return lutToDense(indices, lut, axis, out, false)
}

// ScatterND is scatterND for the tests, without the settings only exec uses.
func ScatterND(t, indices, updates *Tensor, out Elem) (*Tensor, error) {
	return scatterND(t, indices, updates, out, false)
}
