/*
 * depthwise_plane.h — one channel plane of a depthwise convolution, written once and included by
 * depthwise.c (scalar) and depthwise_x86.c (AVX2, AVX-512), each time with its own TGT attribute and
 * SFX suffix. Not a public header. The compiler vectorises the loops over outputs. Both paths end
 * with the clamp to [lo, hi] (a fused ReLU or ReLU6; ±infinity for none).
 */

/* Planes whose phase copies fit the scratch (OCM_DEPTHWISE_FLAT_MAX floats, and as many for the
 * sums), with at most OCM_DEPTHWISE_TAPS kernel taps and strides up to OCM_DEPTHWISE_MAX_STRIDE
 * (the call's plan, made once in depthwise.c, says): the input is copied into sh × sw zero-padded
 * "phase" planes, phase (a, b) holding padded rows a, a + sh, … and columns b, b + sw, …, all of
 * width Wq = outW + ((kw − 1)·dw) / sw. Output (oy, ox) then reads, for tap (ky, kx), phase
 * (ky·dh mod sh, kx·dw mod sw) at flattened position oy·Wq + ox plus a fixed offset, so every tap
 * is one contiguous run over the whole flattened output, whatever the stride and dilation. Two ways
 * from there (the plan's `rows` picks): 3 × 3 and 5 × 5 kernels at equal strides 1 or 2, no
 * dilation, outputs 12 or more wide, go by register-blocked rows — blocks of output rows × 16
 * columns whose sums stay in vectors over all taps and are clamped and stored straight into the
 * output (no sums buffer); the rest keep the flattened sums of a block of outputs in registers over
 * all taps, store them once into the Wq-wide sums buffer, then copy each output row out of it,
 * clamped to [lo, hi]. */

/* The sums over all taps: acc[i] = bias + Σ_t w[t]·src[t][i] for i < n rounded up to a multiple of
 * OCM_DEPTHWISE_TAIL (the caller makes those extra reads safe), a block of outputs at a time, each
 * block's sums kept in registers across the taps and stored once. */
TGT static void SFX(depthwise_taps)(const float *const *src, const float *w, int taps, float bias, float *restrict acc, int n) {
    /* 16-float vectors of the compiler's vector extension: one zmm, two ymm or four xmm registers
     * by instruction set. Written out, because a local float array of sums ends up in memory. */
    const int rounded = (n + OCM_DEPTHWISE_TAIL - 1) / OCM_DEPTHWISE_TAIL * OCM_DEPTHWISE_TAIL;
    const ocm_v16 start = {bias, bias, bias, bias, bias, bias, bias, bias, bias, bias, bias, bias, bias, bias, bias, bias};
    int i = 0;
    for (; i + 64 <= rounded; i += 64) {
        ocm_v16 s0 = start, s1 = start, s2 = start, s3 = start;
        for (int t = 0; t < taps; t++) {
            const float weight = w[t];
            const ocm_v16u *from = (const ocm_v16u *)(src[t] + i);
            s0 += weight * from[0];
            s1 += weight * from[1];
            s2 += weight * from[2];
            s3 += weight * from[3];
        }
        ocm_v16u *to = (ocm_v16u *)(acc + i);
        to[0] = s0;
        to[1] = s1;
        to[2] = s2;
        to[3] = s3;
    }
    for (; i < rounded; i += 16) {
        ocm_v16 s0 = start;
        for (int t = 0; t < taps; t++) s0 += w[t] * *(const ocm_v16u *)(src[t] + i);
        *(ocm_v16u *)(acc + i) = s0;
    }
}

/* Loops whose trip counts are constants at the call, unrolled whatever the optimisation level
 * (at -O2 clang left some rolled, and the sums went to memory: 1.6× slower). */
#ifndef OCM_UNROLL
#if defined(__clang__)
#define OCM_UNROLL _Pragma("clang loop unroll(full)")
#else
#define OCM_UNROLL _Pragma("GCC unroll 32")
#endif
#endif

/* Register-blocked rows for the network's common shapes (square kernels K = 3 or 5, stride S = 1
 * or 2, no dilation), on the phases above: a block of R output rows × 16·V columns keeps its sums
 * in registers, and each vector loaded from a phase row serves every tap of every output row of
 * the block that reads it (phase row q of phase (a, b) is tap (a + S·j, b + S·i) of output row
 * q − j), so a 3 × 3 stride-1 block of 4 rows loads 6 × 3 vectors for 36 multiply-adds instead of
 * 36. The sums are clamped and stored straight into the output rows. K, S, R and V are constants
 * at each call, so the loops unroll and the sums stay in registers. Reads past a row's end (the
 * last column block) stay inside the scratch and only feed lanes that are not stored. */
