/*
 * depthwise_plane.h — one channel plane of a depthwise convolution, written once and included by
 * depthwise.c (scalar) and depthwise_x86.c (AVX2, AVX-512), each time with its own TGT attribute and
 * SFX suffix. Not a public header. The compiler vectorises the loops over outputs. Both paths end
 * with the clamp to [lo, hi] (a fused ReLU or ReLU6; ±infinity for none).
 */

/* Planes whose phase copies fit the scratch (OCM_DEPTHWISE_FLAT_MAX floats, and as many for the
 * sums), with at most OCM_DEPTHWISE_TAPS kernel taps: the input is copied into sh × sw zero-padded
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
    enum { BLOCK = 64, TAIL = OCM_DEPTHWISE_TAIL };
    const int rounded = (n + TAIL - 1) / TAIL * TAIL;
    int i = 0;
    for (; i + BLOCK <= rounded; i += BLOCK) {
        float sum[BLOCK];
        for (int j = 0; j < BLOCK; j++) sum[j] = bias;
        for (int t = 0; t < taps; t++) {
            const float weight = w[t];
            const float *restrict from = src[t] + i;
            for (int j = 0; j < BLOCK; j++) sum[j] += weight * from[j];
        }
        for (int j = 0; j < BLOCK; j++) acc[i + j] = sum[j];
    }
    for (; i < rounded; i += TAIL) {
        float sum[TAIL];
        for (int j = 0; j < TAIL; j++) sum[j] = bias;
        for (int t = 0; t < taps; t++) {
            const float weight = w[t];
            const float *restrict from = src[t] + i;
            for (int j = 0; j < TAIL; j++) sum[j] += weight * from[j];
        }
        for (int j = 0; j < TAIL; j++) acc[i + j] = sum[j];
    }
}

TGT static void SFX(depthwise_plane_flat)(const float *restrict x, float *restrict y, const float *restrict w, float bias,
                                          float lo, float hi, const ocm_depthwise_geometry *g, float *restrict scratch) {
    const int sh = g->sh, sw = g->sw;
    const int Wq = g->outW + (g->kw - 1) * g->dw / sw, Hq = g->outH + (g->kh - 1) * g->dh / sh;
    const int phase_size = Hq * Wq;
    float *restrict phases = scratch;
    float *restrict acc = scratch + OCM_DEPTHWISE_FLAT_MAX;
    /* The sums run up to OCM_DEPTHWISE_TAIL − 1 outputs past the plane: zeros to read there. */
    for (int i = 0; i < OCM_DEPTHWISE_TAIL; i++) phases[sh * sw * phase_size + i] = 0.0f;
    for (int a = 0; a < sh; a++) {
        for (int b = 0; b < sw; b++) {
            float *restrict phase = phases + (a * sw + b) * phase_size;
            for (int r = 0; r < Hq; r++) {
                float *restrict row = phase + r * Wq;
                const int iy = sh * r + a - g->pad_top;
                if (iy < 0 || iy >= g->H) {
                    for (int c = 0; c < Wq; c++) row[c] = 0.0f;
                    continue;
                }
                /* Columns c with 0 ≤ sw·c + offset < W read the input; the others are padding. */
                const int offset = b - g->pad_left;
                int first = offset >= 0 ? 0 : (-offset + sw - 1) / sw;
                int last = g->W - 1 - offset >= 0 ? (g->W - 1 - offset) / sw + 1 : 0;
                if (first > Wq) first = Wq;
                if (last > Wq) last = Wq;
                if (last < first) last = first;
                const float *restrict in = x + (size_t)iy * g->W + offset;
                for (int c = 0; c < first; c++) row[c] = 0.0f;
                if (sw == 1) {
                    for (int c = first; c < last; c++) row[c] = in[c];
                } else {
                    for (int c = first; c < last; c++) row[c] = in[sw * c];
                }
                for (int c = last; c < Wq; c++) row[c] = 0.0f;
            }
        }
    }
    const float *src[OCM_DEPTHWISE_TAPS];
    const int taps = g->kh * g->kw;
    for (int ky = 0; ky < g->kh; ky++) {
        for (int kx = 0; kx < g->kw; kx++) {
            const int dy = ky * g->dh, dx = kx * g->dw;
            src[ky * g->kw + kx] = phases + ((dy % sh) * sw + dx % sw) * phase_size + (dy / sh) * Wq + dx / sw;
        }
    }
    const int n = (g->outH - 1) * Wq + g->outW;
    SFX(depthwise_taps)(src, w, taps, bias, acc, n);
    for (int oy = 0; oy < g->outH; oy++) {
        const float *restrict sums = acc + oy * Wq;
        float *restrict out = y + (size_t)oy * g->outW;
        for (int ox = 0; ox < g->outW; ox++) out[ox] = OCM_CLAMP(sums[ox], lo, hi);
    }
}

TGT static void SFX(depthwise_plane)(const float *restrict x, float *restrict y, const float *restrict w, float bias,
                                     float lo, float hi, const ocm_depthwise_geometry *g, float *scratch) {
    const int H = g->H, W = g->W, outH = g->outH, outW = g->outW;
    const int kh = g->kh, kw = g->kw, sh = g->sh, sw = g->sw, dh = g->dh, dw = g->dw;
    if (scratch != NULL && kh * kw <= OCM_DEPTHWISE_TAPS && ocm_depthwise_fits_flat(g)) {
        SFX(depthwise_plane_flat)(x, y, w, bias, lo, hi, g, scratch);
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
