/*
 * cli/plot.c - the drawing layer of the haze tool's plots, on cairo (see
 * plot.h). Everything is drawn into a cairo recording surface in figure
 * units (a pixel of the PNG, a point of the SVG or PDF) and replayed onto
 * the file's surface when the figure is saved.
 *
 * Ticks: the step is 1, 2 or 5 times a power of ten, the one that gives
 * closest to the number asked for (Heckbert, "Nice numbers for graph
 * labels", Graphics Gems, 1990). Colours: the qualitative palette is the
 * ten "category10" colours of d3 and matplotlib; the colour map is viridis
 * (van der Walt and Smith, 2015) through eleven of its stops.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "plot.h"

#define PLOT_PI 3.14159265358979323846

static const unsigned char palette[10][3] = {
    {31, 119, 180}, {255, 127, 14},  {44, 160, 44},   {214, 39, 40},  {148, 103, 189},
    {140, 86, 75},  {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207}};

/* viridis at t = 0, 0.1, ..., 1 */
static const unsigned char viridis[11][3] = {
    {68, 1, 84},    {72, 36, 117},  {65, 68, 135},  {53, 95, 141},  {42, 120, 142}, {33, 145, 140},
    {34, 168, 132}, {68, 191, 112}, {122, 209, 81}, {189, 223, 38}, {253, 231, 37}};

plot_rgb plot_color(int i) {
    if (i < 0) return (plot_rgb){0.2, 0.2, 0.2};
    const unsigned char *c = palette[i % 10];
    return (plot_rgb){c[0] / 255.0, c[1] / 255.0, c[2] / 255.0};
}

plot_rgb plot_cmap(double t) {
    if (!(t > 0)) t = 0; /* NaN too */
    if (t > 1) t = 1;
    double u = t * 10.0;
    int k = (int)u;
    if (k > 9) k = 9;
    double f = u - k;
    const unsigned char *a = viridis[k], *b = viridis[k + 1];
    return (plot_rgb){(a[0] + f * (b[0] - a[0])) / 255.0, (a[1] + f * (b[1] - a[1])) / 255.0,
                      (a[2] + f * (b[2] - a[2])) / 255.0};
}

plot_style plot_style_of(int i) {
    plot_style s = {plot_color(i), 2.0, 1.0, 0, PLOT_MARK_DOT, 2.5, NULL};
    return s;
}

void plot_pad(double *lo, double *hi, double pad) {
    if (!isfinite(*lo) || !isfinite(*hi) || *lo > *hi) {
        *lo = 0;
        *hi = 1;
        return;
    }
    if (*lo == *hi) {
        double d = fabs(*lo) > 0 ? 0.5 * fabs(*lo) : 0.5;
        *lo -= d;
        *hi += d;
        return;
    }
    double w = *hi - *lo;
    *lo -= pad * w;
    *hi += pad * w;
}

void plot_range(const double *v, size_t n, size_t stride, double *lo, double *hi) {
    double a = INFINITY, b = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double x = v[i * stride];
        if (!isfinite(x)) continue;
        if (x < a) a = x;
        if (x > b) b = x;
    }
    *lo = a;
    *hi = b;
}

int plot_ticks(double lo, double hi, int want, double *t, int cap) {
    if (!(hi > lo) || !isfinite(hi - lo) || want < 1 || cap < 1) return 0;
    double raw = (hi - lo) / want;
    double mag = pow(10.0, floor(log10(raw)));
    double norm = raw / mag;
    double step = (norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10) * mag;
    double first = ceil(lo / step - 1e-9);
    int n = 0;
    for (double k = first; n < cap; k++) {
        double v = k * step;
        if (v > hi + step * 1e-9) break;
        t[n++] = fabs(v) < step * 1e-9 ? 0.0 : v;
    }
    return n;
}

#ifdef HAZE_WITH_PLOT

/* The text of tick v on an axis whose ticks are `step` apart. */
static void tick_label(double v, double step, char *buf, size_t cap) {
    double a = fabs(v);
    if ((a >= 1e6 || (a > 0 && a < 1e-4) || step < 1e-4)) {
        snprintf(buf, cap, "%.3g", v);
        return;
    }
    int dec = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    if (dec > 8) dec = 8;
    snprintf(buf, cap, "%.*f", dec, v);
    if (strcmp(buf, "-0") == 0 || (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1)))
        memmove(buf, buf + 1, strlen(buf));
}

#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>

enum { FONT_TICK = 12, FONT_LABEL = 13, FONT_TITLE = 14 };
static const char font_face[] = "DejaVu Sans";
#define MAX_LEGEND 24

typedef struct legend_entry {
    char label[80];
    plot_style s;
    int kind; /* 0 line, 1 area, 2 marker */
} legend_entry;

struct plot_axes {
    plot_fig *fig;
    double ox, oy, ow, oh; /* the panel's cell in the figure */
    double px, py, pw, ph; /* the plotting area */
    plot_frame f;
    int ready;
    legend_entry leg[MAX_LEGEND];
    int nleg;
};

struct plot_fig {
    cairo_surface_t *rec;
    cairo_t *cr;
    double w, h;
    int n;
    plot_axes *ax;
};

int plot_available(void) {
    return 1;
}

static void set_rgb(cairo_t *cr, plot_rgb c, double a) {
    cairo_set_source_rgba(cr, c.r, c.g, c.b, a);
}

