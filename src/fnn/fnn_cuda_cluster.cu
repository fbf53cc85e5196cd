/*
 * src/fnn/fnn_cuda_cluster.cu - online SONFIN training in one thread-block
 * cluster, the parameters in the cluster's shared memory.
 *
 * Why this file: an online step (one sample) of a small network is a chain
 * of short dependent phases; two or three kernel launches per step cost
 * more than its arithmetic. Here one cluster of up to 16 blocks (Hopper and
 * later) runs a whole run of samples without returning to the host. The
 * host side chooses between this kernel, the register kernel
 * (fnn_cuda_reg.cu) and the launches per step (fnn_cuda_launch.cu) for a
 * shape (haze__fnn_res_wanted) and runs it (haze__fnn_res_run). Before
 * Hopper (no clusters) the kernel is a stub that traps, and the host never
 * launches it there: the device reads as having no clusters and training
 * takes the launches per step.
 */
#include <cuda_pipeline.h>

#include "fnn/fnn_cuda.cuh"

/* Shared memory of the cluster kernel (C blocks), in doubles (see its carving). */
static size_t res_smem_doubles(int D, int L, int C, int Qtot, int Qs) {
    return 2 + 3 * (size_t)D + 3 * (size_t)L + 2 * (size_t)Qtot + 2 * (size_t)C * ((size_t)L + 3) +
           2 * (size_t)L + 2 + (size_t)Qs * (2 * (size_t)D + L);
}

/* ------------------------------------- online training in one cluster */

/*
 * Online training (one sample per step) of networks whose steps are too
 * small to pay for kernel launches: one thread-block cluster (up to 16
 * blocks, each on its own SM; Hopper and later) runs a whole run of samples
 * without returning to the host. Rule k belongs to block k mod C, slot
 * q = k / C; the first Qs slots of a block keep their centres, widths and
 * consequents in that block's shared memory, further slots stay in device
 * memory (where the L2 cache holds them).
 * Per step each block sums its rules' share of layer 4 shifted by its own
 * strongest firing M_b (S_b = sum_k e^(lm_k - M_b), Y_bl = sum_k
 * e^(lm_k - M_b) w_kl) and stores (M_b, its rule, S_b, Y_b) into every
 * block's shared memory (distributed shared memory, st.async on transaction
 * barriers): one exchange per step and no cluster-wide barrier. Every
 * block then has the strongest rule (structure test) and the shifted sums
 * S = sum_b S_b e^(M_b - M), Y_l likewise, M = max_b M_b. When the test
 * makes a rule, its width needs the distance to the strongest rule (its
 * owner computes it, one cluster barrier) and the sums are made again with
 * the new rule (one more exchange), once per rule. The update of the centres and widths of
 * step t is fused with the firing of step t + 1: both pass over the same
 * elements. The decisions and the arithmetic are those of the CPU
 * reference (fnn.c), phi_k included (e^(lm_k - M) / S with the same
 * cut-off); the sums differ in order and in terms below e^-40 of a block's
 * own maximum, far under double rounding of S >= 1.
 */
/*
 * The exchange of partials between the blocks of the cluster, in one of two
 * forms that store the same values and sum them in the same order (the
 * same bits; test_fnn_cuda's test_exchange_forms):
 *
 * - st.async (the library's choice): each block stores its values straight
 *   into every block's shared memory with st.async, which counts the bytes
 *   on the receiving block's transaction barrier (mbarrier), and each block
 *   waits on its own barrier: no barrier over the whole cluster (on an H100
 *   barrier.cluster with release/acquire costs 0.7-0.8 us, the relaxed one
 *   0.17 us, measured, docs/benchmarks.md).
 * - the cluster's barrier (forced by the development library): plain
 *   stores into every block's shared memory, then cluster.sync()
 *   (barrier.cluster arrive with release, wait with acquire). This is the
 *   form compute-sanitizer's synccheck can check: with st.async each block
 *   completes transactions on the barriers of every block of the cluster
 *   (2 C barrier addresses, up to 32, beside its own two), and synccheck
 *   fails on every run ("overflow of tracked cuda::barrier structures",
 *   then a launch failure under the tool, even with --num-cuda-barriers 4).
 *   scripts/gpu-check.sh runs synccheck on this form, the other tools on
 *   the library's.
 *
 * In both, the buffers alternate by exchange parity: a block that has
 * passed exchange x + 1 stores exchange x + 2 into buffer x % 2 only after
 * every block has sent exchange x + 1, which each of its warps does after
 * reading exchange x.
 */

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900 /* the kernel body's helpers (Hopper on) */
/* v into block `rank`'s copy of *p (distributed shared memory): with bar,
 * by st.async, counted on that block's copy of *bar; without, a plain
 * store that the cluster's barrier after the stores makes visible there */
