/*
 * cli/plot_figs.c - the figures of the haze commands, drawn with cli/plot.h
 * from the data each command computed for its numeric output.
 *
 *   fis plot             the membership functions (MATLAB's plotmf)
 *   fis surface --plot   the output over two inputs (MATLAB's gensurf)
 *   fcm --plot           the clusters and the objective per iteration
 *   edge --side-by-side  the input image beside its edges
 *
 * The fcm projection beyond two features is principal component analysis:
 * the two leading eigenvectors of the covariance matrix, found by power
 * iteration with deflation (Golub and Van Loan, Matrix Computations, 7.3).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plot.h"

static int out_of_memory(void) {
    cli_errorf("out of memory");
    return CLI_RUNTIME;
}

/* ------------------------------------------------ fis plot */

enum { MF_POINTS = 601 };

static void mfs_panel(plot_axes *ax, const haze_fis *f, int io, int v, double *x, double *mu) {
    double lo, hi;
    haze_fis_var_range(NULL, f, io, v, &lo, &hi);
    int nmf = haze_fis_mf_count(f, io, v);
    /* the sampled functions first: their tallest point sets the y range
     * (a fuzzylite term may have a height other than 1) */
    double *all = malloc(sizeof(double) * MF_POINTS * (size_t)(nmf ? nmf : 1));
    int *ok = calloc((size_t)(nmf ? nmf : 1), sizeof *ok);
    double top = 1;
    for (int j = 0; j < MF_POINTS; j++)
        x[j] = j == MF_POINTS - 1 ? hi : lo + (hi - lo) * j / (MF_POINTS - 1);
    for (int k = 0; all && ok && k < nmf; k++) {
        double *m = all + (size_t)k * MF_POINTS;
        ok[k] = haze_fis_mf_eval(NULL, f, io, v, k, x, MF_POINTS, m) == HAZE_OK;
        for (int j = 0; ok[k] && j < MF_POINTS; j++)
            if (m[j] > top && isfinite(m[j])) top = m[j];
    }
    char title[160];
    snprintf(title, sizeof title, "%s %d: %s", io ? "output" : "input", v + 1,
             haze_fis_var_name(f, io, v));
    plot_frame fr = {lo,
                     hi,
                     0,
                     top * 1.05,
                     title,
                     haze_fis_var_name(f, io, v),
                     "degree of membership",
                     NULL,
                     PLOT_LEGEND_OUT};
    if (!(hi > lo)) plot_pad(&fr.x0, &fr.x1, 0);
    plot_axes_setup(ax, &fr);
    for (int k = 0; k < nmf; k++) {
        const char *name, *type;
        const double *p;
        int np;
        haze_fis_mf(NULL, f, io, v, k, &name, &type, &p, &np);
        plot_style s = plot_style_of(k);
        s.label = name;
        if (all && ok && ok[k]) {
            memcpy(mu, all + (size_t)k * MF_POINTS, sizeof(double) * MF_POINTS);
            s.alpha = 0.12;
            s.width = 2;
            plot_fill(ax, x, NULL, mu, MF_POINTS, &s);
        } else if (strcmp(type, "constant") == 0 && np >= 1) {
            /* a Sugeno output's constant: a stem at its value */
            double sx[2] = {p[0], p[0]}, sy[2] = {0, 1};
            plot_line(ax, sx, sy, 2, &s);
            plot_style dot = s;
            dot.size = 4;
            dot.label = NULL;
            plot_markers(ax, sx + 1, sy + 1, 1, 1, &dot);
        } else {
            /* linear terms are functions of the inputs: named, not drawn */
            char lab[120];
            snprintf(lab, sizeof lab, "%s (%s, not drawn)", name, type);
            s.label = lab;
            s.dash = 2;
            plot_legend_add(ax, &s, 0);
        }
    }
    free(all);
    free(ok);
}

int plot_fis_mfs(haze_ctx *ctx, const haze_fis *f, int is_output, int index, const char *path) {
    int ni = haze_fis_input_count(f), no = haze_fis_output_count(f);
    int n = index >= 0 ? 1 : ni + no;
    if (n < 1) {
        cli_errorf("%s: the model has no variables to plot", path);
        return CLI_INPUT;
    }
    int cols = n > 1 ? 2 : 1, rows = (n + cols - 1) / cols;
    plot_fig *fig = plot_fig_new(rows, cols, 720, 380, n > 1 ? haze_fis_name(f) : NULL);
    double *x = malloc(sizeof(double) * MF_POINTS), *mu = malloc(sizeof(double) * MF_POINTS);
    if (!fig || !x || !mu) {
        plot_fig_free(fig);
        free(x);
        free(mu);
        return out_of_memory();
    }
    for (int i = 0; i < n; i++) {
        int io = index >= 0 ? is_output : i >= ni;
        int v = index >= 0 ? index : i < ni ? i : i - ni;
        mfs_panel(plot_fig_axes(fig, i), f, io, v, x, mu);
    }
    int rc = plot_fig_save(ctx, fig, path);
    plot_fig_free(fig);
    free(x);
    free(mu);
    return rc;
}