static void font(cairo_t *cr, double size, int bold) {
    cairo_select_font_face(cr, font_face, CAIRO_FONT_SLANT_NORMAL,
                           bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, size);
}

/* Text with its box's point (ha, va) at (x, y), turned by angle (radians). */
static void text_at(cairo_t *cr, double x, double y, double ha, double va, double angle,
                    const char *s) {
    cairo_text_extents_t e;
    cairo_font_extents_t fe;
    cairo_text_extents(cr, s, &e);
    cairo_font_extents(cr, &fe);
    cairo_save(cr);
    cairo_translate(cr, x, y);
    cairo_rotate(cr, angle);
    /* vertical placement by the font's ascent, so labels line up */
    double hgt = fe.ascent * 0.8;
    cairo_move_to(cr, -ha * e.x_advance, hgt * (1.0 - va));
    cairo_show_text(cr, s);
    cairo_restore(cr);
}

plot_fig *plot_fig_new(int rows, int cols, double panel_w, double panel_h, const char *title) {
    if (rows < 1 || cols < 1) return NULL;
    if (panel_w <= 0) panel_w = 640;
    if (panel_h <= 0) panel_h = 420;
    plot_fig *fig = calloc(1, sizeof *fig);
    if (!fig) return NULL;
    double top = title ? 34 : 0;
    fig->w = ceil(cols * panel_w);
    fig->h = ceil(rows * panel_h + top);
    fig->n = rows * cols;
    fig->ax = calloc((size_t)fig->n, sizeof *fig->ax);
    cairo_rectangle_t ext = {0, 0, fig->w, fig->h};
    fig->rec = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, &ext);
    fig->cr = cairo_create(fig->rec);
    if (!fig->ax || cairo_status(fig->cr) != CAIRO_STATUS_SUCCESS) {
        plot_fig_free(fig);
        return NULL;
    }
    cairo_t *cr = fig->cr;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    if (title) {
        font(cr, FONT_TITLE + 2, 1);
        set_rgb(cr, plot_color(-1), 1);
        text_at(cr, fig->w / 2, 20, 0.5, 0.5, 0, title);
    }
    for (int i = 0; i < fig->n; i++) {
        plot_axes *ax = &fig->ax[i];
        ax->fig = fig;
        ax->ox = (i % cols) * panel_w;
        ax->oy = top + (i / cols) * panel_h;
        ax->ow = panel_w;
        ax->oh = panel_h;
    }
    return fig;
}

plot_axes *plot_fig_axes(plot_fig *fig, int i) {
    return fig && i >= 0 && i < fig->n ? &fig->ax[i] : NULL;
}

void plot_fig_free(plot_fig *fig) {
    if (!fig) return;
    if (fig->cr) cairo_destroy(fig->cr);
    if (fig->rec) cairo_surface_destroy(fig->rec);
    free(fig->ax);
    free(fig);
}

static double X(const plot_axes *ax, double x) {
    double v = ax->px + (x - ax->f.x0) / (ax->f.x1 - ax->f.x0) * ax->pw;
    return v < -1e5 ? -1e5 : v > 1e5 ? 1e5 : v;
}
static double Y(const plot_axes *ax, double y) {
    double v = ax->py + ax->ph - (y - ax->f.y0) / (ax->f.y1 - ax->f.y0) * ax->ph;
    return v < -1e5 ? -1e5 : v > 1e5 ? 1e5 : v;
}

static void clip_in(const plot_axes *ax) {
    cairo_t *cr = ax->fig->cr;
    cairo_save(cr);
    cairo_rectangle(cr, ax->px, ax->py, ax->pw, ax->ph);
    cairo_clip(cr);
}

static void line_style(cairo_t *cr, const plot_style *s) {
    cairo_set_line_width(cr, s->width > 0 ? s->width : 1);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_cap(cr, s->dash == 2 ? CAIRO_LINE_CAP_ROUND : CAIRO_LINE_CAP_BUTT);
    double dashed[2] = {6, 4}, dotted[2] = {0.01, 4};
    if (s->dash == 1)
        cairo_set_dash(cr, dashed, 2, 0);
    else if (s->dash == 2)
        cairo_set_dash(cr, dotted, 2, 0);
    else
        cairo_set_dash(cr, NULL, 0, 0);
}

static void add_legend(plot_axes *ax, const plot_style *s, int kind) {
    if (!s->label || !*s->label || ax->nleg >= MAX_LEGEND) return;
    legend_entry *e = &ax->leg[ax->nleg++];
    snprintf(e->label, sizeof e->label, "%s", s->label);
    e->s = *s;
    e->s.label = NULL;
    e->kind = kind;
}

void plot_legend_add(plot_axes *ax, const plot_style *s, int as_marker) {
    add_legend(ax, s, as_marker ? 2 : 0);
}

