/*
 * elementwise_simd.h — the elementwise ops written once over a small vector vocabulary, and
 * included by elementwise_x86.c once per instruction set. Not a public header.
 *
 * The includer defines:
 *   VT, W                 vector type and its number of float lanes
 *   TGT                   the function attribute that enables the instruction set
 *   SFX(name)             name with the instruction set's suffix
 *   V_LOAD(p) V_STORE(p, v) V_SET1(s)
 *   V_ADD V_SUB V_MUL V_DIV V_MAX V_MIN (a, b)   V_FMA(a, b, c) = a·b + c
 *   V_SQRT(v) V_ABS(v) V_ROUND(v) (to nearest, ties to even) V_FLOOR(v) V_CEIL(v)
 *   V_POW2(n) (2ⁿ for integral n in [−127, 128])
 *   V_SELECT_GT(x, t, a, b) = x > t ? a : b (per lane)
 *   V_HSUM(v) V_HMAX(v)   horizontal sum / maximum
 *   SFX(copy_rows), SFX(add_rows)   (they need masked loads and stores, so the includer
 *                         writes them)
 * Lengths that are not a multiple of W finish through a W-float stack buffer, so every element
 * goes through the same vector code.
 */

/* y = EXPR(vx) over n elements; EXPR may use vx (the input vector). */
#define SIMD_MAP1(x, y, n, EXPR)                                                             \
    do {                                                                                     \
        size_t i_ = 0;                                                                       \
        for (; i_ + W <= (n); i_ += W) {                                                     \
            VT vx = V_LOAD((x) + i_);                                                        \
            V_STORE((y) + i_, (EXPR));                                                       \
        }                                                                                    \
        if (i_ < (n)) {                                                                      \
            float bx_[W] = {0}, by_[W];                                                      \
            size_t r_ = (n) - i_;                                                            \
            memcpy(bx_, (x) + i_, r_ * sizeof(float));                                       \
            VT vx = V_LOAD(bx_);                                                             \
            V_STORE(by_, (EXPR));                                                            \
            memcpy((y) + i_, by_, r_ * sizeof(float));                                       \
        }                                                                                    \
    } while (0)

/* y = EXPR(va, vb) over n elements. */
#define SIMD_MAP2(a, b, y, n, EXPR)                                                          \
    do {                                                                                     \
        size_t i_ = 0;                                                                       \
        for (; i_ + W <= (n); i_ += W) {                                                     \
            VT va = V_LOAD((a) + i_), vb = V_LOAD((b) + i_);                                 \
            V_STORE((y) + i_, (EXPR));                                                       \
        }                                                                                    \
        if (i_ < (n)) {                                                                      \
            float ba_[W] = {0}, bb_[W] = {0}, by_[W];                                        \
            size_t r_ = (n) - i_;                                                            \
            memcpy(ba_, (a) + i_, r_ * sizeof(float));                                       \
            memcpy(bb_, (b) + i_, r_ * sizeof(float));                                       \
            VT va = V_LOAD(ba_), vb = V_LOAD(bb_);                                           \
            V_STORE(by_, (EXPR));                                                            \
            memcpy((y) + i_, by_, r_ * sizeof(float));                                       \
        }                                                                                    \
    } while (0)

/* exp(x), Cephes' single-precision polynomial (about 1 ulp); x is clamped to [−87.3, 88.7]. */
TGT static inline VT SFX(vexp)(VT x) {
    x = V_MIN(V_MAX(x, V_SET1(-87.33654f)), V_SET1(88.72283f));
    VT n = V_ROUND(V_MUL(x, V_SET1(1.44269504088896341f)));
    VT r = V_FMA(n, V_SET1(-0.693359375f), x);
    r = V_FMA(n, V_SET1(2.12194440e-4f), r);
    VT p = V_SET1(1.9875691500e-4f);
    p = V_FMA(p, r, V_SET1(1.3981999507e-3f));
    p = V_FMA(p, r, V_SET1(8.3334519073e-3f));
    p = V_FMA(p, r, V_SET1(4.1665795894e-2f));
    p = V_FMA(p, r, V_SET1(1.6666665459e-1f));
    p = V_FMA(p, r, V_SET1(5.0000001201e-1f));
    p = V_FMA(p, V_MUL(r, r), V_ADD(r, V_SET1(1.0f)));
    /* 2ⁿ in two halves so that n = 128 (x near 88.7) does not overflow the exponent field */
    VT half = V_ROUND(V_MUL(n, V_SET1(0.5f)));
    return V_MUL(V_MUL(p, V_POW2(half)), V_POW2(V_SUB(n, half)));
}