/* ------------------------------------------------ fis surface --plot */

int plot_fis_surface(haze_ctx *ctx, const haze_fis *f, const double *in, const double *out, long gn,
                     int ix, int iy, const char *held, const char *path) {
    int ni = haze_fis_input_count(f), no = haze_fis_output_count(f);
    int cols = no > 1 ? 2 : 1, rows = (no + cols - 1) / cols;
    plot_fig *fig = plot_fig_new(rows, cols, 640, 500, NULL);
    double *z = malloc(sizeof(double) * (size_t)(gn * gn));
    if (!fig || !z) {
        plot_fig_free(fig);
        free(z);
        return out_of_memory();
    }
    const size_t cells = (size_t)(gn * gn);
    for (int k = 0; k < no; k++) {
        for (size_t r = 0; r < cells; r++) z[r] = out[r * (size_t)no + (size_t)k];
        double zlo, zhi;
        plot_range(z, cells, 1, &zlo, &zhi);
        if (!(zhi > zlo)) plot_pad(&zlo, &zhi, 0);
        char title[256];
        snprintf(title, sizeof title, "%s%s%s", haze_fis_var_name(f, 1, k),
                 held && *held ? "  |  " : "", held ? held : "");
        plot_frame fr = {in[(size_t)ix],
                         in[(cells - 1) * (size_t)ni + (size_t)ix],
                         in[(size_t)iy],
                         in[(cells - 1) * (size_t)ni + (size_t)iy],
                         title,
                         haze_fis_var_name(f, 0, ix),
                         haze_fis_var_name(f, 0, iy),
                         haze_fis_var_name(f, 1, k),
                         PLOT_COLORBAR};
        plot_axes *ax = plot_fig_axes(fig, k);
        plot_axes_setup(ax, &fr);
        plot_heatmap(ax, z, (int)gn, (int)gn, zlo, zhi);
        double lev[32];
        int nl = plot_ticks(zlo, zhi, 8, lev, 32);
        plot_style s = plot_style_of(-1);
        s.color = (plot_rgb){1, 1, 1};
        s.width = 1;
        s.alpha = 0.7;
        plot_contour(ax, z, (int)gn, (int)gn, lev, nl, &s);
    }
    int rc = plot_fig_save(ctx, fig, path);
    plot_fig_free(fig);
    free(z);
    return rc;
}

/* ------------------------------------------------ fcm --plot */

/* The two leading principal axes of the n x d data (d > 2) into w (2 x d)
 * and their share of the variance into share[2]. */
static int principal_axes(const double *x, size_t n, size_t d, double *mean, double *w,
                          double *share) {
    double *cov = calloc(d * d, sizeof *cov), *t = malloc(d * sizeof *t);
    if (!cov || !t) {
        free(cov);
        free(t);
        return -1;
    }
    for (size_t k = 0; k < d; k++) mean[k] = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < d; k++) mean[k] += x[i * d + k];
    for (size_t k = 0; k < d; k++) mean[k] /= (double)n;
    for (size_t i = 0; i < n; i++)
        for (size_t a = 0; a < d; a++) {
            double da = x[i * d + a] - mean[a];
            for (size_t b = a; b < d; b++) cov[a * d + b] += da * (x[i * d + b] - mean[b]);
        }
    double trace = 0;
    for (size_t a = 0; a < d; a++) {
        for (size_t b = a; b < d; b++) cov[b * d + a] = cov[a * d + b];
        trace += cov[a * d + a];
    }
    for (int c = 0; c < 2; c++) {
        double *v = w + (size_t)c * d, lambda = 0;
        for (size_t k = 0; k < d; k++) v[k] = 1.0 + 0.1 * (double)((k * 7 + (size_t)c * 3) % 5);
        for (int it = 0; it < 500; it++) {
            for (size_t a = 0; a < d; a++) {
                double s = 0;
                for (size_t b = 0; b < d; b++) s += cov[a * d + b] * v[b];
                t[a] = s;
            }
            double nrm = 0;
            for (size_t a = 0; a < d; a++) nrm += t[a] * t[a];
            nrm = sqrt(nrm);
            if (!(nrm > 0)) break;
            double delta = 0;
            for (size_t a = 0; a < d; a++) {
                delta += fabs(t[a] / nrm - v[a]);
                v[a] = t[a] / nrm;
            }
            lambda = nrm;
            if (delta < 1e-12) break;
        }
        share[c] = trace > 0 ? lambda / trace : 0;
        for (size_t a = 0; a < d; a++) /* deflate: cov -= lambda v v^T */
            for (size_t b = 0; b < d; b++) cov[a * d + b] -= lambda * v[a] * v[b];
    }
    free(cov);
    free(t);
    return 0;
}