static __device__ __forceinline__ void res_send(const double *p, double v, int rank,
                                                const uint64_t *bar) {
    if (bar)
        asm volatile("{\n\t.reg .b32 a, b;\n\t"
                     "mapa.shared::cluster.u32 a, %0, %2;\n\t"
                     "mapa.shared::cluster.u32 b, %3, %2;\n\t"
                     "st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [a], %1, [b];\n}"
                     :
                     : "r"((uint32_t)__cvta_generic_to_shared(p)), "l"(__double_as_longlong(v)),
                       "r"(rank), "r"((uint32_t)__cvta_generic_to_shared(bar))
                     : "memory");
    else
        asm volatile("{\n\t.reg .b32 a;\n\t"
                     "mapa.shared::cluster.u32 a, %0, %2;\n\t"
                     "st.shared::cluster.b64 [a], %1;\n}"
                     :
                     : "r"((uint32_t)__cvta_generic_to_shared(p)), "l"(__double_as_longlong(v)),
                       "r"(rank)
                     : "memory");
}

/* Sum over lanes 0..C-1 (the others hold 0), C a power of two <= 32; every lane gets it. */
static __device__ __forceinline__ double res_lanes_sum(double a, int C) {
    for (int off = C / 2; off > 0; off >>= 1) a += __shfl_xor_sync(0xffffffffu, a, off);
    return __shfl_sync(0xffffffffu, a, 0);
}

/* a, ka becomes the larger, the lower rule among equals (the CPU's first argmax) */
static __device__ __forceinline__ void res_better(double &a, int &ka, double b, int kb) {
    if (b > a || (b == a && kb < ka)) a = b, ka = kb;
}

static __device__ __forceinline__ void res_warp_best(double &v, int &k) {
    for (int off = 16; off > 0; off >>= 1) {
        double b = __shfl_xor_sync(0xffffffffu, v, off);
        int kb = __shfl_xor_sync(0xffffffffu, k, off);
        res_better(v, k, b, kb);
    }
}

static __device__ __forceinline__ double res_warp_sum(double a) {
    for (int off = 16; off > 0; off >>= 1) a += __shfl_xor_sync(0xffffffffu, a, off);
    return a;
}

/* Gradient step of centre mj and width sj of one rule and input (g: the
 * rule's g_k, zj: the sample's input), as update_one does for B = 1. */
static __device__ __forceinline__ void res_update(double g, double zj, double step, double &mj,
                                                  double &sj) {
    double inv = fnn_rcp(sj);
    double diff = zj - mj;
    double u = 2.0 * g * diff * inv * inv;
    mj = mj - step * u;
    double ns = sj - step * (u * diff * inv);
    sj = ns >= HAZE__FNN_SIGMA_MIN ? ns : HAZE__FNN_SIGMA_MIN;
}
#endif

/* AX: the exchange by st.async (true) or at the cluster's barrier (false;
 * a kernel of its own, so that synccheck meets no transaction barrier in
 * it) */
