/*
 * src/fcm/fcm_cpu_impl.h - the CPU pass of fuzzy c-means in one precision.
 * Included twice by fcm.c, with T = double and T = float, so that the
 * float32 path rounds exactly where the float32 GPU path does: distances
 * and memberships in T, sums in double.
 *
 * Memberships use the max-rescaled form of equation (1) of Anderson et al.
 * (2008): u_j = w_j / sum_k w_k with w_j = (d_min / d_j)^(1/(m-1)), so every
 * w lies in (0, 1] and nothing overflows for any dynamic range of d; a
 * point on one or more centres (d_min = 0) shares its membership equally
 * among those centres, the limit of (1) as the distance goes to zero.
 */

/* Squared distance of xi to centre vj (Euclidean, or GK with the norm aj). */
static T SFX(dist)(const T *xi, const T *vj, const T *aj, size_t d, T *diff) {
    T s = 0;
    if (!aj) {
        for (size_t k = 0; k < d; k++) {
            T t = xi[k] - vj[k];
            s += t * t;
        }
        return s;
    }
    for (size_t k = 0; k < d; k++) diff[k] = xi[k] - vj[k];
    for (size_t k = 0; k < d; k++) {
        T r = 0;
        for (size_t l = 0; l < d; l++) r += aj[k * d + l] * diff[l];
        s += diff[k] * r;
    }
    return s > 0 ? s : 0; /* A is positive definite; rounding may dip below 0 */
}

/* Memberships u (c) of point xi for centres v; dist gets the distances. */
static void SFX(memb)(const T *xi, const T *v, const T *a, size_t d, size_t c, double m, T *dist,
                      T *u, T *diff) {
    T dmin = 0;
    for (size_t j = 0; j < c; j++) {
        dist[j] = SFX(dist)(xi, v + j * d, a ? a + j * d * d : NULL, d, diff);
        if (j == 0 || dist[j] < dmin) dmin = dist[j];
    }
    if (dmin == 0) {
        size_t nz = 0;
        for (size_t j = 0; j < c; j++) nz += dist[j] == 0;
        for (size_t j = 0; j < c; j++) u[j] = dist[j] == 0 ? (T)1 / (T)nz : 0;
        return;
    }
    T e = (T)(1.0 / (m - 1.0)), sum = 0;
    for (size_t j = 0; j < c; j++) {
        T w = dmin / dist[j];
        u[j] = m == 2.0 ? w : SFX(pow)(w, e);
        sum += u[j];
    }
    for (size_t j = 0; j < c; j++) u[j] /= sum;
}

static inline T SFX(powm)(T u, double m) {
    return m == 2.0 ? u * u : SFX(pow)(u, (T)m);
}

static int SFX(pass)(haze_ctx *ctx, haze__fcm_pass *p) {
    const size_t n = p->n, d = p->d, c = p->c;
    const size_t stride = haze__fcm_stride(c, d, p->cov);
    /* Fixed tiling: the tile size depends only on the whole problem, and the
     * tiles' partial sums are added by a fixed pairwise tree over the global
     * tile index (haze__fcm_tree_sum), so the sums are the same for any
     * number of threads and any split into parts. This part's rows
     * [row0, row0 + n) start on a tile boundary: its tiles [t0, t0 + ntiles). */
    const size_t total = p->parts ? p->parts->total : n, row0 = p->parts ? p->parts->first : 0;
    const size_t tile = haze__fcm_tile(total, stride);
    const size_t ntiles = (n + tile - 1) / tile, t0 = row0 / tile;
    const size_t nv = c * d, na = p->a ? c * d * d : 0, nap = p->ap ? c * d * d : 0;
    double *part = calloc((ntiles ? ntiles : 1) * stride, sizeof *part);
    T *cv = malloc((2 * nv + na + nap + 1) * sizeof *cv);
    if (!part || !cv) {
        free(part);
        free(cv);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory for %zu partial sums",
                           ntiles * stride);
    }
    /* The centres and norms rounded once to T, as the GPU receives them. */
    T *v = p->v ? cv : NULL, *vp = p->vp ? cv + nv : NULL;
    T *a = p->a ? cv + 2 * nv : NULL, *ap = p->ap ? cv + 2 * nv + na : NULL;
    for (size_t k = 0; k < nv; k++) {
        if (v) v[k] = (T)p->v[k];
        if (vp) vp[k] = (T)p->vp[k];
    }
    for (size_t k = 0; k < na; k++) a[k] = (T)p->a[k];
    for (size_t k = 0; k < nap; k++) ap[k] = (T)p->ap[k];
    const T *x = (const T *)p->x;
    const double m = p->m;
    int nomem = 0;

    /* a thread per HAZE__FCM_PAR_WORK point-centre-feature terms at least;
     * tiles dealt dynamically, as a busy core finishes late */
    const int nt = haze__threads_for(ctx, (double)n * (double)c * (double)(p->cov ? d * d : d),
                                     HAZE__FCM_PAR_WORK);