int plot_fcm(haze_ctx *ctx, const double *x, const float *x32, const char *const *names,
             const haze_fcm_result *r, const char *path) {
    const size_t n = haze_fcm_result_point_count(r), d = haze_fcm_result_feature_count(r),
                 c = haze_fcm_result_cluster_count(r);
    double *copy = NULL;
    if (!x) { /* float32 data: the projection works in double */
        if (!(copy = malloc(sizeof(double) * n * d + 1))) return out_of_memory();
        for (size_t i = 0; i < n * d; i++) copy[i] = x32[i];
        x = copy;
    }
    double *pts = malloc(sizeof(double) * 2 * (n + c) + 1);
    int *cls = malloc(sizeof(int) * (n ? n : 1));
    float *alpha = malloc(sizeof(float) * (n ? n : 1));
    double *mean = malloc(sizeof(double) * d), *w = malloc(sizeof(double) * 2 * d);
    double share[2] = {0, 0};
    plot_fig *fig = plot_fig_new(1, 2, 720, 0, NULL);
    int bad = !pts || !cls || !alpha || !mean || !w || !fig;
    if (!bad && d > 2 && principal_axes(x, n, d, mean, w, share)) bad = 1;
    if (bad) {
        free(pts);
        free(cls);
        free(alpha);
        free(mean);
        free(w);
        free(copy);
        plot_fig_free(fig);
        return out_of_memory();
    }
    /* the points, then the centres, as (x, y) pairs */
    for (size_t i = 0; i < n + c; i++) {
        const double *p = i < n ? x + i * d : haze_fcm_result_centres(r) + (i - n) * d;
        if (d == 1) {
            pts[2 * i] = p[0];
            pts[2 * i + 1] = 0;
        } else if (d == 2) {
            pts[2 * i] = p[0];
            pts[2 * i + 1] = p[1];
        } else {
            double a = 0, b = 0;
            for (size_t k = 0; k < d; k++) {
                a += (p[k] - mean[k]) * w[k];
                b += (p[k] - mean[k]) * w[d + k];
            }
            pts[2 * i] = a;
            pts[2 * i + 1] = b;
        }
    }
    /* colour: the largest membership's cluster; opacity: how large it is,
     * from 1/c (as unsure as can be) to 1 */
    for (size_t i = 0; i < n; i++) {
        const double *u = haze_fcm_result_memberships(r) + i * c;
        size_t best = 0;
        for (size_t j = 1; j < c; j++)
            if (u[j] > u[best]) best = j;
        cls[i] = (int)best;
        double a = (u[best] - 1.0 / (double)c) / (1.0 - 1.0 / (double)c);
        alpha[i] = (float)(0.15 + 0.85 * (a < 0 ? 0 : a > 1 ? 1 : a));
    }
    double x0, x1, y0, y1;
    plot_range(pts, n + c, 2, &x0, &x1);
    plot_range(pts + 1, n + c, 2, &y0, &y1);
    plot_pad(&x0, &x1, 0.04);
    plot_pad(&y0, &y1, 0.04);
    char xl[160], yl[160], title[160];
    if (d > 2) {
        snprintf(xl, sizeof xl, "principal component 1 (%.0f%% of the variance)", 100 * share[0]);
        snprintf(yl, sizeof yl, "principal component 2 (%.0f%%)", 100 * share[1]);
    } else {
        snprintf(xl, sizeof xl, "%s", names && names[0] ? names[0] : "feature 1");
        snprintf(yl, sizeof yl, "%s", d < 2 ? "" : names && names[1] ? names[1] : "feature 2");
    }
    snprintf(title, sizeof title, "%zu points, %zu clusters (opacity: membership)", n, c);
    plot_frame fr = {x0, x1, y0, y1, title, xl, yl, NULL, PLOT_LEGEND_OUT};
    plot_axes *ax = plot_fig_axes(fig, 0);
    plot_axes_setup(ax, &fr);
    plot_style s = plot_style_of(0);
    s.size = n > 3000 ? 1.6 : 3.5;
    plot_scatter(ax, pts, pts + 1, n, 2, cls, alpha, &s);
    for (size_t j = 0; j < c && j < 10; j++) {
        char lab[32];
        snprintf(lab, sizeof lab, "cluster %zu", j + 1);
        plot_style e = plot_style_of((int)j);
        e.label = lab;
        plot_legend_add(ax, &e, 1);
    }
    plot_style m = plot_style_of(-1);
    m.marker = PLOT_MARK_CROSS;
    m.size = 7;
    m.width = 3;
    m.label = "centres";
    plot_markers(ax, pts + 2 * n, pts + 2 * n + 1, c, 2, &m);

    /* the objective per iteration */
    int it = haze_fcm_result_iterations(r);
    double *k = malloc(sizeof(double) * (size_t)it);
    if (k) {
        for (int i = 0; i < it; i++) k[i] = i + 1;
        double j0, j1;
        plot_range(haze_fcm_result_objective(r), (size_t)it, 1, &j0, &j1);
        plot_pad(&j0, &j1, 0.05);
        plot_frame fo = {0.6,         it + 0.4, j0,   j1,       "objective J per iteration",
                         "iteration", "J",      NULL, PLOT_XINT};
        plot_axes *bx = plot_fig_axes(fig, 1);
        plot_axes_setup(bx, &fo);
        plot_style l = plot_style_of(0);
        plot_line(bx, k, haze_fcm_result_objective(r), (size_t)it, &l);
        if (it <= 60) {
            l.size = 3;
            plot_markers(bx, k, haze_fcm_result_objective(r), (size_t)it, 1, &l);
        }
        free(k);
    }
    int rc = k ? plot_fig_save(ctx, fig, path) : out_of_memory();
    free(copy);
    free(pts);
    free(cls);
    free(alpha);
    free(mean);
    free(w);
    plot_fig_free(fig);
    return rc;
}