TGT static inline VT SFX(vsigmoid)(VT x) {
    VT one = V_SET1(1.0f);
    return V_DIV(one, V_ADD(one, SFX(vexp)(V_SUB(V_SET1(0.0f), x))));
}

/* tanh: Cephes' odd polynomial for |x| < 0.625, else sign(x)·(1 − 2/(exp(2|x|) + 1)). */
TGT static inline VT SFX(vtanh)(VT x) {
    VT ax = V_ABS(x);
    VT z = V_MUL(x, x);
    VT p = V_SET1(-5.70498872745e-3f);
    p = V_FMA(p, z, V_SET1(2.06390887954e-2f));
    p = V_FMA(p, z, V_SET1(-5.37397155531e-2f));
    p = V_FMA(p, z, V_SET1(1.33314422036e-1f));
    p = V_FMA(p, z, V_SET1(-3.33332819422e-1f));
    VT small = V_FMA(V_MUL(p, z), x, x);
    VT e = SFX(vexp)(V_ADD(ax, ax));
    VT big = V_SUB(V_SET1(1.0f), V_DIV(V_SET1(2.0f), V_ADD(e, V_SET1(1.0f))));
    big = V_SELECT_GT(x, V_SET1(0.0f), big, V_SUB(V_SET1(0.0f), big));
    return V_SELECT_GT(ax, V_SET1(0.625f), big, small);
}

/* 1 − erf(a) for a ≥ 0 by Abramowitz and Stegun's 7.1.26: t·P(t)·e^(−a²), t = 1/(1 + 0.3275911·a)
 * (absolute error below 1.5·10⁻⁷). */
TGT static inline VT SFX(verfc_positive)(VT a) {
    VT t = V_DIV(V_SET1(1.0f), V_FMA(a, V_SET1(0.3275911f), V_SET1(1.0f)));
    VT p = V_SET1(1.061405429f);
    p = V_FMA(p, t, V_SET1(-1.453152027f));
    p = V_FMA(p, t, V_SET1(1.421413741f));
    p = V_FMA(p, t, V_SET1(-0.284496736f));
    p = V_FMA(p, t, V_SET1(0.254829592f));
    return V_MUL(V_MUL(p, t), SFX(vexp)(V_SUB(V_SET1(0.0f), V_MUL(a, a))));
}

/* GELU by erf: x·Φ(x) = x − h for x > 0, else h, with h = x/2·(1 − erf(|x|/√2)) and that
 * 1 − erf by verfc_positive, so negative inputs keep their small values without cancellation.
 * NaN stays NaN. */
TGT static inline VT SFX(vgelu_erf)(VT x) {
    VT q = SFX(verfc_positive)(V_MUL(V_ABS(x), V_SET1(0.70710678118654752f)));
    VT h = V_MUL(V_MUL(x, V_SET1(0.5f)), q);
    return V_SELECT_GT(x, V_SET1(0.0f), V_SUB(x, h), h);
}

TGT static void SFX(gelu_erf)(const float *x, float *y, size_t n) {
    SIMD_MAP1(x, y, n, SFX(vgelu_erf)(vx));
}

/* GELU by tanh: x/2·(1 + tanh(u)) = x / (1 + exp(−2u)), u = √(2/π)·(x + 0.044715·x³). */
TGT static void SFX(gelu_tanh)(const float *x, float *y, size_t n) {
    const VT c = V_SET1(-2.0f * OCM_GELU_TANH_C), cube = V_SET1(0.044715f), one = V_SET1(1.0f);
    SIMD_MAP1(x, y, n, V_DIV(vx, V_ADD(one, SFX(vexp)(V_MUL(c, V_FMA(V_MUL(cube, vx), V_MUL(vx, vx), vx))))));
}

