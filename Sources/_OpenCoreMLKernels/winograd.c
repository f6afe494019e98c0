/*
 * winograd.c — 3×3 convolutions with stride 1 and dilation 1 by Winograd's minimal filtering
 * F(2×2, 3×3): every 2×2 block of outputs comes from a 4×4 tile of input, so a convolution
 * becomes 16 matrix products (one per tile position) of the transformed weights U (out × in)
 * by the transformed input tiles V (in × tiles), then one small transform back per output block.
 * That is 16 multiply-adds per 4 outputs and input channel instead of 36: 2.25× fewer than the
 * im2col product, for the price of the transforms (linear in the data, not in the channels).
 *
 * The transforms (B for inputs, G for weights, A for outputs) are the standard F(2, 3) ones:
 *   Bᵀ = [1 0 −1 0; 0 1 1 0; 0 −1 1 0; 0 1 0 −1]   G = [1 0 0; ½ ½ ½; ½ −½ ½; 0 0 1]
 *   Aᵀ = [1 1 1 0; 0 1 −1 −1]
 * and y = Aᵀ [(G g Gᵀ) ⊙ (Bᵀ d B)] A for each 3×3 kernel g and 4×4 input tile d. Their values
 * are exact in binary, so the only rounding added is the sums' own.
 */
#include "ocm_internal.h"

#include <stdlib.h>
#include <string.h>

enum { TILE_GRAIN = 1 << 12 }; /* tile transforms per thread at least */

/* MARK: - Weights */

void ocm_winograd3x3_weights(const float *w, int outC, int inC, float *u) {
    assert(outC >= 0 && inC >= 0);
    const size_t matrix = (size_t)outC * inC;
    for (size_t o = 0; o < (size_t)outC; o++) {
        for (size_t i = 0; i < (size_t)inC; i++) {
            const float *g = w + (o * inC + i) * 9;
            float t[4][3]; /* G g */
            for (int c = 0; c < 3; c++) {
                t[0][c] = g[c];
                t[1][c] = 0.5f * (g[c] + g[3 + c] + g[6 + c]);
                t[2][c] = 0.5f * (g[c] - g[3 + c] + g[6 + c]);
                t[3][c] = g[6 + c];
            }
            for (int r = 0; r < 4; r++) { /* (G g) Gᵀ, row r */
                float v[4] = {t[r][0], 0.5f * (t[r][0] + t[r][1] + t[r][2]),
                              0.5f * (t[r][0] - t[r][1] + t[r][2]), t[r][2]};
                for (int c = 0; c < 4; c++) u[(size_t)(r * 4 + c) * matrix + o * inC + i] = v[c];
            }
        }
    }
}

/* MARK: - Convolution */

typedef struct winograd_job {
    const float *x, *u, *packed, *bias;
    float *y, *v, *m;
    size_t packed_stride;
    int packed_isa, inC, outC, H, W, pt, pl, outH, outW, tilesW;
    size_t tiles;
    float lo, hi;
} winograd_job;

size_t ocm_winograd3x3_scratch_floats(int inC, int outC, int outH, int outW) {
    assert(inC >= 0 && outC >= 0 && outH >= 0 && outW >= 0);
    size_t tiles = (size_t)((outH + 1) / 2) * (size_t)((outW + 1) / 2);
    return 16 * tiles * ((size_t)inC + (size_t)outC);
}

/* Input channels [begin, end): each 4×4 tile d (zero outside the image) becomes Bᵀ d B, its 16
 * values going to the 16 positions' matrices V[p][channel][tile]. A row of tiles at a time: the
 * four input rows it reads (zero-padded to 2·tilesW + 2 columns) are combined into Bᵀ's four rows
 * first, then every tile of the row takes its columns from those, so the loops run along rows
 * and the compiler vectorises them. */