/* ------------------------------------------------ edge --side-by-side */

int plot_edge(haze_ctx *ctx, const haze_image *in, const haze_image *edges, const char *in_name,
              const char *method, const char *path) {
    /* panels shaped like the image, about 520 pixels across */
    double pw = 540, ph = 540.0 * in->height / (in->width > 0 ? in->width : 1) + 44;
    if (ph > 900) ph = 900;
    if (ph < 160) ph = 160;
    plot_fig *fig = plot_fig_new(1, 2, pw, ph, NULL);
    if (!fig) return out_of_memory();
    char t0[256], t1[256];
    snprintf(t0, sizeof t0, "%s (%d x %d)", in_name, in->width, in->height);
    snprintf(t1, sizeof t1, "edges (%s)", method);
    plot_frame fr = {0, 1, 0, 1, t0, NULL, NULL, NULL, PLOT_NOAXES};
    plot_axes *a = plot_fig_axes(fig, 0), *b = plot_fig_axes(fig, 1);
    plot_axes_setup(a, &fr);
    plot_image(a, in->data, in->width, in->height, 1);
    fr.title = t1;
    plot_axes_setup(b, &fr);
    plot_image(b, edges->data, edges->width, edges->height, 1);
    int rc = plot_fig_save(ctx, fig, path);
    plot_fig_free(fig);
    return rc;
}

/* ------------------------------------------------ fuzzy eval --plot */

/* The staircase outline of a fuzzy number's cuts (mu(x) = the highest level
 * whose cut holds x): 4 ncuts points, x non-decreasing. */
static void staircase(const haze_fuzzy_array *v, double *x, double *y) {
    int n = haze_fuzzy_array_cut_count(v), m = 0;
    for (int k = n - 1; k >= 0; k--) { /* the left side, bottom up */
        double lo, hi, below = k + 1 < n ? haze_fuzzy_array_alphas(v)[k + 1] : 0;
        haze_fuzzy_get_cut(NULL, v, 0, k, &lo, &hi);
        x[m] = lo, y[m++] = below;
        x[m] = lo, y[m++] = haze_fuzzy_array_alphas(v)[k];
    }
    for (int k = 0; k < n; k++) { /* the right side, top down */
        double lo, hi, below = k + 1 < n ? haze_fuzzy_array_alphas(v)[k + 1] : 0;
        haze_fuzzy_get_cut(NULL, v, 0, k, &lo, &hi);
        x[m] = hi, y[m++] = haze_fuzzy_array_alphas(v)[k];
        x[m] = hi, y[m++] = below;
    }
}

int plot_fuzzy(haze_ctx *ctx, const haze_fuzzy_array *v, const char *expr,
               const haze_fuzzy_array *const *ops, const char *names, size_t stride, int nop,
               const char *path) {
    int n = haze_fuzzy_array_cut_count(v);
    double *x = malloc(sizeof(double) * 4 * (size_t)n), *y = malloc(sizeof(double) * 4 * (size_t)n);
    plot_fig *fig = plot_fig_new(1, 1, 760, 440, NULL);
    if (!x || !y || !fig) {
        free(x);
        free(y);
        plot_fig_free(fig);
        return out_of_memory();
    }
    /* the x range holds the result and the operands (finite bounds only) */
    double x0 = INFINITY, x1 = -INFINITY;
    for (int i = -1; i < nop; i++) {
        const haze_fuzzy_array *a = i < 0 ? v : ops[i];
        for (int k = 0; k < haze_fuzzy_array_cut_count(a); k++) {
            double lo, hi;
            haze_fuzzy_get_cut(NULL, a, 0, k, &lo, &hi);
            if (isfinite(lo) && lo < x0) x0 = lo;
            if (isfinite(hi) && hi > x1) x1 = hi;
        }
    }
    plot_pad(&x0, &x1, 0.06);
    char title[200];
    snprintf(title, sizeof title, "%.120s%s  (%d cuts)", expr, strlen(expr) > 120 ? "..." : "", n);
    plot_frame fr = {x0, x1, 0, 1.08, title, "x", "membership (alpha)", NULL, PLOT_LEGEND_OUT};
    plot_axes *ax = plot_fig_axes(fig, 0);
    plot_axes_setup(ax, &fr);
    /* the result: its membership function filled, each cut a bar at its level */
    staircase(v, x, y);
    plot_style s = plot_style_of(0);
    s.alpha = 0.18;
    s.width = 2;
    s.label = "result";
    plot_fill(ax, x, NULL, y, 4 * (size_t)n, &s);
    plot_style bar = plot_style_of(0);
    bar.width = 4;
    for (int k = 0; k < n; k++) {
        double lo, hi;
        haze_fuzzy_get_cut(NULL, v, 0, k, &lo, &hi);
        double bx[2] = {lo, hi},
               by[2] = {haze_fuzzy_array_alphas(v)[k], haze_fuzzy_array_alphas(v)[k]};
        plot_line(ax, bx, by, 2, &bar);
    }
    for (int i = 0; i < nop; i++) { /* the operands: outlines over it */
        if (haze_fuzzy_array_cut_count(ops[i]) != n) continue;
        staircase(ops[i], x, y);
        plot_style o = plot_style_of(i + 1);
        o.width = 2;
        o.label = names + (size_t)i * stride;
        plot_line(ax, x, y, 4 * (size_t)n, &o);
    }
    int rc = plot_fig_save(ctx, fig, path);
    plot_fig_free(fig);
    free(x);
    free(y);
    return rc;
}

