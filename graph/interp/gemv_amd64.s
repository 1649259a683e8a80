#include "textflag.h"

// LANES4_ENTRY zeroes lanes16x4AVX's and lanes16x4RoundedAVX's eight sums
// and tests k (CX); LANES4_EXIT stores the sums at AX. The argument loads
// stay in each function, where vet checks them against its declaration.
#define LANES4_ENTRY \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7; \
	TESTQ CX, CX

#define LANES4_EXIT \
	VMOVUPS Y0, (AX); \
	VMOVUPS Y1, 32(AX); \
	VMOVUPS Y2, 64(AX); \
	VMOVUPS Y3, 96(AX); \
	VMOVUPS Y4, 128(AX); \
	VMOVUPS Y5, 160(AX); \
	VMOVUPS Y6, 192(AX); \
	VMOVUPS Y7, 224(AX); \
	VZEROUPPER; \
	RET

// func dot8hAVX(x *float32, h *uint16, stride, blocks int, out *[8]float32)
//
// For eight weight rows r (raw f16, row r at h + r*stride elements) and
// blocks*8 activations x, out[r] = Σ_k float32(w_r[k]·x[k]), k ascending.
// Each block of eight k converts (F16C, exact) and multiplies (one rounding
// to float32, as the scalar kernel) an 8×8 tile, transposes it so that a
// lane holds one row, and adds its eight columns in k order: every lane is
// the scalar kernel's sequential sum. No FMA: the product is rounded before
// the add, as in dot4h (linalg.go).
TEXT ·dot8hAVX(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ stride+16(FP), DX
	MOVQ blocks+24(FP), CX
	MOVQ out+32(FP), AX
	SHLQ $1, DX
	LEAQ (DX)(DX*2), BX
	LEAQ (SI)(DX*4), R8
	VXORPS Y9, Y9, Y9
	TESTQ CX, CX
	JZ done

loop:
	VMOVUPS (DI), Y8
	VCVTPH2PS (SI), Y0
	VCVTPH2PS (SI)(DX*1), Y1
	VCVTPH2PS (SI)(DX*2), Y2
	VCVTPH2PS (SI)(BX*1), Y3
	VCVTPH2PS (R8), Y4
	VCVTPH2PS (R8)(DX*1), Y5
	VCVTPH2PS (R8)(DX*2), Y6
	VCVTPH2PS (R8)(BX*1), Y7
	// products w·x with the weight as the first source: the NaN operand
	// order of dot4h (linalg.go), whose rows this kernel takes over
	VMULPS Y8, Y0, Y0
	VMULPS Y8, Y1, Y1
	VMULPS Y8, Y2, Y2
	VMULPS Y8, Y3, Y3
	VMULPS Y8, Y4, Y4
	VMULPS Y8, Y5, Y5
	VMULPS Y8, Y6, Y6
	VMULPS Y8, Y7, Y7
	// transpose: t0..t7 = Y10, Y0, Y1, Y2, Y3, Y4, Y5, Y6
	VUNPCKLPS Y1, Y0, Y10
	VUNPCKHPS Y1, Y0, Y0
	VUNPCKLPS Y3, Y2, Y1
	VUNPCKHPS Y3, Y2, Y2
	VUNPCKLPS Y5, Y4, Y3
	VUNPCKHPS Y5, Y4, Y4
	VUNPCKLPS Y7, Y6, Y5
	VUNPCKHPS Y7, Y6, Y6
	// s0..s3 = Y11..Y14 (rows 0-3), s4..s7 = Y10, Y0, Y1, Y2 (rows 4-7)
	VSHUFPS $0x44, Y1, Y10, Y11
	VSHUFPS $0xEE, Y1, Y10, Y12
	VSHUFPS $0x44, Y2, Y0, Y13
	VSHUFPS $0xEE, Y2, Y0, Y14
	VSHUFPS $0x44, Y5, Y3, Y10
	VSHUFPS $0xEE, Y5, Y3, Y0
	VSHUFPS $0x44, Y6, Y4, Y1
	VSHUFPS $0xEE, Y6, Y4, Y2
	// columns k = 0..7, each added with the accumulator as first source
	VPERM2F128 $0x20, Y10, Y11, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x20, Y0, Y12, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x20, Y1, Y13, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x20, Y2, Y14, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x31, Y10, Y11, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x31, Y0, Y12, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x31, Y1, Y13, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x31, Y2, Y14, Y3
	VADDPS Y3, Y9, Y9
	ADDQ $32, DI
	ADDQ $16, SI
	ADDQ $16, R8
	DECQ CX
	JNZ loop

done:
	VMOVUPS Y9, (AX)
	VZEROUPPER
	RET

// func dot16hAVX(x *float32, h *uint16, stride, blocks int, out *[16]float32)
//
// dot8hAVX for sixteen rows: rows 0-7 and rows 8-15 (at h + 8*stride) each
// get dot8hAVX's exact sequence of products, transposes and adds, into two
// accumulators. One accumulator's eight dependent adds per block bound
// dot8hAVX by the add latency; two independent chains overlap, so the
// loop streams weights faster. Every lane is still the scalar kernel's
// sequential sum (TestDot16hMatchesDot8h).
TEXT ·dot16hAVX(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ stride+16(FP), DX
	MOVQ blocks+24(FP), CX
	MOVQ out+32(FP), AX
	SHLQ $1, DX
	LEAQ (DX)(DX*2), BX
	LEAQ (SI)(DX*4), R8
	LEAQ (R8)(DX*4), R9
	LEAQ (R9)(DX*4), R10
	VXORPS Y9, Y9, Y9
	VXORPS Y15, Y15, Y15
	TESTQ CX, CX
	JZ done16

loop16:
	VMOVUPS (DI), Y8
	// rows 0-7 into Y9
	VCVTPH2PS (SI), Y0
	VCVTPH2PS (SI)(DX*1), Y1
	VCVTPH2PS (SI)(DX*2), Y2
	VCVTPH2PS (SI)(BX*1), Y3
	VCVTPH2PS (R8), Y4
	VCVTPH2PS (R8)(DX*1), Y5
	VCVTPH2PS (R8)(DX*2), Y6
	VCVTPH2PS (R8)(BX*1), Y7
	// products w·x with the weight as the first source: the NaN operand
	// order of dot4h (linalg.go), whose rows this kernel takes over
	VMULPS Y8, Y0, Y0
	VMULPS Y8, Y1, Y1
	VMULPS Y8, Y2, Y2
	VMULPS Y8, Y3, Y3
	VMULPS Y8, Y4, Y4
	VMULPS Y8, Y5, Y5
	VMULPS Y8, Y6, Y6
	VMULPS Y8, Y7, Y7
	// transpose: t0..t7 = Y10, Y0, Y1, Y2, Y3, Y4, Y5, Y6
	VUNPCKLPS Y1, Y0, Y10
	VUNPCKHPS Y1, Y0, Y0
	VUNPCKLPS Y3, Y2, Y1
	VUNPCKHPS Y3, Y2, Y2
	VUNPCKLPS Y5, Y4, Y3
	VUNPCKHPS Y5, Y4, Y4
	VUNPCKLPS Y7, Y6, Y5
	VUNPCKHPS Y7, Y6, Y6
	// s0..s3 = Y11..Y14 (rows 0-3), s4..s7 = Y10, Y0, Y1, Y2 (rows 4-7)
	VSHUFPS $0x44, Y1, Y10, Y11
	VSHUFPS $0xEE, Y1, Y10, Y12
	VSHUFPS $0x44, Y2, Y0, Y13
	VSHUFPS $0xEE, Y2, Y0, Y14
	VSHUFPS $0x44, Y5, Y3, Y10
	VSHUFPS $0xEE, Y5, Y3, Y0
	VSHUFPS $0x44, Y6, Y4, Y1
	VSHUFPS $0xEE, Y6, Y4, Y2
	// columns k = 0..7, each added with the accumulator as first source
	VPERM2F128 $0x20, Y10, Y11, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x20, Y0, Y12, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x20, Y1, Y13, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x20, Y2, Y14, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x31, Y10, Y11, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x31, Y0, Y12, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x31, Y1, Y13, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x31, Y2, Y14, Y3
	VADDPS Y3, Y9, Y9
	// rows 8-15 into Y15
	VCVTPH2PS (R9), Y0
	VCVTPH2PS (R9)(DX*1), Y1
	VCVTPH2PS (R9)(DX*2), Y2
	VCVTPH2PS (R9)(BX*1), Y3
	VCVTPH2PS (R10), Y4
	VCVTPH2PS (R10)(DX*1), Y5
	VCVTPH2PS (R10)(DX*2), Y6
	VCVTPH2PS (R10)(BX*1), Y7
	// products w·x with the weight as the first source: the NaN operand
	// order of dot4h (linalg.go), whose rows this kernel takes over
	VMULPS Y8, Y0, Y0
	VMULPS Y8, Y1, Y1
	VMULPS Y8, Y2, Y2
	VMULPS Y8, Y3, Y3
	VMULPS Y8, Y4, Y4
	VMULPS Y8, Y5, Y5
	VMULPS Y8, Y6, Y6
	VMULPS Y8, Y7, Y7
	// transpose: t0..t7 = Y10, Y0, Y1, Y2, Y3, Y4, Y5, Y6
	VUNPCKLPS Y1, Y0, Y10
	VUNPCKHPS Y1, Y0, Y0
	VUNPCKLPS Y3, Y2, Y1
	VUNPCKHPS Y3, Y2, Y2
	VUNPCKLPS Y5, Y4, Y3
	VUNPCKHPS Y5, Y4, Y4
	VUNPCKLPS Y7, Y6, Y5
	VUNPCKHPS Y7, Y6, Y6
	// s0..s3 = Y11..Y14 (rows 8-11), s4..s7 = Y10, Y0, Y1, Y2 (rows 12-15)
	VSHUFPS $0x44, Y1, Y10, Y11
	VSHUFPS $0xEE, Y1, Y10, Y12
	VSHUFPS $0x44, Y2, Y0, Y13
	VSHUFPS $0xEE, Y2, Y0, Y14
	VSHUFPS $0x44, Y5, Y3, Y10
	VSHUFPS $0xEE, Y5, Y3, Y0
	VSHUFPS $0x44, Y6, Y4, Y1
	VSHUFPS $0xEE, Y6, Y4, Y2
	// columns k = 0..7, each added with the accumulator as first source
	VPERM2F128 $0x20, Y10, Y11, Y3
	VADDPS Y3, Y15, Y15
	VPERM2F128 $0x20, Y0, Y12, Y3
	VADDPS Y3, Y15, Y15
	VPERM2F128 $0x20, Y1, Y13, Y3
	VADDPS Y3, Y15, Y15
	VPERM2F128 $0x20, Y2, Y14, Y3
	VADDPS Y3, Y15, Y15
	VPERM2F128 $0x31, Y10, Y11, Y3
	VADDPS Y3, Y15, Y15
	VPERM2F128 $0x31, Y0, Y12, Y3
	VADDPS Y3, Y15, Y15
	VPERM2F128 $0x31, Y1, Y13, Y3
	VADDPS Y3, Y15, Y15
	VPERM2F128 $0x31, Y2, Y14, Y3
	VADDPS Y3, Y15, Y15
	ADDQ $32, DI
	ADDQ $16, SI
	ADDQ $16, R8
	ADDQ $16, R9
	ADDQ $16, R10
	DECQ CX
	JNZ loop16

done16:
	VMOVUPS Y9, (AX)
	VMOVUPS Y15, 32(AX)
	VZEROUPPER
	RET

// func cpuidex(leaf, sub uint32) (a, b, c, d uint32)
TEXT ·cpuidex(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func xgetbv0() (lo uint32)
TEXT ·xgetbv0(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, lo+0(FP)
	RET

// func round16AVX(s *float32, blocks int)
//
// Rounds blocks*8 float32 values in place to the nearest half and back
// (F16C, immediate rounding mode 0: to nearest, ties to even, whatever
// MXCSR says), as f16.Round32 does one value at a time.
TEXT ·round16AVX(SB), NOSPLIT, $0-16
	MOVQ s+0(FP), DI
	MOVQ blocks+8(FP), CX
	TESTQ CX, CX
	JZ rdone

rloop:
	VMOVUPS (DI), Y0
	VCVTPS2PH $0, Y0, X1
	VCVTPH2PS X1, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	DECQ CX
	JNZ rloop

rdone:
	VZEROUPPER
	RET

// func axpyRowsAVX(a, b *float32, sr, k, chunks int, acc *float32)
//
// The row form of matmul for eight output columns at a time: for chunk c,
// acc[8c+t] = Σ_k float32(b[k*sr+8c+t]·a[k]), k ascending, one lane per
// column. Operand order as the scalar loop in matmulCore compiles: the B
// element first in the product, the product first in the add (which NaN
// payload survives); the sum starts from 0 as there.
TEXT ·axpyRowsAVX(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ sr+16(FP), DX
	MOVQ k+24(FP), R9
	MOVQ chunks+32(FP), CX
	MOVQ acc+40(FP), AX
	SHLQ $2, DX
	TESTQ CX, CX
	JZ adone

chunk:
	VXORPS Y2, Y2, Y2
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ R9, R12
	TESTQ R12, R12
	JZ astore

kloop:
	VBROADCASTSS (R10), Y0
	VMOVUPS (R11), Y1
	VMULPS Y0, Y1, Y1
	VADDPS Y2, Y1, Y2
	ADDQ $4, R10
	ADDQ DX, R11
	DECQ R12
	JNZ kloop

astore:
	VMOVUPS Y2, (AX)
	ADDQ $32, AX
	ADDQ $32, SI
	DECQ CX
	JNZ chunk

adone:
	VZEROUPPER
	RET

// func dot8RoundedHAVX(x *float32, h *uint16, stride, blocks int, out *[8]float32)
//
// dot8hAVX under the Neural Engine profile: every product is rounded to
// fp16 before it is added (dot4RoundedH, numerics_linalg.go, one lane per
// row). Same tile, transposition, operand order and k order as dot8hAVX.
TEXT ·dot8RoundedHAVX(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ stride+16(FP), DX
	MOVQ blocks+24(FP), CX
	MOVQ out+32(FP), AX
	SHLQ $1, DX
	LEAQ (DX)(DX*2), BX
	LEAQ (SI)(DX*4), R8
	VXORPS Y9, Y9, Y9
	TESTQ CX, CX
	JZ rhdone

rhloop:
	VMOVUPS (DI), Y8
	VCVTPH2PS (SI), Y0
	VCVTPH2PS (SI)(DX*1), Y1
	VCVTPH2PS (SI)(DX*2), Y2
	VCVTPH2PS (SI)(BX*1), Y3
	VCVTPH2PS (R8), Y4
	VCVTPH2PS (R8)(DX*1), Y5
	VCVTPH2PS (R8)(DX*2), Y6
	VCVTPH2PS (R8)(BX*1), Y7
	// products w·x with the weight as the first source: the NaN operand
	// order of dot4h (linalg.go), whose rows this kernel takes over
	VMULPS Y8, Y0, Y0
	VMULPS Y8, Y1, Y1
	VMULPS Y8, Y2, Y2
	VMULPS Y8, Y3, Y3
	VMULPS Y8, Y4, Y4
	VMULPS Y8, Y5, Y5
	VMULPS Y8, Y6, Y6
	VMULPS Y8, Y7, Y7
	// each product (exact in float32 for two halves) to the nearest half
	// and back: F16C with immediate 0 rounds to nearest, ties to even,
	// whatever MXCSR says, as roundProd (numerics.go) does
	VCVTPS2PH $0, Y0, X0
	VCVTPS2PH $0, Y1, X1
	VCVTPS2PH $0, Y2, X2
	VCVTPS2PH $0, Y3, X3
	VCVTPS2PH $0, Y4, X4
	VCVTPS2PH $0, Y5, X5
	VCVTPS2PH $0, Y6, X6
	VCVTPS2PH $0, Y7, X7
	VCVTPH2PS X0, Y0
	VCVTPH2PS X1, Y1
	VCVTPH2PS X2, Y2
	VCVTPH2PS X3, Y3
	VCVTPH2PS X4, Y4
	VCVTPH2PS X5, Y5
	VCVTPH2PS X6, Y6
	VCVTPH2PS X7, Y7
	// transpose: t0..t7 = Y10, Y0, Y1, Y2, Y3, Y4, Y5, Y6
	VUNPCKLPS Y1, Y0, Y10
	VUNPCKHPS Y1, Y0, Y0
	VUNPCKLPS Y3, Y2, Y1
	VUNPCKHPS Y3, Y2, Y2
	VUNPCKLPS Y5, Y4, Y3
	VUNPCKHPS Y5, Y4, Y4
	VUNPCKLPS Y7, Y6, Y5
	VUNPCKHPS Y7, Y6, Y6
	// s0..s3 = Y11..Y14 (rows 0-3), s4..s7 = Y10, Y0, Y1, Y2 (rows 4-7)
	VSHUFPS $0x44, Y1, Y10, Y11
	VSHUFPS $0xEE, Y1, Y10, Y12
	VSHUFPS $0x44, Y2, Y0, Y13
	VSHUFPS $0xEE, Y2, Y0, Y14
	VSHUFPS $0x44, Y5, Y3, Y10
	VSHUFPS $0xEE, Y5, Y3, Y0
	VSHUFPS $0x44, Y6, Y4, Y1
	VSHUFPS $0xEE, Y6, Y4, Y2
	// columns k = 0..7, each added with the accumulator as first source
	VPERM2F128 $0x20, Y10, Y11, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x20, Y0, Y12, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x20, Y1, Y13, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x20, Y2, Y14, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x31, Y10, Y11, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x31, Y0, Y12, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x31, Y1, Y13, Y3
	VADDPS Y3, Y9, Y9
	VPERM2F128 $0x31, Y2, Y14, Y3
	VADDPS Y3, Y9, Y9
	ADDQ $32, DI
	ADDQ $16, SI
	ADDQ $16, R8
	DECQ CX
	JNZ rhloop

rhdone:
	VMOVUPS Y9, (AX)
	VZEROUPPER
	RET

// func axpyRoundedRowsAVX(a, b *float32, sr, k, chunks int, acc *float32)
//
// axpyRowsAVX under the Neural Engine profile: acc[8c+t] = Σ_k
// half(b[k*sr+8c+t]·a[k]), k ascending, each product rounded to fp16
// (F16C, immediate 0: nearest, ties to even) before it is added. Operand
// order as axpyRounded (numerics_linalg.go) compiles: the B element first
// in the product, the product first in the add; the sum starts from 0.
TEXT ·axpyRoundedRowsAVX(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ sr+16(FP), DX
	MOVQ k+24(FP), R9
	MOVQ chunks+32(FP), CX
	MOVQ acc+40(FP), AX
	SHLQ $2, DX
	TESTQ CX, CX
	JZ radone

rachunk:
	VXORPS Y2, Y2, Y2
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ R9, R12
	TESTQ R12, R12
	JZ rastore

rakloop:
	VBROADCASTSS (R10), Y0
	VMOVUPS (R11), Y1
	VMULPS Y0, Y1, Y1
	VCVTPS2PH $0, Y1, X1
	VCVTPH2PS X1, Y1
	VADDPS Y2, Y1, Y2
	ADDQ $4, R10
	ADDQ DX, R11
	DECQ R12
	JNZ rakloop

rastore:
	VMOVUPS Y2, (AX)
	ADDQ $32, AX
	ADDQ $32, SI
	DECQ CX
	JNZ rachunk

radone:
	VZEROUPPER
	RET

// func axpyRoundedRowsHAVX(a *float32, b *uint16, sr, k, chunks int, acc *float32)
//
// axpyRoundedRowsAVX with B raw f16 (a weight stored K×N, used in place):
// each group of eight halves is widened (F16C, exact) as it is read.
TEXT ·axpyRoundedRowsHAVX(SB), NOSPLIT, $0-48
	MOVQ a+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ sr+16(FP), DX
	MOVQ k+24(FP), R9
	MOVQ chunks+32(FP), CX
	MOVQ acc+40(FP), AX
	SHLQ $1, DX
	TESTQ CX, CX
	JZ rhadone

rhachunk:
	VXORPS Y2, Y2, Y2
	MOVQ DI, R10
	MOVQ SI, R11
	MOVQ R9, R12
	TESTQ R12, R12
	JZ rhastore

rhakloop:
	VBROADCASTSS (R10), Y0
	VCVTPH2PS (R11), Y1
	VMULPS Y0, Y1, Y1
	VCVTPS2PH $0, Y1, X1
	VCVTPH2PS X1, Y1
	VADDPS Y2, Y1, Y2
	ADDQ $4, R10
	ADDQ DX, R11
	DECQ R12
	JNZ rhakloop

rhastore:
	VMOVUPS Y2, (AX)
	ADDQ $32, AX
	ADDQ $16, SI
	DECQ CX
	JNZ rhachunk

rhadone:
	VZEROUPPER
	RET

// func tr16hAVX(h *uint16, stride, blocks int, dst *float32)
//
// Widens sixteen raw-f16 weight rows (row r at h + r*stride elements) over
// blocks*8 columns k into float32, k-major: dst[16k+r] = w_r[k]. Each block
// of eight k converts (F16C, exact, as dot16hAVX) and transposes dot16hAVX's
// tiles without multiplying, so that a batch of activations
// (lanes16x4AVX) reuses one widening of the weight.
TEXT ·tr16hAVX(SB), NOSPLIT, $0-32
	MOVQ h+0(FP), SI
	MOVQ stride+8(FP), DX
	MOVQ blocks+16(FP), CX
	MOVQ dst+24(FP), DI
	SHLQ $1, DX
	LEAQ (DX)(DX*2), BX
	LEAQ (SI)(DX*4), R8
	LEAQ (R8)(DX*4), R9
	LEAQ (R9)(DX*4), R10
	TESTQ CX, CX
	JZ trdone

trloop:
	// rows 0-7: columns k = 0..7 at dst + 64k bytes
	VCVTPH2PS (SI), Y0
	VCVTPH2PS (SI)(DX*1), Y1
	VCVTPH2PS (SI)(DX*2), Y2
	VCVTPH2PS (SI)(BX*1), Y3
	VCVTPH2PS (R8), Y4
	VCVTPH2PS (R8)(DX*1), Y5
	VCVTPH2PS (R8)(DX*2), Y6
	VCVTPH2PS (R8)(BX*1), Y7
	VUNPCKLPS Y1, Y0, Y10
	VUNPCKHPS Y1, Y0, Y0
	VUNPCKLPS Y3, Y2, Y1
	VUNPCKHPS Y3, Y2, Y2
	VUNPCKLPS Y5, Y4, Y3
	VUNPCKHPS Y5, Y4, Y4
	VUNPCKLPS Y7, Y6, Y5
	VUNPCKHPS Y7, Y6, Y6
	VSHUFPS $0x44, Y1, Y10, Y11
	VSHUFPS $0xEE, Y1, Y10, Y12
	VSHUFPS $0x44, Y2, Y0, Y13
	VSHUFPS $0xEE, Y2, Y0, Y14
	VSHUFPS $0x44, Y5, Y3, Y10
	VSHUFPS $0xEE, Y5, Y3, Y0
	VSHUFPS $0x44, Y6, Y4, Y1
	VSHUFPS $0xEE, Y6, Y4, Y2
	VPERM2F128 $0x20, Y10, Y11, Y3
	VMOVUPS Y3, 0(DI)
	VPERM2F128 $0x20, Y0, Y12, Y3
	VMOVUPS Y3, 64(DI)
	VPERM2F128 $0x20, Y1, Y13, Y3
	VMOVUPS Y3, 128(DI)
	VPERM2F128 $0x20, Y2, Y14, Y3
	VMOVUPS Y3, 192(DI)
	VPERM2F128 $0x31, Y10, Y11, Y3
	VMOVUPS Y3, 256(DI)
	VPERM2F128 $0x31, Y0, Y12, Y3
	VMOVUPS Y3, 320(DI)
	VPERM2F128 $0x31, Y1, Y13, Y3
	VMOVUPS Y3, 384(DI)
	VPERM2F128 $0x31, Y2, Y14, Y3
	VMOVUPS Y3, 448(DI)
	// rows 8-15: the same at dst + 64k + 32 bytes
	VCVTPH2PS (R9), Y0
	VCVTPH2PS (R9)(DX*1), Y1
	VCVTPH2PS (R9)(DX*2), Y2
	VCVTPH2PS (R9)(BX*1), Y3
	VCVTPH2PS (R10), Y4
	VCVTPH2PS (R10)(DX*1), Y5
	VCVTPH2PS (R10)(DX*2), Y6
	VCVTPH2PS (R10)(BX*1), Y7
	VUNPCKLPS Y1, Y0, Y10
	VUNPCKHPS Y1, Y0, Y0
	VUNPCKLPS Y3, Y2, Y1
	VUNPCKHPS Y3, Y2, Y2
	VUNPCKLPS Y5, Y4, Y3
	VUNPCKHPS Y5, Y4, Y4
	VUNPCKLPS Y7, Y6, Y5
	VUNPCKHPS Y7, Y6, Y6
	VSHUFPS $0x44, Y1, Y10, Y11
	VSHUFPS $0xEE, Y1, Y10, Y12
	VSHUFPS $0x44, Y2, Y0, Y13
	VSHUFPS $0xEE, Y2, Y0, Y14
	VSHUFPS $0x44, Y5, Y3, Y10
	VSHUFPS $0xEE, Y5, Y3, Y0
	VSHUFPS $0x44, Y6, Y4, Y1
	VSHUFPS $0xEE, Y6, Y4, Y2
	VPERM2F128 $0x20, Y10, Y11, Y3
	VMOVUPS Y3, 32(DI)
	VPERM2F128 $0x20, Y0, Y12, Y3
	VMOVUPS Y3, 96(DI)
	VPERM2F128 $0x20, Y1, Y13, Y3
	VMOVUPS Y3, 160(DI)
	VPERM2F128 $0x20, Y2, Y14, Y3
	VMOVUPS Y3, 224(DI)
	VPERM2F128 $0x31, Y10, Y11, Y3
	VMOVUPS Y3, 288(DI)
	VPERM2F128 $0x31, Y0, Y12, Y3
	VMOVUPS Y3, 352(DI)
	VPERM2F128 $0x31, Y1, Y13, Y3
	VMOVUPS Y3, 416(DI)
	VPERM2F128 $0x31, Y2, Y14, Y3
	VMOVUPS Y3, 480(DI)
	ADDQ $512, DI
	ADDQ $16, SI
	ADDQ $16, R8
	ADDQ $16, R9
	ADDQ $16, R10
	DECQ CX
	JNZ trloop

trdone:
	VZEROUPPER
	RET

// func lanes16x4AVX(wt *float32, k int, x *float32, xstride int, acc *[64]float32)
//
// Four activations (lane l at x + l*xstride elements, k long) against
// sixteen weight rows widened k-major by tr16hAVX: acc[16l+r] =
// Σ_k float32(w_r[k]·x_l[k]), k ascending. One lane of a register holds
// one row, so each sum is dot4h's sequential sum (linalg.go): no FMA, the
// weight the first source of the product and the sum the first source of
// the add, as dot16hAVX. Eight independent sums overlap the add latency.
TEXT ·lanes16x4AVX(SB), NOSPLIT, $0-40
	MOVQ wt+0(FP), SI
	MOVQ k+8(FP), CX
	MOVQ x+16(FP), DI
	MOVQ xstride+24(FP), DX
	MOVQ acc+32(FP), AX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), BX
	LANES4_ENTRY
	JZ l4done

l4loop:
	VMOVUPS (SI), Y8
	VMOVUPS 32(SI), Y9
	VBROADCASTSS (DI), Y10
	VMULPS Y10, Y8, Y11
	VMULPS Y10, Y9, Y12
	VADDPS Y11, Y0, Y0
	VADDPS Y12, Y1, Y1
	VBROADCASTSS (DI)(DX*1), Y13
	VMULPS Y13, Y8, Y14
	VMULPS Y13, Y9, Y15
	VADDPS Y14, Y2, Y2
	VADDPS Y15, Y3, Y3
	VBROADCASTSS (DI)(DX*2), Y10
	VMULPS Y10, Y8, Y11
	VMULPS Y10, Y9, Y12
	VADDPS Y11, Y4, Y4
	VADDPS Y12, Y5, Y5
	VBROADCASTSS (DI)(BX*1), Y13
	VMULPS Y13, Y8, Y14
	VMULPS Y13, Y9, Y15
	VADDPS Y14, Y6, Y6
	VADDPS Y15, Y7, Y7
	ADDQ $64, SI
	ADDQ $4, DI
	DECQ CX
	JNZ l4loop

l4done:
	LANES4_EXIT

// func lanes16x4RoundedAVX(wt *float32, k int, x *float32, xstride int, acc *[64]float32)
//
// lanes16x4AVX under the Neural Engine profile: every product rounded to
// fp16 and back (F16C, immediate 0: nearest, ties to even) before it is
// added, as dot8RoundedHAVX; NaN sums are for the scalar kernel (redoNaN,
// numerics_linalg.go).
TEXT ·lanes16x4RoundedAVX(SB), NOSPLIT, $0-40
	MOVQ wt+0(FP), SI
	MOVQ k+8(FP), CX
	MOVQ x+16(FP), DI
	MOVQ xstride+24(FP), DX
	MOVQ acc+32(FP), AX
	SHLQ $2, DX
	LEAQ (DX)(DX*2), BX
	LANES4_ENTRY
	JZ r4done

r4loop:
	VMOVUPS (SI), Y8
	VMOVUPS 32(SI), Y9
	VBROADCASTSS (DI), Y10
	VMULPS Y10, Y8, Y11
	VMULPS Y10, Y9, Y12
	VCVTPS2PH $0, Y11, X11
	VCVTPS2PH $0, Y12, X12
	VCVTPH2PS X11, Y11
	VCVTPH2PS X12, Y12
	VADDPS Y11, Y0, Y0
	VADDPS Y12, Y1, Y1
	VBROADCASTSS (DI)(DX*1), Y13
	VMULPS Y13, Y8, Y14
	VMULPS Y13, Y9, Y15
	VCVTPS2PH $0, Y14, X14
	VCVTPS2PH $0, Y15, X15
	VCVTPH2PS X14, Y14
	VCVTPH2PS X15, Y15
	VADDPS Y14, Y2, Y2
	VADDPS Y15, Y3, Y3
	VBROADCASTSS (DI)(DX*2), Y10
	VMULPS Y10, Y8, Y11
	VMULPS Y10, Y9, Y12
	VCVTPS2PH $0, Y11, X11
	VCVTPS2PH $0, Y12, X12
	VCVTPH2PS X11, Y11
	VCVTPH2PS X12, Y12
	VADDPS Y11, Y4, Y4
	VADDPS Y12, Y5, Y5
	VBROADCASTSS (DI)(BX*1), Y13
	VMULPS Y13, Y8, Y14
	VMULPS Y13, Y9, Y15
	VCVTPS2PH $0, Y14, X14
	VCVTPS2PH $0, Y15, X15
	VCVTPH2PS X14, Y14
	VCVTPH2PS X15, Y15
	VADDPS Y14, Y6, Y6
	VADDPS Y15, Y7, Y7
	ADDQ $64, SI
	ADDQ $4, DI
	DECQ CX
	JNZ r4loop

r4done:
	LANES4_EXIT