void plot_axes_setup(plot_axes *ax, const plot_frame *f) {
    cairo_t *cr = ax->fig->cr;
    ax->f = *f;
    if (!(ax->f.x1 > ax->f.x0)) plot_pad(&ax->f.x0, &ax->f.x1, 0);
    if (!(ax->f.y1 > ax->f.y0)) plot_pad(&ax->f.y0, &ax->f.y1, 0);
    int bare = f->flags & PLOT_BARE, noaxes = (f->flags & PLOT_NOAXES) || bare;
    double left = bare ? 6 : noaxes ? 10 : f->ylabel ? 72 : 56, right = bare ? 6 : 18;
    double top = f->title ? (bare ? 24 : 34) : (bare ? 6 : 14), bottom = bare        ? 6
                                                                         : noaxes    ? 10
                                                                         : f->xlabel ? 52
                                                                                     : 32;
    if (f->flags & PLOT_COLORBAR) right += 84;
    if (f->flags & PLOT_LEGEND_OUT) right += 150;
    if (!noaxes) { /* room for the widest y tick label */
        double yt[32], w = 0;
        char buf[64];
        int ny = plot_ticks(ax->f.y0, ax->f.y1, ax->oh - top - bottom > 300 ? 6 : 4, yt, 32);
        font(cr, FONT_TICK, 0);
        for (int i = 0; i < ny; i++) {
            cairo_text_extents_t e;
            tick_label(yt[i], ny > 1 ? yt[1] - yt[0] : fabs(yt[0]), buf, sizeof buf);
            cairo_text_extents(cr, buf, &e);
            if (e.x_advance > w) w = e.x_advance;
        }
        if (left < w + (f->ylabel ? 42 : 20)) left = ceil(w + (f->ylabel ? 42 : 20));
    }
    ax->px = ax->ox + left;
    ax->py = ax->oy + top;
    ax->pw = ax->ow - left - right;
    ax->ph = ax->oh - top - bottom;
    if (ax->pw < 10) ax->pw = 10;
    if (ax->ph < 10) ax->ph = 10;
    ax->ready = 1;
    plot_rgb ink = plot_color(-1);
    if (f->title) {
        font(cr, bare ? FONT_TICK : FONT_TITLE, 1);
        set_rgb(cr, ink, 1);
        text_at(cr, ax->px + ax->pw / 2, ax->oy + top / 2 + 2, 0.5, 0.5, 0, f->title);
    }
    if (noaxes) return;
    double xt[32], yt[32];
    int want = ax->pw > 400 ? 8 : 5;
    if ((f->flags & PLOT_XINT) && ax->f.x1 - ax->f.x0 < want)
        want = ax->f.x1 - ax->f.x0 >= 1 ? (int)(ax->f.x1 - ax->f.x0) : 1;
    int nx = plot_ticks(ax->f.x0, ax->f.x1, want, xt, 32);
    if (f->flags & PLOT_XINT) { /* whole numbers only */
        int m = 0;
        for (int i = 0; i < nx; i++)
            if (xt[i] == floor(xt[i])) xt[m++] = xt[i];
        nx = m;
    }
    int ny = plot_ticks(ax->f.y0, ax->f.y1, ax->ph > 300 ? 6 : 4, yt, 32);
    /* light grid under everything drawn later */
    cairo_set_line_width(cr, 1);
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    for (int i = 0; i < nx; i++) {
        double x = round(X(ax, xt[i])) + 0.5;
        cairo_move_to(cr, x, ax->py);
        cairo_line_to(cr, x, ax->py + ax->ph);
    }
    for (int i = 0; i < ny; i++) {
        double y = round(Y(ax, yt[i])) + 0.5;
        cairo_move_to(cr, ax->px, y);
        cairo_line_to(cr, ax->px + ax->pw, y);
    }
    cairo_stroke(cr);
    /* ticks and their labels */
    font(cr, FONT_TICK, 0);
    set_rgb(cr, ink, 1);
    char buf[64];
    for (int i = 0; i < nx; i++) {
        double x = round(X(ax, xt[i])) + 0.5;
        cairo_move_to(cr, x, ax->py + ax->ph);
        cairo_line_to(cr, x, ax->py + ax->ph + 5);
        tick_label(xt[i], nx > 1 ? xt[1] - xt[0] : fabs(xt[0]), buf, sizeof buf);
        text_at(cr, x, ax->py + ax->ph + 8, 0.5, 0, 0, buf);
    }
    double maxw = 0; /* the widest y label: the axis label goes left of it */
    for (int i = 0; i < ny; i++) {
        double y = round(Y(ax, yt[i])) + 0.5;
        cairo_text_extents_t e;
        cairo_move_to(cr, ax->px, y);
        cairo_line_to(cr, ax->px - 5, y);
        tick_label(yt[i], ny > 1 ? yt[1] - yt[0] : fabs(yt[0]), buf, sizeof buf);
        text_at(cr, ax->px - 8, y, 1, 0.5, 0, buf);
        cairo_text_extents(cr, buf, &e);
        if (e.x_advance > maxw) maxw = e.x_advance;
    }
    cairo_stroke(cr);
    font(cr, FONT_LABEL, 0);
    if (f->xlabel) text_at(cr, ax->px + ax->pw / 2, ax->py + ax->ph + 28, 0.5, 0, 0, f->xlabel);
    double ylx = ax->px - 14 - maxw;
    if (ylx > ax->ox + 30) ylx = ax->ox + 30;
    if (f->ylabel) text_at(cr, ylx, ax->py + ax->ph / 2, 0.5, 1, -PLOT_PI / 2, f->ylabel);
}