/* ------------------------------------------------ fnn train --plot */

/* One panel of a per-epoch series (a, and b when given: held-out), the
 * kept epoch marked. */
static void epoch_panel(plot_axes *ax, const double *k, const double *a, const double *b, int n,
                        const char *title, const char *ylabel, const char *la, const char *lb,
                        int best, int flags) {
    double y0, y1, c0, c1;
    plot_range(a, (size_t)n, 1, &y0, &y1);
    if (b) {
        plot_range(b, (size_t)n, 1, &c0, &c1);
        if (c0 < y0) y0 = c0;
        if (c1 > y1) y1 = c1;
    }
    plot_pad(&y0, &y1, 0.08);
    if (!la) { /* a count: from 0 */
        y0 = 0;
        y1 = y1 > 1 ? y1 : 1;
    }
    plot_frame fr = {0.6, n + 0.4, y0, y1, title, "epoch", ylabel, NULL, PLOT_XINT | flags};
    plot_axes_setup(ax, &fr);
    plot_style m = plot_style_of(-1);
    m.dash = 1;
    m.width = 1;
    m.label = best >= 0 ? "kept epoch" : NULL;
    if (best >= 0 && b) plot_vline(ax, best + 1, &m);
    plot_style s = plot_style_of(0);
    s.label = la;
    s.size = 3;
    plot_line(ax, k, a, (size_t)n, &s);
    if (n <= 60) {
        s.label = NULL;
        plot_markers(ax, k, a, (size_t)n, 1, &s);
    }
    if (b) {
        plot_style t = plot_style_of(1);
        t.label = lb;
        t.size = 3;
        plot_line(ax, k, b, (size_t)n, &t);
        if (n <= 60) {
            t.label = NULL;
            plot_markers(ax, k, b, (size_t)n, 1, &t);
        }
    }
}

int plot_fnn(haze_ctx *ctx, const haze_fnn_epoch *h, int n, int classes, const char *path) {
    if (n < 1) {
        cli_errorf("%s: no epoch was trained (--epochs 0): nothing to draw", path);
        return CLI_INPUT;
    }
    int held = h[n - 1].val_samples > 0;
    double *v = malloc(sizeof(double) * 6 * (size_t)n);
    plot_fig *fig = plot_fig_new(1, classes ? 3 : 2, 480, 400, NULL);
    if (!v || !fig) {
        free(v);
        plot_fig_free(fig);
        return out_of_memory();
    }
    double *k = v, *loss = v + n, *vloss = v + 2 * n, *acc = v + 3 * n, *vacc = v + 4 * n,
           *rules = v + 5 * n;
    for (int i = 0; i < n; i++) {
        k[i] = i + 1;
        loss[i] = h[i].loss;
        vloss[i] = h[i].val_loss;
        acc[i] = 100 * h[i].accuracy;
        vacc[i] = 100 * h[i].val_accuracy;
        rules[i] = (double)h[i].rules;
    }
    int best = h[n - 1].best_epoch, p = 0;
    epoch_panel(plot_fig_axes(fig, p++), k, loss, held ? vloss : NULL, n, "loss per epoch",
                "mean loss E", "training", "held-out", best, 0);
    if (classes)
        epoch_panel(plot_fig_axes(fig, p++), k, acc, held ? vacc : NULL, n, "accuracy per epoch",
                    "accuracy (%)", "training", "held-out", best, PLOT_LEGEND_BELOW);
    epoch_panel(plot_fig_axes(fig, p++), k, rules, NULL, n, "rules per epoch", "rules", NULL, NULL,
                -1, 0);
    int rc = plot_fig_save(ctx, fig, path);
    plot_fig_free(fig);
    free(v);
    return rc;
}

/* ------------------------------------------------ prec --plot */