/* GELU by sigmoid: x / (1 + exp(−1.702·x)). */
TGT static void SFX(gelu_sigmoid)(const float *x, float *y, size_t n) {
    const VT c = V_SET1(-1.702f), one = V_SET1(1.0f);
    SIMD_MAP1(x, y, n, V_DIV(vx, V_ADD(one, SFX(vexp)(V_MUL(c, vx)))));
}

TGT static void SFX(relu)(const float *x, float *y, size_t n) {
    const VT zero = V_SET1(0.0f);
    SIMD_MAP1(x, y, n, V_MAX(vx, zero));
}

TGT static void SFX(relu_backward)(const float *x, const float *dy, float *dx, size_t n) {
    const VT zero = V_SET1(0.0f);
    SIMD_MAP2(x, dy, dx, n, V_SELECT_GT(va, zero, vb, zero));
}

TGT static void SFX(leaky_relu)(const float *x, float *y, size_t n, float slope) {
    const VT zero = V_SET1(0.0f), s = V_SET1(slope);
    SIMD_MAP1(x, y, n, V_SELECT_GT(vx, zero, vx, V_MUL(vx, s)));
}

TGT static void SFX(leaky_relu_backward)(const float *x, const float *dy, float *dx, size_t n,
                                         float slope) {
    const VT zero = V_SET1(0.0f), s = V_SET1(slope);
    SIMD_MAP2(x, dy, dx, n, V_SELECT_GT(va, zero, vb, V_MUL(vb, s)));
}

TGT static void SFX(sigmoid)(const float *x, float *y, size_t n) {
    SIMD_MAP1(x, y, n, SFX(vsigmoid)(vx));
}

TGT static void SFX(sigmoid_backward)(const float *y, const float *dy, float *dx, size_t n) {
    const VT one = V_SET1(1.0f);
    SIMD_MAP2(y, dy, dx, n, V_MUL(V_MUL(vb, va), V_SUB(one, va)));
}

TGT static void SFX(tanh)(const float *x, float *y, size_t n) {
    SIMD_MAP1(x, y, n, SFX(vtanh)(vx));
}

TGT static void SFX(tanh_backward)(const float *y, const float *dy, float *dx, size_t n) {
    const VT one = V_SET1(1.0f);
    SIMD_MAP2(y, dy, dx, n, V_MUL(vb, V_SUB(one, V_MUL(va, va))));
}

TGT static void SFX(add)(const float *a, const float *b, float *y, size_t n) {
    SIMD_MAP2(a, b, y, n, V_ADD(va, vb));
}

TGT static void SFX(mul)(const float *a, const float *b, float *y, size_t n) {
    SIMD_MAP2(a, b, y, n, V_MUL(va, vb));
}

TGT static void SFX(axpy)(const float *x, float *y, size_t n, float alpha) {
    const VT s = V_SET1(alpha);
    SIMD_MAP2(x, y, y, n, V_FMA(s, va, vb));
}

TGT static void SFX(scale)(const float *x, float *y, size_t n, float alpha) {
    const VT s = V_SET1(alpha);
    SIMD_MAP1(x, y, n, V_MUL(s, vx));
}

TGT static void SFX(fill)(float *y, size_t n, float value) {
    const VT v = V_SET1(value);
    size_t i = 0;
    for (; i + W <= n; i += W) V_STORE(y + i, v);
    for (; i < n; i++) y[i] = value;
}

TGT static void SFX(add_scalar)(float *y, size_t n, float value) {
    const VT v = V_SET1(value);
    SIMD_MAP1(y, y, n, V_ADD(vx, v));
}

/* lo > v ? lo : v > hi ? hi : v, per lane (NaN stays NaN, as OCM_CLAMP). */
#define SIMD_CLAMP(v, vlo, vhi) V_SELECT_GT((vlo), (v), (vlo), V_SELECT_GT((v), (vhi), (vhi), (v)))

