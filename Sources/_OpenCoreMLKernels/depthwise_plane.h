/*
 * depthwise_plane.h — one channel plane of a depthwise convolution, written once and included by
 * depthwise.c (scalar) and depthwise_x86.c (AVX2, AVX-512), each time with its own TGT attribute and
 * SFX suffix. Not a public header. The compiler vectorises the inner loop over output columns.
 *
 * Output row by output row: the row starts at the bias, then each kernel tap whose input row lies
 * inside the picture adds weight · input over the output columns whose input column does too
 * (contiguous when the stride is 1), so a row is finished while it is still in the L1 cache.
 */

/* Stride and dilation 1, planes up to 16 K floats with their padding: the plane is copied into a
 * zero-padded (outH + kh − 1) × (outW + kw − 1) buffer, which makes every tap one contiguous run
 * over the whole flattened plane (long vectors even for 7×7 planes); the columns past outW in
 * each padded row are computed and dropped. */

TGT static void SFX(depthwise_plane_flat)(const float *restrict x, float *restrict y, const float *restrict w, float bias,
                                          const ocm_depthwise_geometry *g, float *restrict scratch) {
    const int Wp = g->outW + g->kw - 1, Hp = g->outH + g->kh - 1;
    float *restrict padded = scratch;
    float *restrict acc = scratch + OCM_DEPTHWISE_FLAT_MAX;
    for (int i = 0; i < Hp * Wp; i++) padded[i] = 0.0f;
    for (int iy = 0; iy < g->H; iy++) {
        int py = iy + g->pad_top;
        if (py < 0 || py >= Hp) continue;
        for (int ix = 0; ix < g->W; ix++) {
            int px = ix + g->pad_left;
            if (px >= 0 && px < Wp) padded[py * Wp + px] = x[(size_t)iy * g->W + ix];
        }
    }
    const int n = (g->outH - 1) * Wp + g->outW;
    for (int i = 0; i < n; i++) acc[i] = bias;
    for (int ky = 0; ky < g->kh; ky++) {
        for (int kx = 0; kx < g->kw; kx++) {
            const float weight = w[ky * g->kw + kx];
            const float *restrict src = padded + ky * Wp + kx;
            for (int i = 0; i < n; i++) acc[i] += weight * src[i];
        }
    }
    for (int oy = 0; oy < g->outH; oy++) {
        for (int ox = 0; ox < g->outW; ox++) y[(size_t)oy * g->outW + ox] = acc[oy * Wp + ox];
    }
}

TGT static void SFX(depthwise_plane)(const float *restrict x, float *restrict y, const float *restrict w, float bias,
                                     const ocm_depthwise_geometry *g, float *scratch) {
    const int H = g->H, W = g->W, outH = g->outH, outW = g->outW;
    const int kh = g->kh, kw = g->kw, sh = g->sh, sw = g->sw, dh = g->dh, dw = g->dw;
    if (scratch != NULL && sh == 1 && sw == 1 && dh == 1 && dw == 1 && (outH + kh - 1) * (outW + kw - 1) <= OCM_DEPTHWISE_FLAT_MAX) {
        SFX(depthwise_plane_flat)(x, y, w, bias, g, scratch);
        return;
    }
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