int plot_prec(haze_ctx *ctx, const char *script, const haze_prec_result *ia,
              const haze_prec_result *aa, const char *path) {
    size_t n = haze_prec_result_goal_count(ia) < haze_prec_result_goal_count(aa)
                   ? haze_prec_result_goal_count(ia)
                   : haze_prec_result_goal_count(aa);
    double *v = malloc(sizeof(double) * 3 * (n ? n : 1));
    plot_fig *fig = plot_fig_new(1, 1, 760, 440, NULL);
    if (!v || !fig) {
        free(v);
        plot_fig_free(fig);
        return out_of_memory();
    }
    /* the bound of goal i: the larger magnitude of its enclosure, on a log scale */
    double *k = v, *bi = v + n, *ba = v + 2 * n;
    for (size_t i = 0; i < n; i++) {
        const haze_prec_goal *a = haze_prec_result_goal(ia, i), *b = haze_prec_result_goal(aa, i);
        double mi = fmax(fabs(a->lo), fabs(a->hi)), ma = fmax(fabs(b->lo), fabs(b->hi));
        k[i] = (double)(i + 1);
        bi[i] = mi > 0 && isfinite(mi) ? log10(mi) : NAN;
        ba[i] = ma > 0 && isfinite(ma) ? log10(ma) : NAN;
    }
    double y0, y1, c0, c1;
    plot_range(bi, n, 1, &y0, &y1);
    plot_range(ba, n, 1, &c0, &c1);
    if (c0 < y0) y0 = c0;
    if (c1 > y1) y1 = c1;
    plot_pad(&y0, &y1, 0.08);
    const char *base = strrchr(script, '/');
    char title[200];
    snprintf(title, sizeof title, "%s: error bound of each goal", base ? base + 1 : script);
    plot_frame fr = {0.6,
                     n + 0.4,
                     y0,
                     y1,
                     title,
                     "goal (step of the unrolled computation)",
                     "log10 of the bound",
                     NULL,
                     PLOT_XINT | PLOT_LEGEND_LEFT};
    plot_axes *ax = plot_fig_axes(fig, 0);
    plot_axes_setup(ax, &fr);
    plot_style s = plot_style_of(0);
    s.label = "interval (ia)";
    s.size = 3;
    plot_line(ax, k, bi, n, &s);
    plot_style t = plot_style_of(1);
    t.label = "affine (aa)";
    t.size = 3;
    plot_line(ax, k, ba, n, &t);
    if (n <= 80) {
        s.label = t.label = NULL;
        plot_markers(ax, k, bi, n, 1, &s);
        plot_markers(ax, k, ba, n, 1, &t);
    }
    int rc = plot_fig_save(ctx, fig, path);
    plot_fig_free(fig);
    free(v);
    return rc;
}

/* ------------------------------------------------ prec --plot, bisected */

/* Goals drawn, at most (a panel each). */
enum { PREC_BOX_PANELS = 6 };

/* The enclosure of every goal over sub-range k of input x (the hull over
 * the other inputs' sub-ranges): lo, hi at k ng + g; xlo, xhi the
 * sub-ranges. 0, or 1 when the result keeps no boxes. */
static int boxes_along(const haze_prec_script *s, const haze_prec_result *r, size_t x,
                       size_t stride, size_t n, double *xlo, double *xhi, double *lo, double *hi,
                       double *vlo, double *vhi) {
    size_t nb = haze_prec_result_box_count(r), ng = haze_prec_result_goal_count(r);
    if (nb == 0 || nb % (stride * n) != 0 || ng != haze_prec_goal_count(s)) return 1;
    for (size_t i = 0; i < n * ng; i++) lo[i] = HUGE_VAL, hi[i] = -HUGE_VAL;
    for (size_t b = 0; b < nb; b++) {
        size_t k = b / stride % n;
        for (size_t g = 0; g < ng; g++) {
            double a, c;
            if (haze_prec_result_box(NULL, r, b, g, vlo, vhi, &a, &c)) return 1;
            if (g == 0) xlo[k] = vlo[x], xhi[k] = vhi[x];
            if (a < lo[k * ng + g]) lo[k * ng + g] = a;
            if (c > hi[k * ng + g]) hi[k * ng + g] = c;
        }
    }
    return 0;
}