TGT static void SFX(clamp)(const float *x, float *y, size_t n, float lo, float hi) {
    const VT vlo = V_SET1(lo), vhi = V_SET1(hi);
    SIMD_MAP1(x, y, n, SIMD_CLAMP(vx, vlo, vhi));
}

TGT static void SFX(hardswish)(const float *x, float *y, size_t n, float value, float threshold, float alpha, float beta) {
    const VT vv = V_SET1(value), vt = V_SET1(threshold), va = V_SET1(alpha), vb = V_SET1(beta);
    const VT zero = V_SET1(0.0f), one = V_SET1(1.0f);
    /* t = v > threshold ? v : 0, then t·min(max(alpha·t + beta, 0), 1), as the hard sigmoid's vector form. */
#define HARDSWISH_OF(v) V_MUL(V_SELECT_GT((v), vt, (v), zero), V_MIN(V_MAX(V_FMA(va, V_SELECT_GT((v), vt, (v), zero), vb), zero), one))
    /* No bias: x as it is (adding 0 would turn −0 into +0). */
    if (value == 0.0f) SIMD_MAP1(x, y, n, HARDSWISH_OF(vx));
    else SIMD_MAP1(x, y, n, HARDSWISH_OF(V_ADD(vx, vv)));
#undef HARDSWISH_OF
}

TGT static void SFX(clamp_backward)(const float *y, const float *dy, float *dx, size_t n, float lo, float hi) {
    const VT vlo = V_SET1(lo), vhi = V_SET1(hi), zero = V_SET1(0.0f);
    SIMD_MAP2(y, dy, dx, n, V_SELECT_GT(va, vlo, V_SELECT_GT(vhi, va, vb, zero), zero));
}

TGT static void SFX(add_scalar_clamp)(float *y, size_t n, float value, float lo, float hi) {
    const VT v = V_SET1(value), vlo = V_SET1(lo), vhi = V_SET1(hi);
    SIMD_MAP1(y, y, n, SIMD_CLAMP(V_ADD(vx, v), vlo, vhi));
}

TGT static float SFX(sum)(const float *x, size_t n) {
    VT s0 = V_SET1(0.0f), s1 = s0, s2 = s0, s3 = s0;
    size_t i = 0;
    for (; i + 4 * W <= n; i += 4 * W) {
        s0 = V_ADD(s0, V_LOAD(x + i));
        s1 = V_ADD(s1, V_LOAD(x + i + W));
        s2 = V_ADD(s2, V_LOAD(x + i + 2 * W));
        s3 = V_ADD(s3, V_LOAD(x + i + 3 * W));
    }
    for (; i + W <= n; i += W) s0 = V_ADD(s0, V_LOAD(x + i));
    float s = V_HSUM(V_ADD(V_ADD(s0, s1), V_ADD(s2, s3)));
    for (; i < n; i++) s += x[i];
    return s;
}

TGT static void SFX(softmax)(const float *x, float *y, size_t n) {
    VT vmax = V_SET1(-INFINITY);
    size_t i = 0;
    for (; i + W <= n; i += W) vmax = V_MAX(vmax, V_LOAD(x + i));
    float max = V_HMAX(vmax);
    for (; i < n; i++) max = x[i] > max ? x[i] : max;
    if (max == -INFINITY) { /* every value −∞: 0/0, NaN, as the scalar path and the definition give */
        for (i = 0; i < n; i++) y[i] = NAN;
        return;
    }
    const VT vm = V_SET1(max);
    SIMD_MAP1(x, y, n, SFX(vexp)(V_SUB(vx, vm)));
    float inv = 1.0f / SFX(sum)(y, n);
    SFX(scale)(y, y, n, inv);
}

TGT static void SFX(sgd)(float *w, const float *g, float *v, size_t n, float lr, float momentum) {
    const VT vlr = V_SET1(lr), vmom = V_SET1(momentum);
    size_t i = 0;
    if (momentum == 0.0f) {
        for (; i + W <= n; i += W) {
            V_STORE(w + i, V_SUB(V_LOAD(w + i), V_MUL(vlr, V_LOAD(g + i))));
        }
        for (; i < n; i++) w[i] -= lr * g[i];
        return;
    }
    for (; i + W <= n; i += W) {
        VT vi = V_FMA(vmom, V_LOAD(v + i), V_LOAD(g + i));
        V_STORE(v + i, vi);
        V_STORE(w + i, V_SUB(V_LOAD(w + i), V_MUL(vlr, vi)));
    }
    for (; i < n; i++) {
        float vi = momentum * v[i] + g[i];
        v[i] = vi;
        w[i] -= lr * vi;
    }
}