#ifdef _OPENMP
#pragma omp parallel num_threads(nt) if (nt > 1 && ntiles > 1)
#endif
    {
        T *scr = malloc((4 * c + d + 1) * sizeof *scr);
        if (!scr) {
#ifdef _OPENMP
#pragma omp atomic write
#endif
            nomem = 1;
        }
        T *dist = scr, *u = scr + c, *up = scr + 2 * c, *dp = scr + 3 * c, *diff = scr + 4 * c;
#ifdef _OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
        for (size_t t = 0; t < ntiles; t++) {
            if (!scr) continue;
            double *s = part + t * stride, *w = s + (p->cov ? nv * d : nv), *sc = w + c;
            size_t i1 = (t + 1) * tile < n ? (t + 1) * tile : n;
            for (size_t i = t * tile; i < i1; i++) {
                const T *xi = x + i * d;
                /* U(k-1) of this point */
                if (p->src == HAZE__FCM_SRC_RANDOM) {
                    double tot = 0;
                    for (size_t j = 0; j < c; j++) tot += haze__fcm_rand(p->seed, row0 + i, j, c);
                    for (size_t j = 0; j < c; j++)
                        up[j] = (T)(haze__fcm_rand(p->seed, row0 + i, j, c) / tot);
                } else if (p->src == HAZE__FCM_SRC_MEMORY) {
                    for (size_t j = 0; j < c; j++) up[j] = (T)p->u0[i * c + j];
                } else {
                    SFX(memb)(xi, vp, ap, d, c, m, dp, up, diff);
                }
                if (p->cov) { /* GK: fuzzy covariance about v */
                    for (size_t j = 0; j < c; j++) {
                        T um = SFX(powm)(up[j], m);
                        double *f = s + j * d * d;
                        w[j] += um;
                        for (size_t k = 0; k < d; k++) diff[k] = xi[k] - v[j * d + k];
                        for (size_t k = 0; k < d; k++)
                            for (size_t l = 0; l < d; l++)
                                f[k * d + l] += (double)(um * diff[k] * diff[l]);
                    }
                    continue;
                }
                if (!v) { /* first centre update only */
                    for (size_t j = 0; j < c; j++) {
                        T um = SFX(powm)(up[j], m);
                        w[j] += um;
                        for (size_t k = 0; k < d; k++) s[j * d + k] += (double)(um * xi[k]);
                    }
                    continue;
                }
                SFX(memb)(xi, v, a, d, c, m, dist, u, diff);
                double jp = 0, du = 0, pc = 0, pe = 0, js = 0;
                for (size_t j = 0; j < c; j++) {
                    T um = SFX(powm)(u[j], m);
                    jp += (double)(SFX(powm)(up[j], m) * dist[j]);
                    js += (double)(um * dist[j]);
                    double dd = (double)u[j] - (double)up[j];
                    du += dd * dd;
                    pc += (double)u[j] * (double)u[j];
                    if (u[j] > 0) pe -= (double)u[j] * log((double)u[j]);
                    w[j] += um;
                    for (size_t k = 0; k < d; k++) s[j * d + k] += (double)(um * xi[k]);
                    if (p->u_out) p->u_out[i * c + j] = (double)u[j];
                }
                sc[HAZE__FCM_J] += jp;
                sc[HAZE__FCM_DU2] += du;
                sc[HAZE__FCM_PC] += pc;
                sc[HAZE__FCM_PE] += pe;
                sc[HAZE__FCM_JSELF] += js;
            }
        }
        free(scr);
    }
    free(cv);
    if (nomem) {
        free(part);
        return haze__error(ctx, HAZE_ERR_NOMEM, "fcm: out of memory for thread scratch");
    }
    /* The pairwise tree over the tiles (with parts: over every part's). */
    const int st = haze__fcm_tree_sum(ctx, p->parts, part, t0, t0 + ntiles, stride, p->sums);
    free(part);
    return st;
}
