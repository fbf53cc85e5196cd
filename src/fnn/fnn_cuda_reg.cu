/*
 * src/fnn/fnn_cuda_reg.cu - online SONFIN training in one thread-block
 * cluster with every parameter in registers.
 *
 * Why this file: for the smallest networks (at most 16 inputs per lane, 29
 * outputs, 32 rules per warp) even the shared-memory cluster kernel
 * (fnn_cuda_cluster.cu) spends most of a step on block barriers and shared
 * memory; keeping each rule's parameters in the registers of a group of
 * lanes leaves one exchange per step and no block barrier. Which
 * configuration (blocks, warps, lanes per rule) is chosen here by a cost
 * model (haze__fnn_reg_config); the cluster file launches it
 * (haze__fnn_reg_launch). Before Hopper the kernel is a stub that traps and
 * is never launched (the device reads as having no clusters).
 */
#include "fnn/fnn_cuda.cuh"

/* --------------------------------------- online training, registers only */

/*
 * Online training of a small network in one cluster with every parameter in
 * registers (k_online_reg). Block b of C holds rules b, b + C, b + 2C, ...;
 * in it, warp w holds 32 / G of them, G lanes each, and lane l of a rule's
 * group keeps inputs l, l + G, ... (at most E) of its centre, width and
 * 1/width, the sample's inputs and, for l < L, consequent l (with one output,
 * ONE, every lane of the group keeps the consequent and the target). A step
 * has no block barrier: each warp reduces its own rules (firing sum of G
 * lanes, then Σ e^lm, Σ e^lm w_l over the warp, and the largest lm), stores
 * its partial in every block's shared memory, 16 bytes at a time, the
 * cluster meets at its barrier (the exchange of fnn_cuda_cluster.cu, which
 * says why not transaction barriers), and every warp of every block sums
 * the C x NW partials in the same fixed order, so all of them hold the same M, S, Y and take the
 * same decisions. The sums are not shifted by the strongest rule's log firing, which needs no wait
 * for it: e^lm is at most 1, and only when M < -600 (where e^lm could underflow) are they taken
 * again shifted by M. φ_k keeps the CPU's cut-off e^(lm_k - M) < e^-40; the sums include the terms
 * below it (at most R e^-40 of S). The update of step t runs at its end, in registers (the firing
 * of step t + 1 needs it anyway). Which rule is the strongest matters only when a rule is made (its
 * width is the distance to that rule), so only then is it found: each warp publishes its lowest
 * rule with lm = M and that rule's distance behind one cluster barrier.
 */
#define REG_MAX_PART  128 /* C x NW partials per exchange */
#define REG_MAX_NW    8   /* warps per block (256 threads) */
#define REG_SHIFT_MIN (-600.0)
#define REG_IDX_CHUNK 512 /* sample indices staged in shared memory at a time */
#define REG_MAX_OUT   29  /* outputs: L + 2 partial values, rounded up to even, per lane */
#define REG_PS(L)     (((L) + 3) & ~1) /* doubles per partial: Y_0..Y_(L-1), S, M, pad */
/* dynamic shared memory for P partials: 2 transaction barriers (the
 * st.async exchange), 2 spare, 2 x P x PS */
#define REG_SMEM(P, L) ((4 + 2 * (size_t)(P)*REG_PS(L)) * sizeof(double))
#define REG_SMEM_MAX   REG_SMEM(REG_MAX_PART, REG_MAX_OUT)

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900 /* the kernel body's helpers (Hopper on) */
/* (v0, v1) to shared address `addr` (16-byte aligned, this block's window)
 * of block `rank`, where `on`; no branch around the store. `rank` must be a
 * valid rank even where `on` is false (mapa maps it). With async, by
 * st.async, counted on that block's barrier at shared address bar; else a
 * plain store that the cluster's barrier after the stores (cluster.sync)
 * makes visible. */