template <int T, bool AX>
static __global__ void __launch_bounds__(T, 1) k_online_cluster(res_args p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    (void)p;
    __trap(); /* clusters start with Hopper; the host never launches it before (res_device) */
#else
    cg::cluster_group cl = cg::this_cluster();
    const int C = (int)cl.num_blocks(), rank = (int)cl.block_rank();
    const int D = p.D, L = p.L, NW = T / 32;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int PS = L + 3; /* a block's partials: M_b, its rule, S_b, Y_b0..Y_b(L-1) */
    extern __shared__ double sm[];
    __shared__ double wpart[T / 32];    /* per-warp firing partials when a rule spans warps */
    uint64_t *bars = (uint64_t *)sm;    /* 2: transaction barriers (st.async exchange) */
    double *zb = sm + 2;                /* 3 x D: the sample of step t at (t % 3) * D */
    double *db = zb + 3 * D;            /* 3 x L: its targets */
    double *lq = db + 3 * L;            /* Qtot: log firing of the slots */
    double *gq = lq + p.Qtot;           /* Qtot: g_k of the last step */
    double *part = gq + p.Qtot;         /* 2 x C x PS: every block's partials, by parity */
    double *ys = part + 2 * C * PS;     /* L: y_l */
    double *es = ys + L;                /* L: e_l = y_l - d_l */
    double *pub = es + L;               /* 2: squared distance to the strongest rule */
    double *ms = pub + 2;               /* Qs x D centres */
    double *ss = ms + (size_t)p.Qs * D; /* Qs x D widths */
    double *ws = ss + (size_t)p.Qs * D; /* Qs x L consequents */
    /* the parameter rows of slot q (captured by value: a reference to the
     * kernel parameter p would copy it to the stack) */
    double *const gm = p.m, *const gs = p.s, *const gw = p.w;
    const int Qs = p.Qs;
    auto mrow = [=](int q) {
        return q < Qs ? ms + (size_t)q * D : gm + (size_t)(q * C + rank) * D;
    };
    auto srow = [=](int q) {
        return q < Qs ? ss + (size_t)q * D : gs + (size_t)(q * C + rank) * D;
    };
    auto wrow = [=](int q) {
        return q < Qs ? ws + (size_t)q * L : gw + (size_t)(q * C + rank) * L;
    };
    auto slots = [=](int r) { return r > rank ? (r - rank + C - 1) / C : 0; };
    int R = *p.nR, Qn = slots(R);
    /* every block runs, its barriers set up, before any block stores into
     * it. First of all, before the block's own first stores: with those
     * stores ahead of the cluster's barrier, compute-sanitizer's racecheck
     * paired them with the peers' mbarrier.init (write-after-write at the
     * first sample's addresses, which no peer touches) on 2048 and 1024
     * inputs; in this order it reports nothing */
    if (AX && tid == 0) fnn_xbar_init(bars);
    cl.sync();
    {
        int qs = Qn < Qs ? Qn : Qs;
        for (int i = tid; i < qs * D; i += T) {
            int q = i / D, j = i - q * D;
            ms[i] = gm[(size_t)(q * C + rank) * D + j];
            ss[i] = gs[(size_t)(q * C + rank) * D + j];
        }
        for (int i = tid; i < qs * L; i += T) {
            int q = i / L, l = i - q * L;
            ws[i] = gw[(size_t)(q * C + rank) * L + l];
        }
        if (p.n > 0) {
            int s0 = p.idx[0];
            for (int j = tid; j < D; j += T) zb[j] = p.z[(size_t)s0 * D + j];
            for (int l = tid; l < L; l += T) db[l] = p.d[(size_t)s0 * L + l];
        }
    }
    __syncthreads();                   /* the first sample and the kept rules */
    int next = p.n > 1 ? p.idx[1] : 0; /* the sample after the current one */
    int pending = 0;                   /* gq holds an update not yet applied */
    int xc = 0;                        /* exchanges so far (parity picks the buffer) */
    int t = 0;
    for (; t < p.n; t++) {
        const double *zc = zb + (t % 3) * D, *dc = db + (t % 3) * L;
        const double *zo = zb + ((t + 2) % 3) * D; /* the previous sample */
        /* the next sample into its buffer while this step runs */
        if (t + 1 < p.n) {
            double *zn = zb + ((t + 1) % 3) * D, *dn = db + ((t + 1) % 3) * L;
            for (int j = tid; j < D; j += T)
                __pipeline_memcpy_async(zn + j, p.z + (size_t)next * D + j, sizeof(double));
            for (int l = tid; l < L; l += T)
                __pipeline_memcpy_async(dn + l, p.d + (size_t)next * L + l, sizeof(double));
            next = t + 2 < p.n ? p.idx[t + 2] : 0;
        }
        __pipeline_commit();
        /* the previous step's centres and widths, then layers 2-3: G lanes
         * per rule (p.G; fewer, down to D / 8, while the rules would take a
         * second round: at 32 inputs a few more inputs per lane cost less
         * than a second round of G's tree, measured 32 x 512: 5.1 -> 4.0 us;
         * at 512 inputs they cost more, 512 x 512: 10.5 -> 12.2 us) */
        int G = p.G;
        while (G > 1 && Qn * G > T && D <= 4 * G) G >>= 1;
        /* and more than a warp per rule (their partials summed in order
         * through shared memory) while that keeps all rules in one round and
         * leaves each lane 16 inputs or more (1024 x 256 on 1024 threads) */
        while (Qn * G * 2 <= T && D >= 32 * G) G <<= 1;
        const int NG = T / G, grp = tid / G, gl = tid & (G - 1), GW = G < 32 ? G : 32;
        for (int r0 = 0; r0 < Qn; r0 += NG) { /* uniform: every lane reaches the shuffles */
            int q = r0 + grp;
            double acc = 0.0;
            if (q < Qn) {
                double *mq = mrow(q), *sq = srow(q);
                double g = pending ? gq[q] : 0.0;
                if (g != 0.0) {
                    for (int j = gl; j < D; j += G) {
                        double mj = mq[j], sj = sq[j];
                        res_update(g, zo[j], p.step, mj, sj);
                        mq[j] = mj, sq[j] = sj;
                        double x = (zc[j] - mj) * fnn_rcp(sj);
                        acc += x * x;
                    }
                } else {
                    for (int j = gl; j < D; j += G) {
                        double x = (zc[j] - mq[j]) * fnn_rcp(sq[j]);
                        acc += x * x;
                    }
                }
            }
            for (int off = GW / 2; off > 0; off >>= 1)
                acc += __shfl_xor_sync(0xffffffffu, acc, off);
            if (G <= 32) {
                if (q < Qn && gl == 0) lq[q] = -acc;
            } else if (lane == 0) {
                wpart[warp] = acc; /* one round: warp w holds part w % H of rule w / H */
            }
        }
        if (G > 32) {
            const int H = G / 32;
            __syncthreads();
            for (int q = tid; q < Qn; q += T) {
                double a = 0.0;
                for (int h = 0; h < H; h++) a += wpart[q * H + h];
                lq[q] = -a;
            }
        }
        pending = 0;
        __syncthreads();
        double M, S, invS;
        int stop = 0;
        for (int pass = 0;; pass++) {
            /* this block's partials, by warps: warp 0 M_b, its rule and S_b,
             * warp w the outputs w - 1, w - 1 + NW, ... (each finds M_b
             * itself); lane r sends them to block r, row `rank` */
            double *box = part + (size_t)(xc & 1) * C * PS, *mine = box + (size_t)rank * PS;
            uint64_t *bar = AX ? bars + (xc & 1) : NULL;
            if (bar && tid == 0) fnn_xbar_expect(bar, (unsigned)(C * PS * sizeof(double)));
            double mb = -INFINITY;
            int kb = 0x7fffffff;
            for (int q = lane; q < Qn; q += 32) res_better(mb, kb, lq[q], q * C + rank);
            res_warp_best(mb, kb);
            for (int o = warp - 1; o < L; o += NW) {
                double a = 0.0;
                for (int q = lane; q < Qn; q += 32) {
                    double u = lq[q] - mb;
                    if (u >= HAZE__FNN_LOG_CUTOFF) a += fnn_exp(u) * (o < 0 ? 1.0 : wrow(q)[o]);
                }
                a = res_warp_sum(a);
                if (lane < C) {
                    if (o < 0) {
                        res_send(mine, mb, lane, bar);
                        res_send(mine + 1, (double)kb, lane, bar);
                        res_send(mine + 2, a, lane, bar);
                    } else {
                        res_send(mine + 3 + o, a, lane, bar);
                    }
                }
            }
            /* every block's partials are in `box` */
            if (AX)
                fnn_xbar_wait(bar, (unsigned)(xc >> 1) & 1);
            else
                cl.sync();
            /* the cluster's strongest rule and the shifted sums, in every
             * warp; lane r reads block r's row */
            const double *theirs = NULL;
            double mr = -INFINITY, sr = 0.0, yr = 0.0, f = 0.0;
            int K = 0x7fffffff;
            if (lane < C) {
                theirs = box + (size_t)lane * PS;
                mr = theirs[0], K = (int)theirs[1], sr = theirs[2];
                if (warp < L) yr = theirs[3 + warp];
            }
            M = mr;
            for (int off = C / 2; off > 0; off >>= 1) { /* lanes >= C hold nothing */
                double b = __shfl_xor_sync(0xffffffffu, M, off);
                int kb = __shfl_xor_sync(0xffffffffu, K, off);
                res_better(M, K, b, kb);
            }
            M = __shfl_sync(0xffffffffu, M, 0), K = __shfl_sync(0xffffffffu, K, 0);
            if (mr > -INFINITY) f = fnn_exp(mr - M);
            S = res_lanes_sum(sr * f, C);
            invS = fnn_rcp(S);
            for (int o = warp; o < L; o += NW) {
                if (o != warp && lane < C) yr = theirs[3 + o];
                double y = res_lanes_sum(yr * f, C) * invS;
                if (lane == 0) {
                    double e = y - dc[o];
                    ys[o] = y, es[o] = e;
                    if (rank == 0) p.e[(size_t)t * L + o] = e;
                }
            }
            xc++;
            if (pass == 1) break; /* the rule of this sample is made */
            /* structure test (uniform over the cluster) */
            if (K == 0x7fffffff) K = 0;
            int add = R == 0 || M / (double)D <= p.log_th;
            if (add && R >= p.limit) {
                stop = p.grow; /* the host makes room and goes on from step t */
                add = 0;
            }
            if (!add) break;
            double width = p.width > 0.0 ? p.width : p.sigma0;
            if (R > 0 && !(p.width > 0.0)) {
                int owner = K % C;
                if (rank == owner) { /* uniform over the block */
                    const double *mK = mrow(K / C);
                    double a = 0.0;
                    for (int j = tid; j < D; j += T) a += (zc[j] - mK[j]) * (zc[j] - mK[j]);
                    a = block_sum(a);
                    if (tid == 0) pub[xc & 1] = a;
                }
                cl.sync();
                width = p.beta * sqrt(cl.map_shared_rank(pub, owner)[xc & 1] / (double)D);
            }
            if (!(width >= HAZE__FNN_SIGMA_MIN)) width = HAZE__FNN_SIGMA_MIN;
            if (rank == R % C) {
                int q = R / C;
                double *mq = mrow(q), *sq = srow(q), *wq = wrow(q);
                for (int j = tid; j < D; j += T) mq[j] = zc[j], sq[j] = width;
                for (int l = tid; l < L; l += T) wq[l] = dc[l];
                if (tid == 0) lq[q] = -0.0; /* the sample sits on the new centre */
            }
            R++;
            Qn = slots(R);
            __syncthreads();
        }
        if (stop) break; /* uniform over the cluster */
        __syncthreads(); /* ys, es */
        /* phi_k, g_k and the consequents (each slot by one thread: g reads the old w) */
        for (int q = tid; q < Qn; q += T) {
            double u = lq[q] - M;
            double phi = u < HAZE__FNN_LOG_CUTOFF ? 0.0 : fnn_exp(u) * invS;
            double *wq = wrow(q), a = 0.0;
            for (int l = 0; l < L; l++) a += es[l] * (wq[l] - ys[l]);
            gq[q] = phi * a;
            for (int l = 0; l < L; l++) wq[l] -= p.step * (es[l] * phi);
        }
        pending = 1;
        __pipeline_wait_prior(0);
        __syncthreads();
    }
    /* the last step's centres and widths */
    if (pending) {
        const double *zo = zb + ((t + 2) % 3) * D;
        for (int i = tid; i < Qn * D; i += T) {
            int q = i / D, j = i - q * D;
            double g = gq[q];
            if (g == 0.0) continue;
            double *mq = mrow(q), *sq = srow(q), mj = mq[j], sj = sq[j];
            res_update(g, zo[j], p.step, mj, sj);
            mq[j] = mj, sq[j] = sj;
        }
    }
    __pipeline_wait_prior(0);
    __syncthreads();
    {
        int qs = Qn < p.Qs ? Qn : p.Qs;
        for (int i = tid; i < qs * D; i += T) {
            int q = i / D, j = i - q * D;
            p.m[(size_t)(q * C + rank) * D + j] = ms[i];
            p.s[(size_t)(q * C + rank) * D + j] = ss[i];
        }
        for (int i = tid; i < qs * L; i += T) {
            int q = i / L, l = i - q * L;
            p.w[(size_t)(q * C + rank) * L + l] = ws[i];
        }
    }
    if (rank == 0 && tid == 0) *p.nR = R, *p.pos = t;
    cl.sync(); /* no block leaves while another may still read its shared memory */
#endif
}

