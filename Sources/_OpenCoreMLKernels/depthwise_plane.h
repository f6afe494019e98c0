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
 * is one contiguous run over the whole flattened output, whatever the stride and dilation. The
 * sums for a block of outputs stay in registers over all taps and are stored once; then each
 * output row is copied out of the Wq-wide sums, clamped to [lo, hi]. */

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
                for (int c = first; c < OCM_MIN(last, split_begin); c++) row[c] = in[sw * c + b];
                for (int c = OCM_MAX(first, split_end); c < last; c++) row[c] = in[sw * c + b];
            }
        }
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