TGT static inline __attribute__((always_inline)) void SFX(depthwise_rows_block)(const float *restrict phases, int phase_size, int Wq,
                                                                             const float *restrict w, float bias, float lo, float hi,
                                                                             float *restrict y, int outW, int oy, int ox, int cols,
                                                                             const int K, const int S, const int R, const int V) {
    ocm_v16 acc[4][1];
    OCM_UNROLL
    for (int r = 0; r < R; r++)
        OCM_UNROLL
        for (int v = 0; v < V; v++) acc[r][v] = (ocm_v16){bias, bias, bias, bias, bias, bias, bias, bias, bias, bias, bias, bias, bias, bias, bias, bias};
    OCM_UNROLL
    for (int a = 0; a < S; a++) {
        const int rows_a = (K - a + S - 1) / S; /* taps ky = a + S·j, j < rows_a */
        OCM_UNROLL
        for (int b = 0; b < S; b++) {
            const int cols_b = (K - b + S - 1) / S; /* taps kx = b + S·i, i < cols_b */
            const float *base = phases + (a * S + b) * phase_size + oy * Wq + ox;
            OCM_UNROLL
            for (int q = 0; q < R + rows_a - 1; q++) {
                OCM_UNROLL
                for (int i = 0; i < cols_b; i++) {
                    OCM_UNROLL
                    for (int v = 0; v < V; v++) {
                        const ocm_v16 x = *(const ocm_v16u *)(base + q * Wq + i + 16 * v);
                        OCM_UNROLL
                        for (int r = 0; r < R; r++) {
                            const int j = q - r;
                            if (j >= 0 && j < rows_a) acc[r][v] += w[(a + S * j) * K + b + S * i] * x;
                        }
                    }
                }
            }
        }
    }
    OCM_UNROLL
    for (int r = 0; r < R; r++) {
        float *restrict out = y + (size_t)(oy + r) * outW + ox;
        OCM_UNROLL
        for (int v = 0; v < V; v++) {
            /* Aligned, so the vector store forwards to the lane reads wherever the stack lands
             * (unaligned, half the stack positions measured 15-20 % slower). */
            float sums[16] __attribute__((aligned(64)));
            *(ocm_v16u *)sums = acc[r][v];
            const int n = OCM_MIN(16, cols - 16 * v);
            if (n == 16) {
                for (int k = 0; k < 16; k++) out[16 * v + k] = OCM_CLAMP(sums[k], lo, hi);
            } else {
                for (int k = 0; k < n; k++) out[16 * v + k] = OCM_CLAMP(sums[k], lo, hi);
            }
        }
    }
}

/* Every output of the plane by blocks of 4 rows (then 2, then 1) × 16 columns: 4 independent sums
 * (one 16-float vector each) cover the fused multiply-add's latency on every instruction set,
 * and measured faster than 6 or 8 rows or 32 columns (blocks of 32 waste most lanes on the 14-
 * and 7-wide planes). */
TGT static inline __attribute__((always_inline)) void SFX(depthwise_rows)(const float *restrict phases, const ocm_depthwise_plan *p,
                                                                       const float *restrict w, float bias, float lo, float hi,
                                                                       float *restrict y, const int K, const int S) {
    const int V = 1, R = 4;
    const int outH = p->g.outH, outW = p->g.outW, Wq = p->Wq, phase_size = p->Hq * p->Wq;
    int oy = 0;
    for (; oy + R <= outH; oy += R)
        for (int ox = 0; ox < outW; ox += 16 * V)
            SFX(depthwise_rows_block)(phases, phase_size, Wq, w, bias, lo, hi, y, outW, oy, ox, outW - ox, K, S, R, V);
    for (; oy + 2 <= outH; oy += 2)
        for (int ox = 0; ox < outW; ox += 16 * V)
            SFX(depthwise_rows_block)(phases, phase_size, Wq, w, bias, lo, hi, y, outW, oy, ox, outW - ox, K, S, 2, V);
    for (; oy < outH; oy++)
        for (int ox = 0; ox < outW; ox += 16 * V)
            SFX(depthwise_rows_block)(phases, phase_size, Wq, w, bias, lo, hi, y, outW, oy, ox, outW - ox, K, S, 1, V);
}