int plot_prec_boxes(haze_ctx *ctx, const char *script, const haze_prec_script *s,
                    const haze_prec_result *const *res, const char *const *labels,
                    const int *colours, int nres, const char *path) {
    size_t nv = haze_prec_var_count(s), ng = haze_prec_goal_count(s), x = 0, stride = 1, n = 1;
    for (size_t v = 0; v < nv; v++) /* along the input with the most sub-ranges */
        if ((size_t)haze_prec_var_bisect(s, v) > n) n = (size_t)haze_prec_var_bisect(s, v), x = v;
    for (size_t v = 0; v < x; v++) stride *= (size_t)haze_prec_var_bisect(s, v);
    size_t panels = ng < PREC_BOX_PANELS ? ng : PREC_BOX_PANELS;
    const char *base = strrchr(script, '/');
    char title[240];
    snprintf(title, sizeof title, "%s: the bound per sub-range of %s%s", base ? base + 1 : script,
             haze_prec_var_name(s, x), ng > panels ? " (the first goals)" : "");
    plot_fig *fig = plot_fig_new((int)(panels ? panels : 1), 1, 760, 360, title);
    size_t per = n * ng;
    double *buf = malloc(sizeof(double) * (2 * n + 2 * per * (size_t)nres + 4 * n + 2 * nv + 2));
    if (!fig || !buf) {
        free(buf);
        plot_fig_free(fig);
        return out_of_memory();
    }
    double *xlo = buf, *xhi = xlo + n, *lo = xhi + n, *hi = lo + per * (size_t)nres;
    double *px = hi + per * (size_t)nres, *py = px + 2 * n, *vlo = py + 2 * n, *vhi = vlo + nv + 1;
    for (int e = 0; e < nres; e++)
        if (boxes_along(s, res[e], x, stride, n, xlo, xhi, lo + per * (size_t)e,
                        hi + per * (size_t)e, vlo, vhi)) {
            free(buf);
            plot_fig_free(fig);
            cli_errorf("--plot: the result keeps no sub-boxes to draw (more than %ld)",
                       (long)HAZE_PREC_MAX_BOX_RECORDS);
            return CLI_USAGE;
        }
    for (size_t g = 0; g < panels; g++) {
        /* the bound's magnitude on a log scale when it spans decades, else
         * the enclosure itself */
        double mmin = HUGE_VAL, mmax = 0;
        int logs = 1;
        for (int e = 0; e < nres; e++)
            for (size_t k = 0; k < n; k++) {
                double a = lo[per * (size_t)e + k * ng + g], c = hi[per * (size_t)e + k * ng + g];
                double m = fmax(fabs(a), fabs(c));
                if (!(m > 0) || !isfinite(m)) logs = 0;
                mmin = fmin(mmin, m);
                mmax = fmax(mmax, m);
            }
        if (logs && mmax < 100 * mmin) logs = 0;
        double y0 = HUGE_VAL, y1 = -HUGE_VAL;
        for (int e = 0; e < nres; e++)
            for (size_t k = 0; k < n; k++) {
                double a = lo[per * (size_t)e + k * ng + g], c = hi[per * (size_t)e + k * ng + g];
                double m = fmax(fabs(a), fabs(c));
                double ya = logs ? log10(m) : a, yc = logs ? log10(m) : c;
                if (isfinite(ya)) y0 = fmin(y0, ya), y1 = fmax(y1, ya);
                if (isfinite(yc)) y0 = fmin(y0, yc), y1 = fmax(y1, yc);
            }
        /* an enclosure narrower than its digits show (a constant, say): a
         * band of 10% around it */
        if (!logs && isfinite(y0) && isfinite(y1) && y1 - y0 < 1e-6 * fmax(fabs(y0), fabs(y1))) {
            double mid = 0.5 * (y0 + y1);
            y0 = mid - 0.05 * fabs(mid);
            y1 = mid + 0.05 * fabs(mid);
        }
        plot_pad(&y0, &y1, 0.08);
        double x0 = xlo[0], x1 = xhi[n - 1];
        plot_pad(&x0, &x1, 0.01);
        char head[200];
        snprintf(head, sizeof head, "%s", haze_prec_result_goal(res[0], g)->text);
        plot_frame fr = {x0,
                         x1,
                         y0,
                         y1,
                         head,
                         g + 1 == panels ? haze_prec_var_name(s, x) : NULL,
                         logs ? "log10 of the bound" : "enclosure",
                         NULL,
                         PLOT_LEGEND_LEFT};
        plot_axes *ax = plot_fig_axes(fig, (int)g);
        plot_axes_setup(ax, &fr);
        for (int e = 0; e < nres; e++) {
            plot_style st = plot_style_of(colours[e]);
            st.label = labels[e];
            const double *L = lo + per * (size_t)e, *H = hi + per * (size_t)e;
            if (logs) { /* a step per sub-range */
                for (size_t k = 0; k < n; k++) {
                    double m = fmax(fabs(L[k * ng + g]), fabs(H[k * ng + g]));
                    px[2 * k] = xlo[k];
                    px[2 * k + 1] = xhi[k];
                    py[2 * k] = py[2 * k + 1] = log10(m);
                }
                plot_line(ax, px, py, 2 * n, &st);
            } else { /* a bar per sub-range, from the enclosure's low end to its high end */
                st.alpha = 0.3;
                st.width = 1.5;
                for (size_t k = 0; k < n; k++) {
                    double a = L[k * ng + g], c = H[k * ng + g];
                    if (!isfinite(a) || !isfinite(c)) continue;
                    if (c - a < (y1 - y0) * 4e-3) { /* a point: a thin bar */
                        double mid = 0.5 * (a + c);
                        a = mid - (y1 - y0) * 2e-3;
                        c = mid + (y1 - y0) * 2e-3;
                    }
                    plot_rect(ax, xlo[k], a, xhi[k], c, &st);
                    st.label = NULL;
                }
            }
        }
    }
    int rc = plot_fig_save(ctx, fig, path);
    plot_fig_free(fig);
    free(buf);
    return rc;
}