/* The frame and legend go over what was drawn: done when the figure is saved. */
static void finish_axes(plot_axes *ax) {
    cairo_t *cr = ax->fig->cr;
    if (!ax->ready) return;
    if (!(ax->f.flags & PLOT_NOAXES)) { /* PLOT_BARE too */
        cairo_set_line_width(cr, 1);
        cairo_set_dash(cr, NULL, 0, 0);
        set_rgb(cr, plot_color(-1), 1);
        cairo_rectangle(cr, round(ax->px) + 0.5, round(ax->py) + 0.5, round(ax->pw), round(ax->ph));
        cairo_stroke(cr);
    }
    if (!ax->nleg) return;
    font(cr, FONT_TICK, 0);
    double wmax = 0;
    for (int i = 0; i < ax->nleg; i++) {
        cairo_text_extents_t e;
        cairo_text_extents(cr, ax->leg[i].label, &e);
        if (e.x_advance > wmax) wmax = e.x_advance;
    }
    const double row = 18, sw = 24;
    double bw = sw + 16 + wmax + 10, bh = ax->nleg * row + 8;
    double bx = ax->px + ax->pw - bw - 8, by = ax->py + 8;
    if (ax->f.flags & PLOT_LEGEND_LEFT) bx = ax->px + 8;
    if (ax->f.flags & PLOT_LEGEND_BELOW) by = ax->py + ax->ph - bh - 8;
    if (ax->f.flags & PLOT_LEGEND_OUT) {
        bx = ax->px + ax->pw + 12 + ((ax->f.flags & PLOT_COLORBAR) ? 84 : 0);
        by = ax->py;
    }
    cairo_rectangle(cr, bx, by, bw, bh);
    cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0.8, 0.8, 0.8);
    cairo_set_line_width(cr, 1);
    cairo_stroke(cr);
    for (int i = 0; i < ax->nleg; i++) {
        const legend_entry *e = &ax->leg[i];
        double y = by + 4 + row * (i + 0.5), x = bx + 8;
        if (e->kind == 1) {
            cairo_rectangle(cr, x, y - 5, sw, 10);
            set_rgb(cr, e->s.color, e->s.alpha);
            cairo_fill_preserve(cr);
            set_rgb(cr, e->s.color, 1);
            cairo_set_line_width(cr, e->s.width > 0 ? 1.5 : 0.5);
            cairo_stroke(cr);
        } else if (e->kind == 2) {
            set_rgb(cr, e->s.color, e->s.marker == PLOT_MARK_DOT ? 1 : e->s.alpha);
            if (e->s.marker == PLOT_MARK_CROSS) {
                cairo_set_line_width(cr, 2.5);
                cairo_move_to(cr, x + sw / 2 - 5, y - 5);
                cairo_line_to(cr, x + sw / 2 + 5, y + 5);
                cairo_move_to(cr, x + sw / 2 + 5, y - 5);
                cairo_line_to(cr, x + sw / 2 - 5, y + 5);
                cairo_stroke(cr);
            } else {
                cairo_arc(cr, x + sw / 2, y, 4.5, 0, 2 * PLOT_PI);
                cairo_fill(cr);
            }
        } else {
            line_style(cr, &e->s);
            set_rgb(cr, e->s.color, e->s.alpha);
            cairo_move_to(cr, x, y);
            cairo_line_to(cr, x + sw, y);
            cairo_stroke(cr);
            cairo_set_dash(cr, NULL, 0, 0);
        }
        set_rgb(cr, plot_color(-1), 1);
        text_at(cr, x + sw + 8, y, 0, 0.5, 0, e->label);
    }
}

static cairo_status_t write_fp(void *closure, const unsigned char *data, unsigned int len) {
    return fwrite(data, 1, len, (FILE *)closure) == len ? CAIRO_STATUS_SUCCESS
                                                        : CAIRO_STATUS_WRITE_ERROR;
}

static const char *ext_of(const char *path) {
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    return dot && (!slash || dot > slash) ? dot + 1 : "";
}

static int ext_is(const char *path, const char *e) {
    const char *x = ext_of(path);
    if (strlen(x) != strlen(e)) return 0;
    for (size_t i = 0; x[i]; i++)
        if ((x[i] | 0x20) != e[i]) return 0;
    return 1;
}

int plot_check_path(const char *cmd, const char *option, const char *path) {
    if (!path || !*path) return cli_usage_error(cmd, "%s: expected a file name", option);
    if (!ext_is(path, "png") && !ext_is(path, "svg") && !ext_is(path, "pdf"))
        return cli_usage_error(cmd, "%s %s: unknown picture type (write .png, .svg or .pdf)",
                               option, path);
    return 0;
}

int plot_fig_save(haze_ctx *ctx, plot_fig *fig, const char *path) {
    for (int i = 0; i < fig->n; i++) finish_axes(&fig->ax[i]);
    cairo_surface_flush(fig->rec);
    if (cairo_status(fig->cr)) {
        cli_errorf("%s: drawing failed: %s", path, cairo_status_to_string(cairo_status(fig->cr)));
        return CLI_RUNTIME;
    }
    haze_outfile *of = NULL;
    int st = haze_outfile_open(ctx, path, &of);
    if (st) return cli_fail(ctx, st);
    cairo_surface_t *s;
    int png = ext_is(path, "png");
    if (png)
        s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)fig->w, (int)fig->h);
    else if (ext_is(path, "svg"))
        s = cairo_svg_surface_create_for_stream(write_fp, haze_outfile_stream(of), fig->w, fig->h);
    else
        s = cairo_pdf_surface_create_for_stream(write_fp, haze_outfile_stream(of), fig->w, fig->h);
    cairo_t *cr = cairo_create(s);
    cairo_set_source_surface(cr, fig->rec, 0, 0);
    cairo_paint(cr);
    cairo_status_t cs = cairo_status(cr);
    cairo_destroy(cr);
    if (!cs && png) cs = cairo_surface_write_to_png_stream(s, write_fp, haze_outfile_stream(of));
    cairo_surface_finish(s);
    if (!cs) cs = cairo_surface_status(s);
    cairo_surface_destroy(s);
    if (cs) {
        haze_outfile_abort(&of);
        cli_errorf("%s: cannot write the picture: %s", path, cairo_status_to_string(cs));
        return CLI_RUNTIME;
    }
    st = haze_outfile_commit(ctx, &of);
    return st ? cli_fail(ctx, st) : CLI_OK;
}