static void input_range(void *raw, size_t begin, size_t end) {
    const winograd_job *j = raw;
    const int H = j->H, W = j->W, tilesW = j->tilesW, tilesH = (int)(j->tiles / (size_t)tilesW);
    const int wide = 2 * tilesW + 2;
    const size_t plane = (size_t)j->inC * j->tiles;
    float *rows = ocm_alloc_or_die(sizeof(float) * 8 * (size_t)wide, "Winograd input rows");
    float *d[4] = {rows, rows + wide, rows + 2 * wide, rows + 3 * wide};
    float *e[4] = {rows + 4 * wide, rows + 5 * wide, rows + 6 * wide, rows + 7 * wide};
    /* Input columns [first, last) of a padded row are inside the image. */
    const int first = OCM_MIN(j->pl, wide), last = OCM_MAX(first, OCM_MIN(wide, W + j->pl));
    for (size_t c = begin; c < end; c++) {
        const float *x = j->x + c * (size_t)H * W;
        for (int th = 0; th < tilesH; th++) {
            for (int r = 0; r < 4; r++) {
                const int h = 2 * th - j->pt + r;
                if (h < 0 || h >= H || first >= last) {
                    memset(d[r], 0, sizeof(float) * (size_t)wide);
                    continue;
                }
                memset(d[r], 0, sizeof(float) * (size_t)first);
                memcpy(d[r] + first, x + (size_t)h * W + (first - j->pl), sizeof(float) * (size_t)(last - first));
                memset(d[r] + last, 0, sizeof(float) * (size_t)(wide - last));
            }
            for (int k = 0; k < wide; k++) { /* Bᵀ d, for every column of the row of tiles */
                e[0][k] = d[0][k] - d[2][k];
                e[1][k] = d[1][k] + d[2][k];
                e[2][k] = d[2][k] - d[1][k];
                e[3][k] = d[1][k] - d[3][k];
            }
            float *v = j->v + c * j->tiles + (size_t)th * tilesW;
            for (int r = 0; r < 4; r++) { /* (Bᵀ d) B, row r, tile after tile */
                const float *er = e[r];
                float *v0 = v + (size_t)(4 * r) * plane, *v1 = v0 + plane, *v2 = v1 + plane, *v3 = v2 + plane;
                for (int tw = 0; tw < tilesW; tw++) {
                    const float a = er[2 * tw], b = er[2 * tw + 1], cc = er[2 * tw + 2], dd = er[2 * tw + 3];
                    v0[tw] = a - cc;
                    v1[tw] = b + cc;
                    v2[tw] = cc - b;
                    v3[tw] = b - dd;
                }
            }
        }
    }
    free(rows);
}

/* Tile positions [begin, end): M[p] = U[p] · V[p], each product on this thread alone. */
static void product_range(void *raw, size_t begin, size_t end) {
    const winograd_job *j = raw;
    const int T = (int)j->tiles;
    const ocm_gemm_epilogue none = {NULL, OCM_EPILOGUE_NONE, 0.0f, 0.0f};
    for (size_t p = begin; p < end; p++) {
        const float *v = j->v + p * (size_t)j->inC * j->tiles;
        float *m = j->m + p * (size_t)j->outC * j->tiles;
        if (j->packed != NULL) {
            ocm_sgemm_prepacked(j->packed_isa, j->packed + p * j->packed_stride, false, j->outC, T, j->inC, 1.0f,
                                v, T, 0.0f, m, T, none);
        } else {
            ocm_sgemm(false, false, j->outC, T, j->inC, 1.0f, j->u + p * (size_t)j->outC * j->inC, j->inC,
                      v, T, 0.0f, m, T);
        }
    }
}

/* Output channels [begin, end): each tile's 4×4 products m become the 2×2 block Aᵀ m A, plus
 * the bias, clamped to [lo, hi] (NaN stays NaN), the block's outputs past the edge dropped. A row
 * of tiles at a time, along the row. */