/* ------------------------------------------------------ host side */

/* Cluster size and shared memory of k_online_cluster on the context's
 * device (the current one), read once per device, with the kernel's
 * attributes set there; cluster 0: the device has no clusters (before
 * compute capability 9). */
static int res_read_locked(haze_ctx *ctx, haze__fnn_state *P) {
    const cudaDeviceProp *dp = haze__cuda_props(ctx->device);
    if (!dp)
        return haze__error(ctx, HAZE_ERR_CUDA, "CUDA: the properties of device %d", ctx->device);
    const int major = dp->major, optin = (int)dp->sharedMemPerBlockOptin;
    if (major < 9) {
        P->res_cluster = 0, P->res_smem = 0, P->reg_cluster = 0;
        __atomic_store_n(&P->res_read, 1, __ATOMIC_RELEASE);
        return HAZE_OK;
    }
    /* both block sizes: the smaller of their limits */
    /* both block sizes and both exchanges: the smallest of their limits */
    const void *kernels[4] = {(const void *)k_online_cluster<RES_THREADS, true>,
                              (const void *)k_online_cluster<RES_THREADS_WIDE, true>,
                              (const void *)k_online_cluster<RES_THREADS, false>,
                              (const void *)k_online_cluster<RES_THREADS_WIDE, false>};
    const int threads[4] = {RES_THREADS, RES_THREADS_WIDE, RES_THREADS, RES_THREADS_WIDE};
    size_t smem = (size_t)optin;
    for (int i = 0; i < 4; i++) {
        cudaFuncAttributes fa;
        HAZE_CUDA_TRY(ctx, cudaFuncGetAttributes(&fa, kernels[i]));
        if ((size_t)optin - fa.sharedSizeBytes < smem) smem = (size_t)optin - fa.sharedSizeBytes;
    }
    int c = RES_MAX_CLUSTER;
    for (int i = 0; i < 4; i++) {
        int ci = 0;
        HAZE_CUDA_TRY(ctx, haze__fnn_max_cluster(kernels[i], threads[i], smem, &ci));
        if (ci < c) c = ci;
    }
    while (c & (c - 1)) c &= c - 1; /* a power of two: the kernel's shuffle trees */
    /* the register kernel: its largest exchange buffers, 256 threads */
    int rc = 0;
    int s = haze__fnn_reg_max_cluster(ctx, &rc);
    if (s) return s;
    P->reg_cluster = rc;
    P->res_smem = smem, P->res_cluster = c;
    __atomic_store_n(&P->res_read, 1, __ATOMIC_RELEASE);
    return HAZE_OK;
}