void plot_line(plot_axes *ax, const double *x, const double *y, size_t n, const plot_style *s) {
    cairo_t *cr = ax->fig->cr;
    clip_in(ax);
    int pen = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) {
            pen = 0;
            continue;
        }
        if (pen)
            cairo_line_to(cr, X(ax, x[i]), Y(ax, y[i]));
        else
            cairo_move_to(cr, X(ax, x[i]), Y(ax, y[i]));
        pen = 1;
    }
    line_style(cr, s);
    set_rgb(cr, s->color, s->alpha);
    cairo_stroke(cr);
    cairo_restore(cr);
    add_legend(ax, s, 0);
}

void plot_fill(plot_axes *ax, const double *x, const double *ylo, const double *yhi, size_t n,
               const plot_style *s) {
    cairo_t *cr = ax->fig->cr;
    if (n == 0) return;
    clip_in(ax);
    for (size_t i = 0; i < n; i++) cairo_line_to(cr, X(ax, x[i]), Y(ax, yhi[i]));
    for (size_t i = n; i-- > 0;) cairo_line_to(cr, X(ax, x[i]), Y(ax, ylo ? ylo[i] : 0.0));
    cairo_close_path(cr);
    set_rgb(cr, s->color, s->alpha);
    cairo_fill(cr);
    if (s->width > 0) {
        plot_style o = *s;
        o.alpha = 1;
        line_style(cr, &o);
        set_rgb(cr, s->color, 1);
        for (size_t i = 0; i < n; i++) cairo_line_to(cr, X(ax, x[i]), Y(ax, yhi[i]));
        cairo_stroke(cr);
        if (ylo) {
            for (size_t i = 0; i < n; i++) cairo_line_to(cr, X(ax, x[i]), Y(ax, ylo[i]));
            cairo_stroke(cr);
        }
    }
    cairo_restore(cr);
    add_legend(ax, s, 1);
}

void plot_rect(plot_axes *ax, double xa, double ya, double xb, double yb, const plot_style *s) {
    double x[2] = {xa, xb}, lo[2] = {ya, ya}, hi[2] = {yb, yb};
    plot_style t = *s;
    t.width = 0;
    plot_fill(ax, x, lo, hi, 2, &t);
    if (s->width > 0) {
        cairo_t *cr = ax->fig->cr;
        clip_in(ax);
        cairo_rectangle(cr, X(ax, xa), Y(ax, yb), X(ax, xb) - X(ax, xa), Y(ax, ya) - Y(ax, yb));
        line_style(cr, s);
        set_rgb(cr, s->color, 1);
        cairo_stroke(cr);
        cairo_restore(cr);
    }
}

void plot_vline(plot_axes *ax, double x, const plot_style *s) {
    double xs[2] = {x, x}, ys[2] = {ax->f.y0, ax->f.y1};
    plot_line(ax, xs, ys, 2, s);
}

void plot_hline(plot_axes *ax, double y, const plot_style *s) {
    double xs[2] = {ax->f.x0, ax->f.x1}, ys[2] = {y, y};
    plot_line(ax, xs, ys, 2, s);
}

/* Marker of the style's shape at figure point (x, y). */
static void marker_at(cairo_t *cr, double x, double y, const plot_style *s) {
    double r = s->size;
    switch (s->marker) {
    case PLOT_MARK_CROSS:
        cairo_move_to(cr, x - r, y - r);
        cairo_line_to(cr, x + r, y + r);
        cairo_move_to(cr, x + r, y - r);
        cairo_line_to(cr, x - r, y + r);
        break;
    case PLOT_MARK_DIAMOND:
        cairo_move_to(cr, x, y - r);
        cairo_line_to(cr, x + r, y);
        cairo_line_to(cr, x, y + r);
        cairo_line_to(cr, x - r, y);
        cairo_close_path(cr);
        break;
    case PLOT_MARK_SQUARE:
        cairo_rectangle(cr, x - r, y - r, 2 * r, 2 * r);
        break;
    default:
        cairo_new_sub_path(cr);
        cairo_arc(cr, x, y, r, 0, 2 * PLOT_PI);
    }
}

void plot_markers(plot_axes *ax, const double *x, const double *y, size_t n, size_t stride,
                  const plot_style *s) {
    cairo_t *cr = ax->fig->cr;
    clip_in(ax);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND);
    for (int pass = 0; pass < 2; pass++) { /* a white halo, then the colour */
        for (size_t i = 0; i < n; i++) {
            double px = x[i * stride], py = y[i * stride];
            if (!isfinite(px) || !isfinite(py)) continue;
            marker_at(cr, X(ax, px), Y(ax, py), s);
            if (s->marker == PLOT_MARK_CROSS) {
                cairo_set_line_width(cr, pass ? s->width : s->width + 3);
                if (pass)
                    set_rgb(cr, s->color, s->alpha);
                else
                    cairo_set_source_rgb(cr, 1, 1, 1);
                cairo_stroke(cr);
            } else if (pass) {
                set_rgb(cr, s->color, s->alpha);
                cairo_fill_preserve(cr);
                cairo_set_source_rgb(cr, 1, 1, 1);
                cairo_set_line_width(cr, 1.5);
                cairo_stroke(cr);
            } else {
                cairo_new_path(cr);
            }
        }
    }
    cairo_restore(cr);
    add_legend(ax, s, 2);
}