TGT static void SFX(adam)(float *w, const float *g, float *m, float *v, size_t n, float beta1,
                          float beta2, float eps, float step_size, float inv_sqrt_bc2) {
    const VT b1 = V_SET1(beta1), c1 = V_SET1(1.0f - beta1);
    const VT b2 = V_SET1(beta2), c2 = V_SET1(1.0f - beta2);
    const VT ve = V_SET1(eps), vs = V_SET1(step_size), vbc = V_SET1(inv_sqrt_bc2);
    size_t i = 0;
    for (; i + W <= n; i += W) {
        VT gi = V_LOAD(g + i);
        VT mi = V_ADD(V_MUL(b1, V_LOAD(m + i)), V_MUL(c1, gi));
        VT vi = V_ADD(V_MUL(b2, V_LOAD(v + i)), V_MUL(c2, V_MUL(gi, gi)));
        V_STORE(m + i, mi);
        V_STORE(v + i, vi);
        VT denom = V_ADD(V_MUL(V_SQRT(vi), vbc), ve);
        V_STORE(w + i, V_SUB(V_LOAD(w + i), V_DIV(V_MUL(vs, mi), denom)));
    }
    for (; i < n; i++) {
        float mi = beta1 * m[i] + (1.0f - beta1) * g[i];
        float vi = beta2 * v[i] + (1.0f - beta2) * g[i] * g[i];
        m[i] = mi;
        v[i] = vi;
        w[i] -= step_size * mi / (sqrtf(vi) * inv_sqrt_bc2 + eps);
    }
}

/* MARK: ocm_unary's and ocm_binary's vector functions (the others stay scalar) */

#define SIMD_UNARY(name, EXPR)                                                               \
    TGT static void SFX(unary_##name)(const float *x, float *y, size_t n, float p, float q) { \
        const VT vp = V_SET1(p), vq = V_SET1(q);                                             \
        (void)vp, (void)vq;                                                                  \
        SIMD_MAP1(x, y, n, (EXPR));                                                          \
    }

/* vexp clamps its argument: here NaN stays NaN (x·0 is NaN), above 88.72 (+∞ included) the result
 * is +∞ and below −104 (−∞ included: e⁻¹⁰⁴ is below every float) 0, as expf gives;
 * between −104 and −87.3 it is about 10⁻³⁸ where expf gives a subnormal. */
TGT static inline VT SFX(vexp_full)(VT x) {
    VT r = V_ADD(SFX(vexp)(x), V_MUL(x, V_SET1(0.0f)));
    r = V_SELECT_GT(x, V_SET1(88.72283f), V_SET1(INFINITY), r);
    return V_SELECT_GT(V_SET1(-104.0f), x, V_SET1(0.0f), r);
}
SIMD_UNARY(exp, SFX(vexp_full)(vx))
SIMD_UNARY(sqrt, V_SQRT(vx))
SIMD_UNARY(rsqrt, V_DIV(V_SET1(1.0f), V_SQRT(V_ADD(vx, vp))))
SIMD_UNARY(inverse, V_DIV(V_SET1(1.0f), V_ADD(vx, vp)))
SIMD_UNARY(abs, V_ABS(vx))
SIMD_UNARY(square, V_MUL(vx, vx))
SIMD_UNARY(threshold, V_MAX(vx, vp)) /* x > p ? x : p: a NaN x gives p, as the scalar */
SIMD_UNARY(affine, V_FMA(vp, vx, vq))
/* vexp_full: a NaN stays NaN (vexp would clamp it), −∞ gives −alpha, as the scalar. */
SIMD_UNARY(elu, V_SELECT_GT(vx, V_SET1(0.0f), vx, V_MUL(vp, V_SUB(SFX(vexp_full)(vx), V_SET1(1.0f)))))
SIMD_UNARY(softsign, V_DIV(vx, V_ADD(V_SET1(1.0f), V_ABS(vx))))
SIMD_UNARY(silu, V_DIV(vx, V_ADD(V_SET1(1.0f), SFX(vexp)(V_SUB(V_SET1(0.0f), vx)))))
SIMD_UNARY(hard_sigmoid, V_MIN(V_MAX(V_FMA(vp, vx, vq), V_SET1(0.0f)), V_SET1(1.0f)))
SIMD_UNARY(scaled_tanh, V_MUL(vp, SFX(vtanh)(V_MUL(vq, vx))))
SIMD_UNARY(floor, V_FLOOR(vx))
SIMD_UNARY(ceil, V_CEIL(vx))
SIMD_UNARY(round, V_ROUND(vx))
/* min(x >= 0 ? x : p·x, q): x·p below 0 by a select on −x > 0 (NaN passes as NaN), then q where
 * the result is above it (V_MIN gives its second operand, the NaN, when one is NaN). */