/* The context's state with the online kernels' fields read. */
int haze__fnn_res_device(haze_ctx *ctx, const haze__fnn_state **out) {
    haze__fnn_state *P = NULL;
    int s = haze__fnn_state_of(ctx, &P);
    if (s) return s;
    if (!__atomic_load_n(&P->res_read, __ATOMIC_ACQUIRE)) {
        haze__fnn_lock(&P->lock);
        if (!P->res_read) s = res_read_locked(ctx, P);
        haze__fnn_unlock(&P->lock);
    }
    *out = P;
    return s;
}

/* The cluster kernel's slots for `cap` rules; 0 when it cannot run. */
int haze__fnn_res_layout(const haze__fnn_state *P, int D, int L, size_t cap, int C, int *Qtot,
                         int *Qs) {
    if (C <= 0) return 0;
    size_t qt = (cap + (size_t)C - 1) / (size_t)C;
    size_t fixed = res_smem_doubles(D, L, C, (int)qt, 0) * sizeof(double);
    if (qt > 0x7fffffff || fixed > P->res_smem) return 0;
    size_t per = (2 * (size_t)D + (size_t)L) * sizeof(double);
    size_t qs = (P->res_smem - fixed) / per;
    *Qtot = (int)qt;
    *Qs = (int)(qs < qt ? qs : qt);
    return 1;
}