/* v / 255 rounded, for v <= 255 * 255 (Blinn, "Compositing, part 1",
 * IEEE CG&A 1994) */
static inline uint32_t div255(uint32_t v) {
    v += 128;
    return (v + (v >> 8)) >> 8;
}

/* A million points: splatted into a premultiplied ARGB buffer of the
 * panel's pixels, each a disc whose edge coverage was worked out once. */
static void scatter_raster(plot_axes *ax, const double *x, const double *y, size_t n, size_t stride,
                           const int *cls, const float *alpha, const plot_style *s) {
    cairo_t *cr = ax->fig->cr;
    int w = (int)ceil(ax->pw), h = (int)ceil(ax->ph);
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    if (cairo_surface_status(img)) {
        cairo_surface_destroy(img);
        return;
    }
    cairo_surface_flush(img);
    unsigned char *data = cairo_image_surface_get_data(img);
    int ls = cairo_image_surface_get_stride(img);
    /* the disc: offsets and coverage 0..255 from 4 x 4 samples per pixel */
    double r = s->size > 0.5 ? s->size : 0.5;
    int R = (int)ceil(r), nd = 0;
    int side = 2 * R + 1;
    int *off = malloc(sizeof(int) * 3 * (size_t)side * (size_t)side);
    if (!off) {
        cairo_surface_destroy(img);
        return;
    }
    for (int dy = -R; dy <= R; dy++)
        for (int dx = -R; dx <= R; dx++) {
            int in = 0;
            for (int sy = 0; sy < 4; sy++)
                for (int sx = 0; sx < 4; sx++) {
                    double u = dx + (sx + 0.5) / 4 - 0.5, v = dy + (sy + 0.5) / 4 - 0.5;
                    in += u * u + v * v <= r * r;
                }
            if (!in) continue;
            off[3 * nd] = dx;
            off[3 * nd + 1] = dy;
            off[3 * nd + 2] = in * 255 / 16;
            nd++;
        }
    unsigned char pal[10][3];
    for (int i = 0; i < 10; i++) memcpy(pal[i], palette[i], 3);
    unsigned char own[3] = {(unsigned char)lround(s->color.r * 255),
                            (unsigned char)lround(s->color.g * 255),
                            (unsigned char)lround(s->color.b * 255)};
    const double sx = w / (ax->f.x1 - ax->f.x0), sy = h / (ax->f.y1 - ax->f.y0);
    for (size_t i = 0; i < n; i++) {
        double fx = (x[i * stride] - ax->f.x0) * sx, fy = (ax->f.y1 - y[i * stride]) * sy;
        if (!(fx > -R - 1 && fx < w + R + 1 && fy > -R - 1 && fy < h + R + 1)) continue;
        int cx = (int)floor(fx), cy = (int)floor(fy);
        const unsigned char *c = cls ? pal[((cls[i] % 10) + 10) % 10] : own;
        double a = alpha ? alpha[i] : s->alpha;
        int A = (int)(a * 255 + 0.5);
        if (A <= 0) continue;
        if (A > 255) A = 255;
        for (int k = 0; k < nd; k++) {
            int px = cx + off[3 * k], py = cy + off[3 * k + 1];
            if ((unsigned)px >= (unsigned)w || (unsigned)py >= (unsigned)h) continue;
            uint32_t *d = (uint32_t *)(data + (size_t)py * (size_t)ls) + px;
            uint32_t sa = div255((uint32_t)(A * off[3 * k + 2])), ia = 255 - sa;
            uint32_t v = *d;
            uint32_t da = v >> 24, dr = (v >> 16) & 255, dg = (v >> 8) & 255, db = v & 255;
            da = sa + div255(da * ia);
            dr = div255(c[0] * sa + dr * ia);
            dg = div255(c[1] * sa + dg * ia);
            db = div255(c[2] * sa + db * ia);
            *d = da << 24 | dr << 16 | dg << 8 | db;
        }
    }
    free(off);
    cairo_surface_mark_dirty(img);
    clip_in(ax);
    cairo_set_source_surface(cr, img, ax->px, ax->py);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(img);
}

void plot_scatter(plot_axes *ax, const double *x, const double *y, size_t n, size_t stride,
                  const int *cls, const float *alpha, const plot_style *s) {
    if (n > 3000) {
        scatter_raster(ax, x, y, n, stride, cls, alpha, s);
    } else {
        cairo_t *cr = ax->fig->cr;
        clip_in(ax);
        for (size_t i = 0; i < n; i++) {
            double px = x[i * stride], py = y[i * stride];
            if (!isfinite(px) || !isfinite(py)) continue;
            marker_at(cr, X(ax, px), Y(ax, py), s);
            set_rgb(cr, cls ? plot_color(cls[i]) : s->color, alpha ? alpha[i] : s->alpha);
            cairo_fill(cr);
        }
        cairo_restore(cr);
    }
    add_legend(ax, s, 2);
}

