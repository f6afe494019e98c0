/*
 * depthwise_plane.h — one channel plane of a depthwise convolution, written once and included by
 * depthwise.c (scalar) and depthwise_x86.c (AVX2, AVX-512), each time with its own TGT attribute and
 * SFX suffix. Not a public header. The compiler vectorises the inner loop over output columns.
 *
 * Output row by output row: the row starts at the bias, then each kernel tap whose input row lies
 * inside the picture adds weight · input over the output columns whose input column does too
 * (contiguous when the stride is 1), so a row is finished while it is still in the L1 cache.
 */

TGT static void SFX(depthwise_plane)(const float *restrict x, float *restrict y, const float *restrict w, float bias,
                                     const ocm_depthwise_geometry *g) {
    const int H = g->H, W = g->W, outH = g->outH, outW = g->outW;
    const int kh = g->kh, kw = g->kw, sh = g->sh, sw = g->sw, dh = g->dh, dw = g->dw;
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
    }
}