/* ------------------------------------------------ fis rules */

enum { RULES_SHOWN = 30 };

int plot_fis_rules(haze_ctx *ctx, const haze_fis *f, const double *in, const double *out,
                   const double *firing, int n, const double *ys, const double *implied,
                   const double *aggregate, const int *has_sets, const char *path) {
    const int ni = haze_fis_input_count(f), no = haze_fis_output_count(f);
    const int nr = haze_fis_rule_count(f), shown = nr < RULES_SHOWN ? nr : RULES_SHOWN;
    const int cols = ni + no, rows = shown + 1;
    char title[200];
    if (shown < nr)
        snprintf(title, sizeof title, "%s: the first %d of %d rules", haze_fis_name(f), shown, nr);
    else
        snprintf(title, sizeof title, "%s: %d rules", haze_fis_name(f), nr);
    /* a grid of bare cells: a row per rule, a column per variable */
    plot_fig *fig = plot_fig_new(rows, cols, 200, 70, title);
    double *x = malloc(sizeof(double) * MF_POINTS), *mu = malloc(sizeof(double) * MF_POINTS);
    double *cut = malloc(sizeof(double) * MF_POINTS);
    if (!fig || !x || !mu || !cut) {
        plot_fig_free(fig);
        free(x);
        free(mu);
        free(cut);
        return out_of_memory();
    }
    plot_style ink = plot_style_of(-1), in_set = plot_style_of(0), out_set = plot_style_of(1),
               value = plot_style_of(3);
    in_set.alpha = out_set.alpha = 0.45;
    in_set.width = out_set.width = 1.5;
    value.width = 2;
    for (int row = 0; row < rows; row++)
        for (int c = 0; c < cols; c++) {
            plot_axes *ax = plot_fig_axes(fig, row * cols + c);
            int io = c >= ni, v = io ? c - ni : c, last = row == shown;
            double lo, hi;
            haze_fis_var_range(NULL, f, io, v, &lo, &hi);
            char head[160];
            if (io)
                snprintf(head, sizeof head, "%s = %.4g", haze_fis_var_name(f, 1, v), out[v]);
            else
                snprintf(head, sizeof head, "%s = %.4g", haze_fis_var_name(f, 0, v), in[v]);
            plot_frame fr = {lo, hi, 0, 1.1, row == 0 ? head : NULL, NULL, NULL, NULL, PLOT_BARE};
            if (!(hi > lo)) plot_pad(&fr.x0, &fr.x1, 0);
            if (last && !io) continue; /* the last row: the aggregates only */
            plot_axes_setup(ax, &fr);
            if (last) {
                if (has_sets[v]) {
                    plot_style a = out_set;
                    plot_fill(ax, ys + (size_t)v * n, NULL, aggregate + (size_t)v * n, (size_t)n,
                              &a);
                }
                plot_vline(ax, out[v], &value);
                continue;
            }
            if (c == 0) {
                char lab[32];
                snprintf(lab, sizeof lab, "%d", row + 1);
                plot_text(ax, lo + 0.02 * (hi - lo), 1.06, 0, 0, &ink, lab);
            }
            int term = haze_fis_rule_term(f, row, io, v);
            if (term != 0) {
                int k = (term < 0 ? -term : term) - 1;
                for (int j = 0; j < MF_POINTS; j++)
                    x[j] = j == MF_POINTS - 1 ? hi : lo + (hi - lo) * j / (MF_POINTS - 1);
                if (haze_fis_mf_eval(NULL, f, io, v, k, x, MF_POINTS, mu) == HAZE_OK) {
                    if (term < 0)
                        for (int j = 0; j < MF_POINTS; j++) mu[j] = 1 - mu[j];
                    plot_style o = ink;
                    o.width = 1;
                    plot_line(ax, x, mu, MF_POINTS, &o);
                    if (!io) { /* the input's set up to its degree at the input */
                        double d;
                        double xi = in[v] < lo ? lo : in[v] > hi ? hi : in[v];
                        haze_fis_mf_eval(NULL, f, 0, v, k, &xi, 1, &d);
                        if (term < 0) d = 1 - d;
                        for (int j = 0; j < MF_POINTS; j++) cut[j] = mu[j] < d ? mu[j] : d;
                        plot_fill(ax, x, NULL, cut, MF_POINTS, &in_set);
                    }
                }
            }
            if (io && has_sets[v])
                plot_fill(ax, ys + (size_t)v * n, NULL,
                          implied + ((size_t)v * (size_t)nr + (size_t)row) * (size_t)n, (size_t)n,
                          &out_set);
            if (io && term != 0) {
                char w[32];
                snprintf(w, sizeof w, "%.3g", firing[row]);
                plot_text(ax, hi - 0.02 * (hi - lo), 1.06, 1, 0, &ink, w);
            } else if (!io) {
                plot_vline(ax, in[v], &value);
            }
        }
    int rc = plot_fig_save(ctx, fig, path);
    plot_fig_free(fig);
    free(x);
    free(mu);
    free(cut);
    return rc;
}