/*
 * Whether online training of a network of R rules on D inputs takes the
 * cluster path (auto mode): the cluster does the step's arithmetic on at
 * most 16 SMs, the launch path spreads it over all of them but pays two or
 * three launches per step. Measured on an H100 (bench_fnn_kernels,
 * docs/benchmarks.md), the cluster wins while at least three eighths of the
 * rules keep their parameters in the cluster's shared memory of 16 blocks
 * (512 x 768: 54%, 15.1 against 16.6 us; 512 x 1024: 41%, 17.7 against 18.3
 * us; 1024 x 512: 37.5%, 16.7 against 18.4 us) and loses below (768 x 768:
 * 35%, 19.9 against 17.8 us; 1024 x 768: 25%, 28.1 against 19.6 us).
 */
int haze__fnn_res_wanted(haze_ctx *ctx, size_t D, size_t L, size_t R) {
    const haze__fnn_state *P = NULL;
    if (haze__fnn_res_device(ctx, &P) != HAZE_OK) return 0;
    if (P->mapping != HAZE__FNN_MAP_ATM || P->online == HAZE__FNN_ONLINE_LAUNCH) return 0;
    if (P->res_cluster <= 0) return 0;
    reg_cfg rc;
    if (haze__fnn_reg_config(P, (int)D, (int)L, R > 0 ? R : 1, &rc)) return 1;
    int qt = 0, qs = 0;
    if (!haze__fnn_res_layout(P, (int)D, (int)L, R > 0 ? R : 1, P->res_cluster, &qt, &qs)) return 0;
    return P->online == HAZE__FNN_ONLINE_CLUSTER || P->online == HAZE__FNN_ONLINE_REGISTER ||
           8 * (size_t)qs >= 3 * (size_t)qt;
}