SIMD_UNARY(clamped_relu, V_MIN(vq, V_SELECT_GT(V_SET1(0.0f), vx, V_MUL(vp, vx), vx)))

/* erf: below |x| = 0.5 the odd Taylor polynomial x·Σ cₙx²ⁿ to n = 6 (relative error below 10⁻⁹
 * before rounding), above it sign(x)·(1 − verfc_positive(|x|)) (absolute error below 1.5·10⁻⁷).
 * NaN stays NaN; ±∞ gives ±1. */
TGT static inline VT SFX(verf)(VT x) {
    VT ax = V_ABS(x), z = V_MUL(x, x);
    VT s = V_SET1(1.2055332981789664e-4f);
    s = V_FMA(s, z, V_SET1(-8.548327023450853e-4f));
    s = V_FMA(s, z, V_SET1(5.223977625442188e-3f));
    s = V_FMA(s, z, V_SET1(-2.6866170645131252e-2f));
    s = V_FMA(s, z, V_SET1(1.1283791670955126e-1f));
    s = V_FMA(s, z, V_SET1(-3.7612638903183754e-1f));
    s = V_FMA(s, z, V_SET1(1.1283791670955126f));
    VT small = V_MUL(s, x);
    VT big = V_SUB(V_SET1(1.0f), SFX(verfc_positive)(ax));
    big = V_SELECT_GT(V_SET1(0.0f), x, V_SUB(V_SET1(0.0f), big), big);
    return V_SELECT_GT(V_SET1(0.5f), ax, small, big);
}
SIMD_UNARY(erf, SFX(verf)(vx))

static const ocm_unary_fn SFX(unary_table)[OCM_UNARY_COUNT] = {
    [OCM_UNARY_EXP] = SFX(unary_exp),
    [OCM_UNARY_SQRT] = SFX(unary_sqrt),
    [OCM_UNARY_RSQRT] = SFX(unary_rsqrt),
    [OCM_UNARY_INVERSE] = SFX(unary_inverse),
    [OCM_UNARY_ABS] = SFX(unary_abs),
    [OCM_UNARY_SQUARE] = SFX(unary_square),
    [OCM_UNARY_THRESHOLD] = SFX(unary_threshold),
    [OCM_UNARY_AFFINE] = SFX(unary_affine),
    [OCM_UNARY_ELU] = SFX(unary_elu),
    [OCM_UNARY_SOFTSIGN] = SFX(unary_softsign),
    [OCM_UNARY_SILU] = SFX(unary_silu),
    [OCM_UNARY_HARD_SIGMOID] = SFX(unary_hard_sigmoid),
    [OCM_UNARY_SCALED_TANH] = SFX(unary_scaled_tanh),
    [OCM_UNARY_FLOOR] = SFX(unary_floor),
    [OCM_UNARY_CEIL] = SFX(unary_ceil),
    [OCM_UNARY_ROUND] = SFX(unary_round),
    [OCM_UNARY_CLAMPED_RELU] = SFX(unary_clamped_relu),
    [OCM_UNARY_ERF] = SFX(unary_erf),
};