void plot_text(plot_axes *ax, double x, double y, double ha, double va, const plot_style *s,
               const char *text) {
    cairo_t *cr = ax->fig->cr;
    font(cr, FONT_TICK, 0);
    set_rgb(cr, s->color, s->alpha);
    text_at(cr, X(ax, x), Y(ax, y), ha, va, 0, text);
}

static void colorbar(plot_axes *ax, double zlo, double zhi) {
    cairo_t *cr = ax->fig->cr;
    double bx = ax->px + ax->pw + 16, bw = 16;
    cairo_surface_t *g = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 256);
    if (cairo_surface_status(g)) {
        cairo_surface_destroy(g);
        return;
    }
    cairo_surface_flush(g);
    unsigned char *d = cairo_image_surface_get_data(g);
    int ls = cairo_image_surface_get_stride(g);
    for (int k = 0; k < 256; k++) {
        plot_rgb c = plot_cmap(1.0 - k / 255.0);
        *(uint32_t *)(d + (size_t)k * (size_t)ls) = (uint32_t)lround(c.r * 255) << 16 |
                                                    (uint32_t)lround(c.g * 255) << 8 |
                                                    (uint32_t)lround(c.b * 255);
    }
    cairo_surface_mark_dirty(g);
    cairo_save(cr);
    cairo_rectangle(cr, bx, ax->py, bw, ax->ph);
    cairo_clip(cr);
    cairo_translate(cr, bx, ax->py);
    cairo_scale(cr, bw, ax->ph / 256.0);
    cairo_set_source_surface(cr, g, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR);
    cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(g);
    set_rgb(cr, plot_color(-1), 1);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, round(bx) + 0.5, round(ax->py) + 0.5, bw, round(ax->ph));
    cairo_stroke(cr);
    if (!(zhi > zlo)) return;
    double t[32];
    int nt = plot_ticks(zlo, zhi, 5, t, 32);
    font(cr, FONT_TICK, 0);
    char buf[64];
    for (int i = 0; i < nt; i++) {
        double y = round(ax->py + ax->ph - (t[i] - zlo) / (zhi - zlo) * ax->ph) + 0.5;
        cairo_move_to(cr, bx + bw, y);
        cairo_line_to(cr, bx + bw + 4, y);
        tick_label(t[i], nt > 1 ? t[1] - t[0] : fabs(t[0]), buf, sizeof buf);
        text_at(cr, bx + bw + 7, y, 0, 0.5, 0, buf);
    }
    cairo_stroke(cr);
    if (ax->f.zlabel) {
        font(cr, FONT_LABEL, 0);
        text_at(cr, bx + bw + 50, ax->py + ax->ph / 2, 0.5, 0, -PLOT_PI / 2, ax->f.zlabel);
    }
}

void plot_heatmap(plot_axes *ax, const double *z, int nx, int ny, double zlo, double zhi) {
    cairo_t *cr = ax->fig->cr;
    if (nx < 2 || ny < 2) return;
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, nx, ny);
    if (cairo_surface_status(img)) {
        cairo_surface_destroy(img);
        return;
    }
    cairo_surface_flush(img);
    unsigned char *d = cairo_image_surface_get_data(img);
    int ls = cairo_image_surface_get_stride(img);
    double span = zhi > zlo ? zhi - zlo : 1;
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++) {
            double v = z[(size_t)j * (size_t)nx + (size_t)i];
            uint32_t px = 0;
            if (isfinite(v)) {
                plot_rgb c = plot_cmap((v - zlo) / span);
                px = 0xff000000u | (uint32_t)lround(c.r * 255) << 16 |
                     (uint32_t)lround(c.g * 255) << 8 | (uint32_t)lround(c.b * 255);
            }
            *((uint32_t *)(d + (size_t)(ny - 1 - j) * (size_t)ls) + i) = px;
        }
    cairo_surface_mark_dirty(img);
    clip_in(ax);
    /* pixel centres on the grid points: pixel i spans x_i -+ half a step */
    double sx = (X(ax, ax->f.x1) - X(ax, ax->f.x0)) / (nx - 1);
    double sy = (Y(ax, ax->f.y0) - Y(ax, ax->f.y1)) / (ny - 1);
    cairo_translate(cr, ax->px - 0.5 * sx, ax->py - 0.5 * sy);
    cairo_scale(cr, sx, sy);
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR);
    cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(img);
    if (ax->f.flags & PLOT_COLORBAR) colorbar(ax, zlo, zhi);
}