/* Cluster size for `cap` rules: a step's exchange and reductions take
 * longer with more blocks, so 8 blocks while the task matrix is small (up
 * to 2^16 rule x input elements) and their shared memory holds every
 * parameter; the largest cluster otherwise (measured with 2 to 16 blocks,
 * docs/benchmarks.md). */
int haze__fnn_res_cluster_for(const haze__fnn_state *P, int D, int L, size_t cap) {
    int qt = 0, qs = 0;
    if (P->res_cluster > 8 && cap * (size_t)D <= 65536 &&
        haze__fnn_res_layout(P, D, L, cap, 8, &qt, &qs) && qs == qt)
        return 8;
    return P->res_cluster;
}

/* Runs online steps over didx[0..n) in one cluster launch, starting with r0
 * rules; *done gets the steps it ran (fewer than n when a rule is due and
 * the arrays are full) and *R the rule count after them. */
int haze__fnn_res_run(haze_ctx *ctx, dev_state *ds, const int *didx, int n, double *e, int D, int L,
                      int r0, int limit, int grow, const haze__fnn_train_args *a, double rate,
                      int C, int *done, int *R) {
    int qt = 0, qs = 0;
    const haze__fnn_state *P = NULL;
    int s = haze__fnn_res_device(ctx, &P);
    if (s) return s;
    if (C <= 0 || C > P->res_cluster) C = haze__fnn_res_cluster_for(P, D, L, ds->cap);
    if (!haze__fnn_res_layout(P, D, L, ds->cap, C, &qt, &qs))
        return haze__error(ctx, HAZE_ERR_UNSUPPORTED, "fnn: the cluster path does not fit");
    if (!ds->pos && (s = haze__fnn_dev_alloc_int(ctx, &ds->pos, NULL, 1, "fnn: the step count")))
        return s;
    const haze_fnn_options *o = a ? a->opt : NULL;
    reg_cfg rc;
    int use_reg = haze__fnn_reg_config(P, D, L, ds->cap, &rc);
    res_args p;
    p.z = ds->z, p.d = ds->d, p.idx = didx, p.n = n;
    p.m = ds->m, p.s = ds->s, p.w = ds->w, p.nR = ds->nR, p.pos = ds->pos, p.e = e;
    p.D = D, p.L = L;
    p.G = 1;
    while (p.G < 32 && p.G < D) p.G *= 2;
    p.limit = limit, p.grow = grow, p.Qtot = qt, p.Qs = qs;
    p.log_th = a ? a->log_th : -INFINITY;
    p.beta = o ? o->beta : 0.5, p.sigma0 = o ? o->sigma0 : 1.0, p.width = o ? o->width : 0.0;
    p.step = rate;
    p.xasync = P->exchange != HAZE__FNN_XCHG_BARRIER;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at;
    at.id = cudaLaunchAttributeClusterDimension;
    at.val.clusterDim.x = (unsigned)C, at.val.clusterDim.y = 1, at.val.clusterDim.z = 1;
    /* 1024 threads where rules live in device memory and 512 threads would
     * take them in two rounds (512 x 512: 10.8 -> 10.1 us, 1024 x 512: 23.0
     * -> 17.2 us); 512 otherwise, where the larger block's barriers cost
     * more than they save (32 x 256: 3.4 against 4.5 us) */
    size_t qn = ((size_t)r0 + (size_t)C - 1) / (size_t)C; /* slots in use at the start */
    int wide = qs < qt && qn * (size_t)p.G > RES_THREADS;
    /* and where 512 threads hold every rule with 32 inputs or more per
     * lane: 1024 give a rule two warps (the kernel's G above 32) */
    if (qn * (size_t)p.G == RES_THREADS && D >= 32 * p.G) wide = 1;
    if (P->cluster_threads) wide = P->cluster_threads == RES_THREADS_WIDE; /* forced */
    cfg.gridDim = dim3((unsigned)C), cfg.blockDim = dim3(wide ? RES_THREADS_WIDE : RES_THREADS);
    cfg.dynamicSmemBytes = res_smem_doubles(D, L, C, qt, qs) * sizeof(double);
    cudaStream_t st = haze__stream(ctx);
    cfg.stream = st, cfg.attrs = &at, cfg.numAttrs = 1;
    if (use_reg) {
        p.G = rc.G;
        s = haze__fnn_reg_launch(ctx, &cfg, &rc, p);
        if (s) return s;
    } else if (wide) {
        HAZE_CUDA_TRY(ctx, cudaLaunchKernelEx(&cfg,
                                              p.xasync ? k_online_cluster<RES_THREADS_WIDE, true>
                                                       : k_online_cluster<RES_THREADS_WIDE, false>,
                                              p));
    } else {
        HAZE_CUDA_TRY(ctx, cudaLaunchKernelEx(&cfg,
                                              p.xasync ? k_online_cluster<RES_THREADS, true>
                                                       : k_online_cluster<RES_THREADS, false>,
                                              p));
    }
    int back[2] = {0, 0};
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(back, ds->pos, sizeof(int), cudaMemcpyDeviceToHost, st));
    HAZE_CUDA_TRY(ctx, cudaMemcpyAsync(back + 1, ds->nR, sizeof(int), cudaMemcpyDeviceToHost, st));
    HAZE_CUDA_TRY(ctx, cudaStreamSynchronize(st));
    *done = back[0], *R = back[1];
    return HAZE_OK;
}