/* OP(u, v) in the three forms: two runs, a run and b[0], a[0] and a run. */
#define SIMD_BINARY(name, OP)                                                                \
    TGT static void SFX(name##_vv)(const float *a, const float *b, float *y, size_t n) {     \
        SIMD_MAP2(a, b, y, n, OP(va, vb));                                                   \
    }                                                                                        \
    TGT static void SFX(name##_vs)(const float *a, const float *b, float *y, size_t n) {     \
        const VT vb = V_SET1(b[0]);                                                          \
        SIMD_MAP1(a, y, n, OP(vx, vb));                                                      \
    }                                                                                        \
    TGT static void SFX(name##_sv)(const float *a, const float *b, float *y, size_t n) {     \
        const VT va = V_SET1(a[0]);                                                          \
        SIMD_MAP1(b, y, n, OP(va, vx));                                                      \
    }

#define OP_ADD(u, v) V_ADD(u, v)
#define OP_SUB(u, v) V_SUB(u, v)
#define OP_MUL(u, v) V_MUL(u, v)
#define OP_DIV(u, v) V_DIV(u, v)
/* v >= u ? v : u and v < u ? v : u (the first operand when either is NaN): V_MAX and V_MIN
 * give their second operand then. */
#define OP_MAX(u, v) V_MAX(v, u)
#define OP_MIN(u, v) V_MIN(v, u)
SIMD_BINARY(bin_add, OP_ADD)
SIMD_BINARY(bin_sub, OP_SUB)
SIMD_BINARY(bin_mul, OP_MUL)
SIMD_BINARY(bin_div, OP_DIV)
SIMD_BINARY(bin_max, OP_MAX)
SIMD_BINARY(bin_min, OP_MIN)
#undef OP_ADD
#undef OP_SUB
#undef OP_MUL
#undef OP_DIV
#undef OP_MAX
#undef OP_MIN

#define SIMD_FORMS(name) {SFX(name##_vv), SFX(name##_vs), SFX(name##_sv)}
static const ocm_binary_fn SFX(binary_table)[OCM_BINARY_COUNT][3] = {
    [OCM_BINARY_ADD] = SIMD_FORMS(bin_add),
    [OCM_BINARY_SUB] = SIMD_FORMS(bin_sub),
    [OCM_BINARY_MUL] = SIMD_FORMS(bin_mul),
    [OCM_BINARY_DIV] = SIMD_FORMS(bin_div),
    [OCM_BINARY_MAX] = SIMD_FORMS(bin_max),
    [OCM_BINARY_MIN] = SIMD_FORMS(bin_min),
};
#undef SIMD_FORMS
#undef SIMD_UNARY
#undef SIMD_BINARY

/* The table of this instruction set, named by the includer. */
#define SIMD_ELEMENTWISE_TABLE                                                               \
    {                                                                                        \
        .relu = SFX(relu), .relu_backward = SFX(relu_backward),                              \
        .leaky_relu = SFX(leaky_relu), .leaky_relu_backward = SFX(leaky_relu_backward),      \
        .sigmoid = SFX(sigmoid), .sigmoid_backward = SFX(sigmoid_backward),                  \
        .tanh = SFX(tanh), .tanh_backward = SFX(tanh_backward), .add = SFX(add),             \
        .mul = SFX(mul), .axpy = SFX(axpy), .scale = SFX(scale), .fill = SFX(fill),          \
        .add_scalar = SFX(add_scalar), .sum = SFX(sum), .softmax = SFX(softmax),             \
        .gelu_erf = SFX(gelu_erf), .gelu_tanh = SFX(gelu_tanh),                              \
        .gelu_sigmoid = SFX(gelu_sigmoid),                                                   \
        .clamp = SFX(clamp), .clamp_backward = SFX(clamp_backward),                          \
        .add_scalar_clamp = SFX(add_scalar_clamp), .hardswish = SFX(hardswish),              \
        .copy_rows = SFX(copy_rows), .add_rows = SFX(add_rows), .sgd = SFX(sgd),             \
        .adam = SFX(adam), .unary = SFX(unary_table), .binary = SFX(binary_table),           \
    }
