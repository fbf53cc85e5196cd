/*
 * cli/plot.h - the drawing layer behind the plots of the haze tool (fis plot,
 * fis surface --plot, fcm --plot, edge --side-by-side, ...).
 *
 * One look for every command: one palette, one font and size, the same
 * margins, nice ticks (1, 2, 5 x 10^k) and a legend of the labelled things.
 * A figure is a grid of panels (axes); each panel is set up with its ranges
 * and labels first, then things are drawn into it in data coordinates. The
 * figure is written as PNG, SVG or PDF, as the extension of its path says,
 * through the library's atomic output files (so an output group holds it).
 *
 * Drawing is done with cairo (docs/plots.md says why cairo and not PLplot).
 * cairo is optional at configure time: without it plot_available() is 0 and
 * commands refuse their plot options with plot_check_path()'s message.
 *
 * Big scatters are rasterised into an image of the panel's pixels before
 * they reach cairo (also in SVG and PDF, as matplotlib's rasterized=True),
 * so a million points stay fast and the files small.
 */
#ifndef HAZE_CLI_PLOT_H
#define HAZE_CLI_PLOT_H

#include <stddef.h>

#include "haze/haze.h"

/* A colour, components in 0..1. */
typedef struct plot_rgb {
    double r, g, b;
} plot_rgb;

/* Colour i of the qualitative palette (10 colours, cycling); i < 0 is the
 * ink of axes and text (a dark grey). */
plot_rgb plot_color(int i);
/* The sequential colour map (viridis, dark blue to yellow) at t in 0..1. */
plot_rgb plot_cmap(double t);

enum { PLOT_MARK_DOT = 0, PLOT_MARK_CROSS, PLOT_MARK_DIAMOND, PLOT_MARK_SQUARE };

/* How a line, area or marker is drawn; labelled ones go to the legend. */
typedef struct plot_style {
    plot_rgb color;
    double width; /* line width, pixels (points in SVG/PDF) */
    double alpha; /* opacity 0..1 */
    int dash;     /* 0 solid, 1 dashed, 2 dotted */
    int marker;   /* PLOT_MARK_* for markers and scatters */
    double size;  /* marker radius */
    const char *label;
} plot_style;

/* Palette colour i, width 2, opaque, solid, dots of radius 2.5, no label. */
plot_style plot_style_of(int i);

/* What a panel shows: data ranges (x0 < x1, y0 < y1 after plot_pad), the
 * title and axis labels (NULL: none) and flags. */
enum {
    PLOT_COLORBAR = 1, /* room for a colour bar at the right (plot_heatmap draws it) */
    PLOT_NOAXES = 2,   /* no ticks, grid or frame (an image) */
    PLOT_LEGEND_LEFT = 4,
    PLOT_LEGEND_OUT = 8,    /* the legend right of the panel, outside */
    PLOT_LEGEND_BELOW = 16, /* the legend at the bottom right of the panel */
    PLOT_XINT = 32,         /* x is a count (epochs, iterations): whole-number ticks */
    PLOT_BARE = 64          /* a frame only, thin margins (a cell of a grid of small panels) */
};
typedef struct plot_frame {
    double x0, x1, y0, y1;
    const char *title, *xlabel, *ylabel, *zlabel;
    int flags;
} plot_frame;

typedef struct plot_fig plot_fig;
typedef struct plot_axes plot_axes;

/* 1 when the tool was built with plotting (cairo), else 0. */
int plot_available(void);

/*
 * Checks an output path of a plot option before any work is done: prints a
 * message naming the command and option and returns 1 (a usage error) when
 * the tool was built without plotting or the extension is not .png, .svg or
 * .pdf; 0 when it can be written.
 */
int plot_check_path(const char *cmd, const char *option, const char *path);

/* A figure of rows x cols panels, each panel_w x panel_h pixels (0: the
 * default 640 x 420), with a title over all (NULL: none). NULL when out of
 * memory, or when built without plotting. */
plot_fig *plot_fig_new(int rows, int cols, double panel_w, double panel_h, const char *title);
/* Panel i (row-major). Valid while the figure lives. */
plot_axes *plot_fig_axes(plot_fig *fig, int i);
/* Writes the figure to path as PNG, SVG or PDF through haze_outfile (so in
 * ctx's output group, if one is open). Prints why on failure and returns a
 * CLI exit code; 0 on success. */
int plot_fig_save(haze_ctx *ctx, plot_fig *fig, const char *path);
void plot_fig_free(plot_fig *fig);

/* Draws the panel's background, grid, ticks, labels and title. Call once per
 * panel, before drawing into it. */
void plot_axes_setup(plot_axes *ax, const plot_frame *f);

/* Widens [*lo, *hi] by a fraction `pad` of its width on each side (a point
 * range becomes a unit one, infinite or NaN ends become 0..1). */
void plot_pad(double *lo, double *hi, double pad);
/* The range of v[0], v[stride], ... v[(n-1) stride], finite values only. */
void plot_range(const double *v, size_t n, size_t stride, double *lo, double *hi);

/* A polyline through (x[i], y[i]); NaN breaks it. */
void plot_line(plot_axes *ax, const double *x, const double *y, size_t n, const plot_style *s);
/* The area between ylo (NULL: y = 0) and yhi over x, filled with the style's
 * colour at its alpha, and outlined at full colour when width > 0. */
void plot_fill(plot_axes *ax, const double *x, const double *ylo, const double *yhi, size_t n,
               const plot_style *s);