static __device__ __forceinline__ void reg_send2(uint32_t addr, double v0, double v1, int rank,
                                                 bool on, bool async, uint32_t bar) {
    if (async)
        asm volatile("{\n\t.reg .pred q;\n\t.reg .b32 a, b;\n\t"
                     "setp.ne.u32 q, %4, 0;\n\t"
                     "mapa.shared::cluster.u32 a, %0, %3;\n\t"
                     "mapa.shared::cluster.u32 b, %5, %3;\n\t"
                     "@q st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b64 [a], "
                     "{%1, %2}, [b];\n}"
                     :
                     : "r"(addr), "l"(__double_as_longlong(v0)), "l"(__double_as_longlong(v1)),
                       "r"(rank), "r"((unsigned)on), "r"(bar)
                     : "memory");
    else
        asm volatile("{\n\t.reg .pred q;\n\t.reg .b32 a;\n\t"
                     "setp.ne.u32 q, %4, 0;\n\t"
                     "mapa.shared::cluster.u32 a, %0, %3;\n\t"
                     "@q st.shared::cluster.v2.b64 [a], {%1, %2};\n}"
                     :
                     : "r"(addr), "l"(__double_as_longlong(v0)), "l"(__double_as_longlong(v1)),
                       "r"(rank), "r"((unsigned)on)
                     : "memory");
}

/* Order of non-positive doubles (log firing strengths) as unsigned bits:
 * the larger value has the smaller bits; -inf the largest of all. */
static __device__ __forceinline__ unsigned long long reg_key(double v) {
    return (unsigned long long)__double_as_longlong(v);
}

/* Over the warp: the smallest key (the largest log firing); every lane gets it. */
static __device__ __forceinline__ unsigned long long reg_warp_min(unsigned long long key) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    unsigned hi = __reduce_min_sync(0xffffffffu, (unsigned)(key >> 32));
    unsigned lo =
        __reduce_min_sync(0xffffffffu, (unsigned)(key >> 32) == hi ? (unsigned)key : 0xffffffffu);
    return ((unsigned long long)hi << 32) | lo;
#else /* (redux.sync starts with Ampere; only the register kernel, sm_90, calls this) */
    for (int off = 16; off > 0; off >>= 1) {
        unsigned long long o = __shfl_xor_sync(0xffffffffu, key, off);
        key = o < key ? o : key;
    }
    return key;
#endif
}
#endif

/* AX: the exchange by st.async (true) or at the cluster's barrier (false;
 * a kernel of its own, so that synccheck meets no transaction barrier in
 * it) */