void plot_contour(plot_axes *ax, const double *z, int nx, int ny, const double *levels, int nlev,
                  const plot_style *s) {
    cairo_t *cr = ax->fig->cr;
    if (nx < 2 || ny < 2) return;
    clip_in(ax);
    const double dx = (ax->f.x1 - ax->f.x0) / (nx - 1), dy = (ax->f.y1 - ax->f.y0) / (ny - 1);
    for (int l = 0; l < nlev; l++) {
        double c = levels[l];
        for (int j = 0; j + 1 < ny; j++)
            for (int i = 0; i + 1 < nx; i++) {
                /* corners counter-clockwise from (i, j) and the edges between */
                double v[4] = {z[(size_t)j * nx + i], z[(size_t)j * nx + i + 1],
                               z[(size_t)(j + 1) * nx + i + 1], z[(size_t)(j + 1) * nx + i]};
                double cx[4] = {0, 1, 1, 0}, cy[4] = {0, 0, 1, 1};
                if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]) || !isfinite(v[3]))
                    continue;
                double ex[4], ey[4];
                int ne = 0;
                for (int e = 0; e < 4; e++) {
                    double a = v[e], b = v[(e + 1) % 4];
                    if ((a < c) == (b < c)) continue;
                    double t = (c - a) / (b - a);
                    ex[ne] = cx[e] + t * (cx[(e + 1) % 4] - cx[e]);
                    ey[ne] = cy[e] + t * (cy[(e + 1) % 4] - cy[e]);
                    ne++;
                }
                /* two crossings: one segment; four (a saddle): pair them by
                 * the centre's side, which the mean of the corners decides */
                int pairs[2][2] = {{0, 1}, {2, 3}};
                if (ne == 4 && ((v[0] + v[1] + v[2] + v[3]) / 4 < c) == (v[0] < c)) {
                    pairs[0][1] = 3;
                    pairs[1][0] = 1;
                }
                for (int p = 0; p < ne / 2; p++) {
                    int a = pairs[p][0], b = pairs[p][1];
                    cairo_move_to(cr, X(ax, ax->f.x0 + (i + ex[a]) * dx),
                                  Y(ax, ax->f.y0 + (j + ey[a]) * dy));
                    cairo_line_to(cr, X(ax, ax->f.x0 + (i + ex[b]) * dx),
                                  Y(ax, ax->f.y0 + (j + ey[b]) * dy));
                }
            }
    }
    line_style(cr, s);
    set_rgb(cr, s->color, s->alpha);
    cairo_stroke(cr);
    cairo_restore(cr);
    add_legend(ax, s, 0);
}

void plot_image(plot_axes *ax, const unsigned char *px, int w, int h, int channels) {
    cairo_t *cr = ax->fig->cr;
    if (w < 1 || h < 1) return;
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    if (cairo_surface_status(img)) {
        cairo_surface_destroy(img);
        return;
    }
    cairo_surface_flush(img);
    unsigned char *d = cairo_image_surface_get_data(img);
    int ls = cairo_image_surface_get_stride(img);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const unsigned char *p = px + ((size_t)y * (size_t)w + (size_t)x) * (size_t)channels;
            uint32_t r = p[0], g = channels >= 3 ? p[1] : p[0], b = channels >= 3 ? p[2] : p[0];
            *((uint32_t *)(d + (size_t)y * (size_t)ls) + x) = 0xff000000u | r << 16 | g << 8 | b;
        }
    cairo_surface_mark_dirty(img);
    double k = fmin(ax->pw / w, ax->ph / h);
    double ox = ax->px + (ax->pw - k * w) / 2, oy = ax->py + (ax->ph - k * h) / 2;
    cairo_save(cr);
    cairo_rectangle(cr, ox, oy, k * w, k * h);
    cairo_clip(cr);
    cairo_translate(cr, ox, oy);
    cairo_scale(cr, k, k);
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr),
                             k >= 1 ? CAIRO_FILTER_NEAREST : CAIRO_FILTER_GOOD);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(img);
    set_rgb(cr, plot_color(-1), 1);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, round(ox) - 0.5, round(oy) - 0.5, round(k * w) + 1, round(k * h) + 1);
    cairo_stroke(cr);
}

#else /* built without cairo: commands refuse their plot options */

int plot_available(void) {
    return 0;
}

int plot_check_path(const char *cmd, const char *option, const char *path) {
    (void)path;
    return cli_usage_error(cmd,
                           "%s: built without plotting support (cairo was not found when haze "
                           "was configured; install libcairo2-dev and configure again)",
                           option);
}

plot_fig *plot_fig_new(int rows, int cols, double panel_w, double panel_h, const char *title) {
    return NULL;
}
plot_axes *plot_fig_axes(plot_fig *fig, int i) {
    return NULL;
}
int plot_fig_save(haze_ctx *ctx, plot_fig *fig, const char *path) {
    return CLI_USAGE;
}
void plot_fig_free(plot_fig *fig) {}
void plot_axes_setup(plot_axes *ax, const plot_frame *f) {}
void plot_line(plot_axes *ax, const double *x, const double *y, size_t n, const plot_style *s) {}
void plot_fill(plot_axes *ax, const double *x, const double *ylo, const double *yhi, size_t n,
               const plot_style *s) {}
void plot_vline(plot_axes *ax, double x, const plot_style *s) {}
void plot_hline(plot_axes *ax, double y, const plot_style *s) {}
void plot_rect(plot_axes *ax, double xa, double ya, double xb, double yb, const plot_style *s) {}
void plot_scatter(plot_axes *ax, const double *x, const double *y, size_t n, size_t stride,
                  const int *cls, const float *alpha, const plot_style *s) {}
void plot_markers(plot_axes *ax, const double *x, const double *y, size_t n, size_t stride,
                  const plot_style *s) {}
void plot_text(plot_axes *ax, double x, double y, double ha, double va, const plot_style *s,
               const char *text) {}
void plot_heatmap(plot_axes *ax, const double *z, int nx, int ny, double zlo, double zhi) {}
void plot_contour(plot_axes *ax, const double *z, int nx, int ny, const double *levels, int nlev,
                  const plot_style *s) {}
void plot_image(plot_axes *ax, const unsigned char *px, int w, int h, int channels) {}
void plot_legend_add(plot_axes *ax, const plot_style *s, int as_marker) {}

#endif