/* A vertical (horizontal) line across the panel at x (y). */
void plot_vline(plot_axes *ax, double x, const plot_style *s);
void plot_hline(plot_axes *ax, double y, const plot_style *s);
/* An axis-aligned rectangle in data coordinates, filled like plot_fill. */
void plot_rect(plot_axes *ax, double xa, double ya, double xb, double yb, const plot_style *s);
/*
 * Points (x[i stride], y[i stride]): coloured by palette colour cls[i] when
 * cls is given (else the style's colour), with opacity alpha[i] when given
 * (else the style's alpha). Rasterised beyond a few thousand points.
 */
void plot_scatter(plot_axes *ax, const double *x, const double *y, size_t n, size_t stride,
                  const int *cls, const float *alpha, const plot_style *s);
/* Markers of the style's shape and size, with a white outline. */
void plot_markers(plot_axes *ax, const double *x, const double *y, size_t n, size_t stride,
                  const plot_style *s);
/* Text at data point (x, y); ha and va in 0..1 say which point of the text's
 * box sits there (0.5, 0: centred above). */
void plot_text(plot_axes *ax, double x, double y, double ha, double va, const plot_style *s,
               const char *text);
/*
 * A grid of values z[j nx + i] at x = x0 + i (x1 - x0) / (nx - 1), y likewise
 * (the panel's ranges), coloured by plot_cmap over [zlo, zhi], with the
 * colour bar when the frame asked for one. NaN cells are left blank.
 */
void plot_heatmap(plot_axes *ax, const double *z, int nx, int ny, double zlo, double zhi);
/* Contour lines of the same grid at the given levels (marching squares). */
void plot_contour(plot_axes *ax, const double *z, int nx, int ny, const double *levels, int nlev,
                  const plot_style *s);
/* An 8-bit image (1 channel grey or 3 RGB) filling the panel, pixels square. */
void plot_image(plot_axes *ax, const unsigned char *px, int w, int h, int channels);
/* A legend entry without a drawn thing (say, a class of a scatter). */
void plot_legend_add(plot_axes *ax, const plot_style *s, int as_marker);

/* Nice tick values over [lo, hi], about `want` of them: writes at most cap
 * into t and returns their count. */
int plot_ticks(double lo, double hi, int want, double *t, int cap);

#endif

/* ------------------------------------------------ the commands' figures
 * (cli/plot_figs.c): each takes the data its command computed for its
 * numeric output, draws the figure and writes it to path. They return a
 * CLI exit code (0 on success), having printed why on failure. */

/* fis plot: the membership functions of every input and output, or of one
 * variable (is_output, index; index -1 for all). */
int plot_fis_mfs(haze_ctx *ctx, const haze_fis *f, int is_output, int index, const char *path);
/* fis surface: for each output, a heat map with contours over inputs ix
 * (across) and iy (up), from the grid of gn x gn rows (ix fastest) of in
 * (rows x ni) and out (rows x no); held describes the other inputs. */
int plot_fis_surface(haze_ctx *ctx, const haze_fis *f, const double *in, const double *out, long gn,
                     int ix, int iy, const char *held, const char *path);
/* fcm: points coloured by their largest membership (the first two
 * principal components beyond two features), the membership as opacity,
 * the centres marked; the objective per iteration beside. The data are x,
 * or x32 when x is NULL (a float32 table read as such). */
int plot_fcm(haze_ctx *ctx, const double *x, const float *x32, const char *const *names,
             const haze_fcm_result *r, const char *path);
/* fuzzy eval --plot: the result's membership function (the staircase of its
 * cuts, each cut an interval at its level), with up to PLOT_FUZZY_OPERANDS
 * operands (names: nop strings, stride bytes apart) drawn as outlines. */
#define PLOT_FUZZY_OPERANDS 6
int plot_fuzzy(haze_ctx *ctx, const haze_fuzzy_array *v, const char *expr,
               const haze_fuzzy_array *const *ops, const char *names, size_t stride, int nop,
               const char *path);
/* fnn train --plot: the loss (training and held-out), the accuracy (for
 * classes) and the rule count per epoch, the kept epoch marked. */
int plot_fnn(haze_ctx *ctx, const haze_fnn_epoch *h, int n, int classes, const char *path);
/* prec --plot: the bound of each goal (a step of an unrolled filter, say)
 * from the interval and the affine engine, on a log scale (the paper's
 * Fig. 3). */
int plot_prec(haze_ctx *ctx, const char *script, const haze_prec_result *ia,
              const haze_prec_result *aa, const char *path);
/* prec --plot with a bisected input: per goal (a panel each, at most 6),
 * the enclosure over each sub-range of the input with the most sub-ranges
 * (the hull over the others'), as bars, or the bound's magnitude as steps
 * on a log scale when it spans two decades or more (the paper's Fig. 4);
 * one series per result res[0..nres-1] (labels, palette colours). */
int plot_prec_boxes(haze_ctx *ctx, const char *script, const haze_prec_script *s,
                    const haze_prec_result *const *res, const char *const *labels,
                    const int *colours, int nres, const char *path);
/* fis rules: like MATLAB's ruleview at one input vector in: a row per rule
 * (each input's set filled up to its degree, each output's implied set), a
 * last row with each output's aggregate and its value out[o]. firing: nr
 * degrees; for output o, ys + o n (n points), implied + o nr n,
 * aggregate + o n, and has_sets[o] (0 for a Sugeno output). */
int plot_fis_rules(haze_ctx *ctx, const haze_fis *f, const double *in, const double *out,
                   const double *firing, int n, const double *ys, const double *implied,
                   const double *aggregate, const int *has_sets, const char *path);
/* edge --side-by-side: the input and the edges, side by side. */
int plot_edge(haze_ctx *ctx, const haze_image *in, const haze_image *edges, const char *in_name,
              const char *method, const char *path);