static void output_range(void *raw, size_t begin, size_t end) {
    const winograd_job *j = raw;
    const int outH = j->outH, outW = j->outW, tilesW = j->tilesW, tilesH = (int)(j->tiles / (size_t)tilesW);
    const size_t plane = (size_t)j->outC * j->tiles;
    float *sums = ocm_alloc_or_die(sizeof(float) * 8 * (size_t)tilesW, "Winograd output sums");
    for (size_t o = begin; o < end; o++) {
        const float bias = j->bias != NULL ? j->bias[o] : 0.0f, lo = j->lo, hi = j->hi;
        float *y = j->y + o * (size_t)outH * outW;
        for (int th = 0; th < tilesH; th++) {
            const float *m = j->m + o * j->tiles + (size_t)th * tilesW;
            for (int c = 0; c < 4; c++) { /* Aᵀ m, column c, tile after tile */
                const float *m0 = m + (size_t)c * plane, *m1 = m0 + 4 * plane, *m2 = m1 + 4 * plane, *m3 = m2 + 4 * plane;
                float *s0 = sums + (size_t)c * tilesW, *s1 = sums + (size_t)(4 + c) * tilesW;
                for (int tw = 0; tw < tilesW; tw++) {
                    s0[tw] = m0[tw] + m1[tw] + m2[tw];
                    s1[tw] = m1[tw] - m2[tw] - m3[tw];
                }
            }
            for (int r = 0; r < 2 && 2 * th + r < outH; r++) { /* (Aᵀ m) A, output row 2·th + r */
                const float *s0 = sums + (size_t)(4 * r) * tilesW, *s1 = s0 + tilesW, *s2 = s1 + tilesW, *s3 = s2 + tilesW;
                float *row = y + (size_t)(2 * th + r) * outW;
                for (int tw = 0; tw < tilesW; tw++) {
                    float left = s0[tw] + s1[tw] + s2[tw] + bias, right = s1[tw] - s2[tw] - s3[tw] + bias;
                    left = left < lo ? lo : left;
                    right = right < lo ? lo : right;
                    row[2 * tw] = left > hi ? hi : left;
                    if (2 * tw + 1 < outW) row[2 * tw + 1] = right > hi ? hi : right;
                }
            }
        }
    }
    free(sums);
}

void ocm_winograd3x3_conv(const float *u, int packed_isa, const float *packed, const float *x, float *y,
                          int inC, int outC, int H, int W, int pt, int pl, int outH, int outW,
                          const float *bias, float lo, float hi, float *scratch) {
    assert(inC >= 0 && outC >= 0 && H >= 0 && W >= 0 && pt >= 0 && pl >= 0 && outH >= 0 && outW >= 0);
    const int tilesH = (outH + 1) / 2, tilesW = (outW + 1) / 2;
    const size_t tiles = (size_t)tilesH * tilesW;
    if (tiles == 0 || outC == 0) return;
    if (inC == 0) { /* no inputs: every output is its bias */
        for (size_t o = 0; o < (size_t)outC; o++) {
            float value = bias != NULL ? bias[o] : 0.0f;
            value = value < lo ? lo : value;
            value = value > hi ? hi : value;
            for (size_t i = 0; i < (size_t)outH * outW; i++) y[o * (size_t)outH * outW + i] = value;
        }
        return;
    }
    assert(u != NULL && x != NULL && y != NULL && scratch != NULL);
    winograd_job job = {.x = x, .u = u, .packed = packed, .bias = bias, .y = y, .v = scratch,
                        .m = scratch + 16 * tiles * (size_t)inC,
                        .packed_stride = ocm_sgemm_packed_a_floats(outC, inC), .packed_isa = packed_isa,
                        .inC = inC, .outC = outC, .H = H, .W = W, .pt = pt, .pl = pl, .outH = outH,
                        .outW = outW, .tilesW = tilesW, .tiles = tiles, .lo = lo, .hi = hi};
    const size_t per_thread = OCM_MAX((size_t)1, TILE_GRAIN / tiles);
    ocm_parallel_for_grain((size_t)inC, per_thread, input_range, &job);
    ocm_parallel_for(16, product_range, &job);
    ocm_parallel_for_grain((size_t)outC, per_thread, output_range, &job);
}