template <int E, bool ONE, bool AX>
static __global__ void __launch_bounds__(256, 1) k_online_reg(res_args p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    (void)p;
    __trap();
#else
    cg::cluster_group cl = cg::this_cluster();
    const int C = (int)cl.num_blocks(), rank = (int)cl.block_rank();
    const int D = p.D, L = p.L, G = p.G, RPW = 32 / G;
    const int NW = (int)(blockDim.x >> 5), lane = (int)(threadIdx.x & 31),
              warp = (int)(threadIdx.x >> 5);
    const int gi = lane / G, gl = lane & (G - 1), lead = gi * G;
    const int r = (warp * RPW + gi) * C + rank;       /* this group's rule */
    const int P = C * NW, PS = REG_PS(L), Q = PS / 2; /* partials, doubles and pairs in one */
    const bool out = ONE || gl < L; /* this lane keeps a consequent (output ONE ? 0 : gl) */
    extern __shared__ __align__(16) double sm[];
    uint64_t *bars = (uint64_t *)sm;      /* 2: transaction barriers (st.async exchange) */
    double *box = sm + 4;                 /* 2 x P x PS, 16-byte aligned rows */
    __shared__ int ix[REG_IDX_CHUNK + 1]; /* samples of steps c0 .. c0 + CHUNK */
    /* a new rule's width: each warp's lowest strongest rule and its distance */
    __shared__ unsigned pubk[2][REG_MAX_NW];
    __shared__ double pubd[2][REG_MAX_NW];
    int Lp = 1;
    while (Lp < L) Lp <<= 1;
    /* lanes per column of the partials' sum: about 8 rows each */
    int LPC = 1, lgl = 0;
    if (ONE) { /* every lane sums (Y_0, S) of its rows */
        while (8 * LPC < P) LPC <<= 1, lgl++;
    } else {
        while (2 * LPC * (L + 1) <= 32 && 8 * LPC < P) LPC <<= 1, lgl++;
    }
    /* this lane's column and start row in the sum, and its first (block,
     * pair) in the exchange and the step to its next (32 lanes on) */
    const int cc = ONE ? 0 : (lane >> lgl) < L ? (lane >> lgl) : L, ck = lane & (LPC - 1);
    const int sb0 = lane / Q, sq0 = lane - sb0 * Q, sbq = 32 / Q, sbr = 32 - sbq * Q;
    const double step2 = 2.0 * p.step, rmin = fnn_rcp(HAZE__FNN_SIGMA_MIN);

    int R = *p.nR;
    double mr[E], sr[E], ir[E], zc[E], zn[E], mk[E]; /* mk: 1 for an input, 0 past D */
    double wo = 0.0, dc = 0.0, dn = 0.0;             /* consequent, target of this lane's output */
    const int ol = ONE ? 0 : gl < L ? gl : L - 1;
#pragma unroll
    for (int e = 0; e < E; e++) {
        int j = gl + e * G;
        mr[e] = 0.0, sr[e] = 1.0, ir[e] = 0.0, zc[e] = 0.0, zn[e] = 0.0;
        mk[e] = j < D ? 1.0 : 0.0;
        if (j < D && r < R) {
            mr[e] = p.m[(size_t)r * D + j], sr[e] = p.s[(size_t)r * D + j];
            ir[e] = fnn_rcp(sr[e]);
        }
    }
    if (out && r < R) wo = p.w[(size_t)r * L + ol];
    if (p.n > 0) {
        int s0 = p.idx[0];
#pragma unroll
        for (int e = 0; e < E; e++)
            if (gl + e * G < D) zc[e] = p.z[(size_t)s0 * D + gl + e * G];
        if (out) dc = p.d[(size_t)s0 * L + ol];
    }
    const bool xasync = AX && C > 1; /* (a cluster of one block: a block barrier) */
    if (xasync && threadIdx.x == 0) fnn_xbar_init(bars);
    cl.sync();          /* every block runs (its barriers set up) before any block stores into it */
    int xc = 0, xa = 0; /* exchanges, rules made (parities) */
    /* the structure test M / D <= log_th without a division where M is
     * clearly on one side: within 2^-40 of log_th D the division decides */
    double th_lo = p.log_th * D, th_hi = th_lo;
    if (isfinite(th_lo)) {
        th_lo -= fabs(th_lo) * 0x1p-40;
        th_hi += fabs(th_hi) * 0x1p-40;
    }
    int t = 0, stop = 0;
    for (; t < p.n; t++) {
        /* the next sample into registers while this step runs */
        if (t % REG_IDX_CHUNK == 0) { /* uniform: the next chunk of sample indices */
            __syncthreads();
            for (int i = (int)threadIdx.x; i <= REG_IDX_CHUNK && t + i < p.n; i += (int)blockDim.x)
                ix[i] = p.idx[t + i];
            __syncthreads();
        }
        if (t + 1 < p.n) {
            /* no branch or use per input: the loads issue together and are
             * waited for at the end of the step (inputs past D load input
             * D - 1, which their zero 1/width keeps out) */
            const int next = ix[t % REG_IDX_CHUNK + 1];
#pragma unroll
            for (int e = 0; e < E; e++) {
                int j = gl + e * G;
                zn[e] = p.z[(size_t)next * D + (j < D ? j : D - 1)];
            }
            dn = p.d[(size_t)next * L + ol];
        }
        /* layers 2-3: the log firing of this group's rule */
        /* (inputs past D have 1/width 0: they add 0 and stay put) */
        double a0 = 0.0, a1 = 0.0;
#pragma unroll
        for (int e = 0; e < E; e += 2) {
            double x = (zc[e] - mr[e]) * ir[e];
            a0 = fma(x, x, a0);
            if (e + 1 < E) {
                double x1 = (zc[e + 1] - mr[e + 1]) * ir[e + 1];
                a1 = fma(x1, x1, a1);
            }
        }
        double acc = a0 + a1;
        for (int off = G / 2; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
        double lq = r < R ? -acc : -INFINITY;
        double shift = 0.0, tk = fnn_exp(lq);
        unsigned long long Mk = ~0ull; /* the bits of M */
        double M = -INFINITY, S = 0.0, Ysum = 0.0;
        for (int pass = 0;; pass++) {
            /* this warp's partial: S_w and Y_w,l (lane l; every lane with
             * ONE) over its groups, its largest log firing */
            double sw = tk, yw = out ? tk * wo : 0.0;
            for (int off = G; off < 32; off <<= 1) {
                sw += __shfl_xor_sync(0xffffffffu, sw, off);
                yw += __shfl_xor_sync(0xffffffffu, yw, off);
            }
            const double kw = __longlong_as_double((long long)reg_warp_min(reg_key(lq)));
            double *bx = box + (size_t)(xc & 1) * P * PS;
            uint64_t *bar = bars + (xc & 1);
            if (xasync && threadIdx.x == 0)
                fnn_xbar_expect(bar, (unsigned)(P * PS * sizeof(double)));
            /* pair q of the partial (values 2q, 2q + 1) to block b from lane
             * b Q + q (and 32 on), then the cluster's barrier; a cluster of
             * one block stores into its own shared memory and meets at a
             * block barrier */
            if (C == 1) {
                const int q = lane < Q ? lane : 0; /* Q <= 16 (REG_MAX_OUT) */
                double v0, v1;
                if (ONE) { /* (Y_0, S), (M, 0) */
                    v0 = q == 0 ? yw : kw;
                    v1 = q == 0 ? sw : 0.0;
                } else {
                    const int c0 = 2 * q, c1 = c0 + 1;
                    double y0 = __shfl_sync(0xffffffffu, yw, c0 < L ? c0 : 0);
                    double y1 = __shfl_sync(0xffffffffu, yw, c1 < L ? c1 : 0);
                    v0 = c0 < L ? y0 : c0 == L ? sw : kw;
                    v1 = c1 < L ? y1 : c1 == L ? sw : c1 == L + 1 ? kw : 0.0;
                }
                if (lane < Q) *(double2 *)(bx + (size_t)warp * PS + 2 * q) = make_double2(v0, v1);
                __syncthreads();
            } else {
                int b = sb0, q = sq0;
                const uint32_t base =
                    (uint32_t)__cvta_generic_to_shared(bx + (size_t)(rank * NW + warp) * PS);
                const uint32_t bara = (uint32_t)__cvta_generic_to_shared(bar);
                for (int i0 = 0; i0 < C * Q; i0 += 32) { /* uniform */
                    double v0, v1;
                    if (ONE) { /* (Y_0, S), (M, 0) */
                        v0 = q == 0 ? yw : kw;
                        v1 = q == 0 ? sw : 0.0;
                    } else {
                        const int c0 = 2 * q, c1 = c0 + 1;
                        double y0 = __shfl_sync(0xffffffffu, yw, c0 < L ? c0 : 0);
                        double y1 = __shfl_sync(0xffffffffu, yw, c1 < L ? c1 : 0);
                        v0 = c0 < L ? y0 : c0 == L ? sw : kw;
                        v1 = c1 < L ? y1 : c1 == L ? sw : c1 == L + 1 ? kw : 0.0;
                    }
                    reg_send2(base + 16u * (unsigned)q, v0, v1, b < C ? b : 0, b < C, xasync, bara);
                    b += sbq, q += sbr;
                    if (q >= Q) q -= Q, b++;
                }
                /* every block's partials are in `bx` */
                if (xasync)
                    fnn_xbar_wait(bar, (unsigned)(xc >> 1) & 1);
                else
                    cl.sync();
            }
            xc++;
            /* the cluster's sums, in the same order in every warp */
            if (ONE) {
                /* lane k of LPC sums rows k, k + LPC, ... of (Y_0, S), then a
                 * tree: every lane gets both */
                double y[8], s[8];
#pragma unroll
                for (int m = 0; m < 8; m++) { /* rows past P read row ck, counted 0 */
                    int i = ck + m * LPC;
                    double2 v = *(const double2 *)(bx + (size_t)(i < P ? i : ck) * PS);
                    y[m] = i < P ? v.x : 0.0;
                    s[m] = i < P ? v.y : 0.0;
                }
                Ysum = ((y[0] + y[2]) + (y[4] + y[6])) + ((y[1] + y[3]) + (y[5] + y[7]));
                S = ((s[0] + s[2]) + (s[4] + s[6])) + ((s[1] + s[3]) + (s[5] + s[7]));
                for (int off = LPC / 2; off > 0; off >>= 1) {
                    Ysum += __shfl_xor_sync(0xffffffffu, Ysum, off);
                    S += __shfl_xor_sync(0xffffffffu, S, off);
                }
            } else {
                /* LPC lanes per column (Y_0 .. Y_(L-1), S; lanes past them
                 * repeat S's), each over rows k, k + LPC, ..., then a tree */
                const double *col = bx + cc;
                double v[8];
#pragma unroll
                for (int m = 0; m < 8; m++) { /* rows past P read row ck, counted 0 */
                    int i = ck + m * LPC;
                    v[m] = col[(size_t)(i < P ? i : ck) * PS];
                    v[m] = i < P ? v[m] : 0.0;
                }
                double s0 = (v[0] + v[2]) + (v[4] + v[6]), s1 = (v[1] + v[3]) + (v[5] + v[7]);
                for (int i = ck + 8 * LPC; i < P; i += LPC) s0 += col[(size_t)i * PS];
                Ysum = s0 + s1;
                for (int off = LPC / 2; off > 0; off >>= 1)
                    Ysum += __shfl_xor_sync(0xffffffffu, Ysum, off);
                S = __shfl_sync(0xffffffffu, Ysum, L * LPC);
            }
            {
                unsigned long long kb = ~0ull;
#pragma unroll
                for (int k = 0; k < REG_MAX_PART / 32; k++) { /* rows repeated past P */
                    int i = lane + 32 * k < P ? lane + 32 * k : P - 1;
                    unsigned long long kk =
                        (unsigned long long)__double_as_longlong(bx[(size_t)i * PS + L + 1]);
                    kb = kk < kb ? kk : kb;
                    if (32 * (k + 1) >= P) break; /* uniform */
                }
                Mk = reg_warp_min(kb);
                M = __longlong_as_double((long long)Mk);
            }
            if (pass == 0) {
                /* structure test (uniform over the cluster) */
                int add = R == 0 || (M < th_lo ? 1 : M > th_hi ? 0 : M / (double)D <= p.log_th);
                if (add && R >= p.limit) {
                    stop = p.grow; /* the host makes room and goes on from step t */
                    add = 0;
                }
                if (stop) break;
                if (add) {
                    double width = p.width > 0.0 ? p.width : p.sigma0;
                    if (R > 0 && !(p.width > 0.0)) {
                        /* the strongest rule (the lowest of those with lm =
                         * M, the CPU's first argmax): every group takes its
                         * distance (uniform shuffles), each warp publishes
                         * its candidate's */
                        const unsigned kw = __reduce_min_sync(
                            0xffffffffu, r < R && reg_key(lq) == Mk ? (unsigned)r : 0xffffffffu);
                        double a = 0.0;
#pragma unroll
                        for (int e = 0; e < E; e++) {
                            double dz = (zc[e] - mr[e]) * mk[e];
                            a += dz * dz;
                        }
                        for (int off = G / 2; off > 0; off >>= 1)
                            a += __shfl_xor_sync(0xffffffffu, a, off);
                        if ((unsigned)r == kw && gl == 0) pubd[xa & 1][warp] = a;
                        if (lane == 0) pubk[xa & 1][warp] = kw;
                        cl.sync();
                        unsigned kb = 0xffffffffu;
                        double ab = 0.0;
                        for (int b = 0; b < C; b++) {
                            const unsigned *rk =
                                C == 1 ? &pubk[xa & 1][0] : cl.map_shared_rank(&pubk[xa & 1][0], b);
                            const double *rd =
                                C == 1 ? &pubd[xa & 1][0] : cl.map_shared_rank(&pubd[xa & 1][0], b);
                            for (int w = 0; w < NW; w++)
                                if (rk[w] < kb) kb = rk[w], ab = rd[w];
                        }
                        width = p.beta * sqrt(ab / (double)D);
                    }
                    if (!(width >= HAZE__FNN_SIGMA_MIN)) width = HAZE__FNN_SIGMA_MIN;
                    if (r == R) { /* this group makes the rule: the sample is its centre */
                        double iw = fnn_rcp(width);
#pragma unroll
                        for (int e = 0; e < E; e++)
                            mr[e] = zc[e], sr[e] = width, ir[e] = iw * mk[e];
                        if (out) wo = dc;
                        lq = -0.0;
                        tk = 1.0;
                    }
                    R++;
                    xa++;
                    continue; /* the sums again, with the new rule */
                }
            }
            if (shift == 0.0 && M < REG_SHIFT_MIN) { /* e^lm may underflow: shift by M */
                shift = M;
                tk = r < R ? fnn_exp(lq - M) : 0.0;
                continue;
            }
            break;
        }
        if (stop) break; /* uniform over the cluster */
        /* the outputs (lane l: y_l, e_l), phi_k, g_k, consequents */
        double invS = fnn_rcp(S);
        /* the lane's output: y and e (its target is dc) */
        double ym = (ONE ? Ysum : __shfl_sync(0xffffffffu, Ysum, ol * LPC)) * invS;
        double em = ym - dc;
        if (lane < L && rank == 0 && warp == 0) p.e[(size_t)t * L + lane] = em;
        double a;
        if (ONE) {
            a = em * (wo - ym);
        } else {
            a = gl < L ? em * (wo - ym) : 0.0;
            for (int off = 1; off < Lp; off <<= 1) a += __shfl_xor_sync(0xffffffffu, a, off);
            a = __shfl_sync(0xffffffffu, a, lead);
        }
        double phi = r < R && lq - M >= HAZE__FNN_LOG_CUTOFF ? tk * invS : 0.0;
        /* 2 g_k step, with g_k = phi a (phi 2 step is ready before a) */
        const double gs = (phi * step2) * a;
        if (out && r < R) wo -= p.step * (em * phi);
        /* centres and widths (the firing of the next step needs them) */
        if (gs != 0.0) { /* one block: the inputs' chains overlap */
            /* step u = q / width with q = 2 g step (z - m) / width^2: m -= q,
             * width -= q (z - m) / width (the CPU's formula, reassociated);
             * the reciprocal of the new width runs beside its clamp */
#pragma unroll
            for (int e = 0; e < E; e++) {
                double inv = ir[e], di = (zc[e] - mr[e]) * inv, q = gs * di;
                mr[e] = fma(-q, inv, mr[e]);
                double ns = fma(-q * di, inv, sr[e]);
                sr[e] = fmax(ns, HAZE__FNN_SIGMA_MIN);
                double rn = fnn_rcp(ns);
                ir[e] = (ns >= HAZE__FNN_SIGMA_MIN ? rn : rmin) * mk[e];
            }
        }
#pragma unroll
        for (int e = 0; e < E; e++) zc[e] = zn[e];
        dc = dn;
    }
    if (r < R) {
#pragma unroll
        for (int e = 0; e < E; e++) {
            int j = gl + e * G;
            if (j < D) p.m[(size_t)r * D + j] = mr[e], p.s[(size_t)r * D + j] = sr[e];
        }
        if (gl < L) p.w[(size_t)r * L + gl] = wo;
    }
    if (rank == 0 && threadIdx.x == 0) *p.nR = R, *p.pos = t;
    cl.sync(); /* no block leaves while another may still write to its shared memory */
#endif
}

/* The register kernel for E inputs per lane, with one output or more, and
 * its exchange (ax: st.async). */
template <bool AX> static void (*reg_kernel_x(int E, bool one))(res_args) {
    if (one)
        return E == 4   ? k_online_reg<4, true, AX>
               : E == 8 ? k_online_reg<8, true, AX>
                        : k_online_reg<16, true, AX>;
    return E == 4   ? k_online_reg<4, false, AX>
           : E == 8 ? k_online_reg<8, false, AX>
                    : k_online_reg<16, false, AX>;
}

static void (*reg_kernel(int E, bool one, bool ax))(res_args) {
    return ax ? reg_kernel_x<true>(E, one) : reg_kernel_x<false>(E, one);
}

/*
 * Whether `cap` rules on D inputs and L outputs fit the register kernel in
 * C blocks of NW warps: 32 / G rules per warp (G a power of two), L <= G,
 * at most 16 inputs per lane. *cost: a model of the step's dependent
 * latency in cycles (H100 measurements, docs/fnn.md): the firing and update
 * arithmetic of a lane's inputs, issued by the warps sharing a scheduler,
 * the shuffle rounds over the G lanes and over the warp's rules, the
 * exchange and the sum over the C x NW partials.
 */
static int reg_fit(int D, int L, size_t cap, int C, int NW, reg_cfg *out, double *cost) {
    if (L > REG_MAX_OUT || NW > REG_MAX_NW || C * NW > REG_MAX_PART) return 0;
    size_t per = (cap + (size_t)(C * NW) - 1) / (size_t)(C * NW);
    if (per < 1) per = 1;
    int rpw = 1;
    while ((size_t)rpw < per) rpw <<= 1;
    if (rpw > 32) return 0;
    int G = 32 / rpw;
    if (L > G) return 0;
    int need = (D + G - 1) / G;
    if (need > 16) return 0;
    int E = need <= 4 ? 4 : need <= 8 ? 8 : 16;
    int lg = 0, lr = 0;
    while ((1 << lg) < G) lg++;
    while ((1 << lr) < rpw) lr++;
    int share = (NW + 3) / 4;
    *cost = 50.0 * need * share + 64.0 * lg + 70.0 * lr + 15.0 * C + 3.0 * C * NW + 900.0;
    out->C = C, out->NW = NW, out->G = G, out->E = E;
    return 1;
}

/* The register kernel's configuration for `cap` rules, 0 if none fits, the
 * mapping is GPU-FNN's or the shared-memory cluster kernel is forced. */
int haze__fnn_reg_config(const haze__fnn_state *P, int D, int L, size_t cap, reg_cfg *out) {
    if (P->reg_cluster <= 0 || P->mapping != HAZE__FNN_MAP_ATM ||
        P->online == HAZE__FNN_ONLINE_CLUSTER)
        return 0;
    if (P->reg_C > 0) { /* forced */
        double c;
        return P->reg_C <= P->reg_cluster && reg_fit(D, L, cap, P->reg_C, P->reg_NW, out, &c);
    }
    double best = INFINITY;
    int found = 0;
    for (int C = 1; C <= P->reg_cluster; C <<= 1)
        for (int NW = 1; NW <= REG_MAX_NW; NW <<= 1) {
            reg_cfg c;
            double cost;
            if (reg_fit(D, L, cap, C, NW, &c, &cost) && cost < best)
                best = cost, *out = c, found = 1;
        }
    return found;
}

/* The largest cluster every variant of the register kernel runs in with its
 * largest exchange buffers and 256 threads (a power of two). */
int haze__fnn_reg_max_cluster(haze_ctx *ctx, int *out) {
    int rc = RES_MAX_CLUSTER;
    for (int i = 0; i < 12; i++) {
        int ci = 0;
        HAZE_CUDA_TRY(
            ctx, haze__fnn_max_cluster((const void *)reg_kernel(4 << (i % 3), (i / 3) & 1, i >= 6),
                                       32 * REG_MAX_NW, REG_SMEM_MAX, &ci));
        if (ci < rc) rc = ci;
    }
    while (rc & (rc - 1)) rc &= rc - 1;
    *out = rc;
    return HAZE_OK;
}

/* Launches the register kernel in configuration rc (cfg: the stream and
 * the cluster attribute, whose size is set here). */
int haze__fnn_reg_launch(haze_ctx *ctx, cudaLaunchConfig_t *cfg, const reg_cfg *rc, res_args p) {
    cfg->attrs[0].val.clusterDim.x = (unsigned)rc->C;
    cfg->gridDim = dim3((unsigned)rc->C), cfg->blockDim = dim3((unsigned)(32 * rc->NW));
    cfg->dynamicSmemBytes = REG_SMEM(rc->C * rc->NW, p.L);
    /* one output: every lane of a group keeps it (no shuffles for y, e) */
    HAZE_CUDA_TRY(ctx, cudaLaunchKernelEx(cfg, reg_kernel(rc->E, p.L == 1, p.xasync != 0), p));
    return HAZE_OK;
}
