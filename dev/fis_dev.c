/*
 * dev/fis_dev.c - the fis engine's development probes (fis_dev.h), through
 * the module's private headers.
 */
#include <math.h>
#include <string.h>

#include "fis/fis_math.h"
#include "fis/fis_plan.h"
#include "fis/fis_read.h"
#include "fis_dev.h"

_Static_assert(HAZE_DEV_FIS_FN_MAXP == HAZE__FL_MAXP,
               "a Function program fills a term's parameters");

const char *haze_dev_fis_norm_name(int k) {
    return k >= 0 && k < HAZE__N_SUM ? haze__norm_names[k] : NULL;
}

double haze_dev_fis_norm(const char *name, double a, double b) {
    for (int k = 0; name && k < HAZE__N_COUNT; k++)
        if (strcmp(name, haze__norm_names[k]) == 0) return haze__norm(k, a, b);
    return NAN;
}

double haze_dev_fis_hedges(const char *words, double x) {
    /* written first = applied last: each word goes below the ones before */
    int chain = 0, n = 0;
    const char *s = words ? words : "";
    while (*s) {
        while (*s == ' ') s++;
        size_t len = strcspn(s, " ");
        if (len == 0) break;
        int h = 0;
        for (int k = 1; k <= HAZE__H_ANY; k++)
            if (strlen(haze__hedge_names[k]) == len && strncmp(s, haze__hedge_names[k], len) == 0)
                h = k;
        if (h == 0 || n == HAZE__H_MAX) return NAN;
        chain = chain << 3 | h;
        n++;
        s += len;
    }
    return haze__fl_hedges(chain, x);
}

int haze_dev_fis_fn_compile(const char *text, const char *const *names, int nnames, double *p,
                            int cap, int *maxvar, char *err, size_t errcap) {
    return haze__fn_compile(text, names, nnames, p, cap, maxvar, err, errcap);
}

double haze_dev_fis_fn_eval(const double *p, double x, const double *vars) {
    return haze__fn_eval(p, x, vars);
}

int haze_dev_fis_plain(const haze_fis *f) {
    const haze__fis_plan *plan = haze__fis_plan_get(f);
    return plan ? plan->t.plain != NULL : -1;
}

int haze_dev_fis_output_points(const haze_fis *f, int o) {
    return f && o >= 0 && o < f->no ? haze__npoints(f, o) : 0;
}

const void *haze_dev_fis_plan_cached(const haze_fis *f) {
    return f ? __atomic_load_n(&f->plan, __ATOMIC_ACQUIRE) : NULL;
}