TGT static void SFX(depthwise_plane_flat)(const float *restrict x, float *restrict y, const float *restrict w, float bias,
                                          float lo, float hi, const ocm_depthwise_plan *p, float *restrict scratch) {
    const ocm_depthwise_geometry *g = &p->g;
    const int sh = g->sh, sw = g->sw, Hq = p->Hq, Wq = p->Wq;
    const int phase_size = Hq * Wq;
    float *restrict phases = scratch;
    float *restrict acc = scratch + OCM_DEPTHWISE_FLAT_MAX;
    /* The phases' padding, and the run of zeros after them that the sums read past the plane, are
     * zero already (depthwise.c clears the scratch once for all the planes a thread takes): only
     * the input's own values are copied, row by row. */
    for (int a = 0; a < sh; a++) {
        for (int r = p->row_first[a]; r < p->row_last[a]; r++) {
            /* Padded column 0 of the input row this phase row holds (before the row when padded). */
            const float *in = x + (ptrdiff_t)(sh * r + a - g->pad_top) * g->W - g->pad_left;
            int split_begin = 0, split_end = 0; /* columns both phases got from the vector split */
            if (sw == 2) {
                /* Both column phases at once where both read the input: 32 inputs, split into
                 * their even and odd columns. */
                float *restrict even = phases + (a * 2) * phase_size + r * Wq;
                float *restrict odd = even + phase_size;
                const int lo = OCM_MAX(p->col_first[0], p->col_first[1]), hi = OCM_MIN(p->col_last[0], p->col_last[1]);
                int c = lo;
                for (; c + 16 <= hi; c += 16) {
                    const ocm_v16 v0 = *(const ocm_v16u *)(in + 2 * c), v1 = *(const ocm_v16u *)(in + 2 * c + 16);
                    *(ocm_v16u *)(even + c) = __builtin_shufflevector(v0, v1, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
                    *(ocm_v16u *)(odd + c) = __builtin_shufflevector(v0, v1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
                }
                split_begin = lo;
                split_end = c;
            }
            for (int b = 0; b < sw; b++) {
                float *restrict row = phases + (a * sw + b) * phase_size + r * Wq;
                const int first = p->col_first[b], last = p->col_last[b];
                if (sw == 1) {
                    for (int c = first; c < last; c++) row[c] = in[c];
                    continue;
                }
                if (sw == 2) {
                    /* The stride as a constant: the compiler vectorises these copies too (the
                     * narrow planes of the network's stride-2 layers are all tail). */
                    for (int c = first; c < OCM_MIN(last, split_begin); c++) row[c] = in[2 * c + b];
                    for (int c = OCM_MAX(first, split_end); c < last; c++) row[c] = in[2 * c + b];
                    continue;
                }
                for (int c = first; c < OCM_MIN(last, split_begin); c++) row[c] = in[sw * c + b];
                for (int c = OCM_MAX(first, split_end); c < last; c++) row[c] = in[sw * c + b];
            }
        }
    }
    if (p->rows) {
        /* The common shapes, each with its own unrolled copy of the register-blocked rows. */
        const int K = g->kh, S = g->sh;
        if (K == 3 && S == 1) SFX(depthwise_rows)(phases, p, w, bias, lo, hi, y, 3, 1);
        else if (K == 3 && S == 2) SFX(depthwise_rows)(phases, p, w, bias, lo, hi, y, 3, 2);
        else if (K == 5 && S == 1) SFX(depthwise_rows)(phases, p, w, bias, lo, hi, y, 5, 1);
        else SFX(depthwise_rows)(phases, p, w, bias, lo, hi, y, 5, 2);
        return;
    }
    const float *src[OCM_DEPTHWISE_TAPS];
    for (int t = 0; t < p->taps; t++) src[t] = phases + p->tap_offset[t];
    SFX(depthwise_taps)(src, w, p->taps, bias, acc, p->n);
    for (int oy = 0; oy < g->outH; oy++) {
        const float *restrict sums = acc + oy * Wq;
        float *restrict out = y + (size_t)oy * g->outW;
        for (int ox = 0; ox < g->outW; ox++) out[ox] = OCM_CLAMP(sums[ox], lo, hi);
    }
}

TGT static void SFX(depthwise_plane)(const float *restrict x, float *restrict y, const float *restrict w, float bias,
                                     float lo, float hi, const ocm_depthwise_plan *plan, float *scratch) {
    const ocm_depthwise_geometry *g = &plan->g;
    const int H = g->H, W = g->W, outH = g->outH, outW = g->outW;
    const int kh = g->kh, kw = g->kw, sh = g->sh, sw = g->sw, dh = g->dh, dw = g->dw;
    if (scratch != NULL && plan->flat) {
        SFX(depthwise_plane_flat)(x, y, w, bias, lo, hi, plan, scratch);
        return;
    }
    /* Row by row (planes too large to copy, or many taps): the row starts at the bias, then each
     * kernel tap whose input row lies inside the picture adds weight · input over the output
     * columns whose input column does too (contiguous when the stride is 1). */
    for (int oy = 0; oy < outH; oy++) {
        float *restrict row = y + (size_t)oy * outW;
        for (int ox = 0; ox < outW; ox++) row[ox] = bias;
        for (int ky = 0; ky < kh; ky++) {
            int iy = oy * sh - g->pad_top + ky * dh;
            if (iy < 0 || iy >= H) continue;
            const float *restrict in = x + (size_t)iy * W;
            for (int kx = 0; kx < kw; kx++) {
                /* Output columns ox with 0 ≤ ox·sw − pad_left + kx·dw < W. */
                int offset = kx * dw - g->pad_left;
                int first = offset >= 0 ? 0 : (-offset + sw - 1) / sw;
                int last = W - 1 - offset >= 0 ? (W - 1 - offset) / sw + 1 : 0;
                if (last > outW) last = outW;
                const float weight = w[ky * kw + kx];
                if (sw == 1) {
                    const float *restrict src = in + offset;
                    for (int ox = first; ox < last; ox++) row[ox] += weight * src[ox];
                } else {
                    for (int ox = first; ox < last; ox++) row[ox] += weight * in[ox * sw + offset];
                }
            }
        }
        for (int ox = 0; ox < outW; ox++) row[ox] = OCM_CLAMP(row[ox], lo, hi);
    }
}
