/* A downstream program: makes a CPU context, prints the version and uses the
 * inline interval functions of the headers (they call fma, from libm: a
 * package that does not hand libm on fails to link this). */
#include <stdio.h>
#include <string.h>

#include <haze/haze.h>

int main(int argc, char **argv) {
    (void)argv;
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CPU;
    haze_ctx *ctx;
    if (haze_ctx_new(&o, &ctx) != HAZE_OK) return 1;
    int ok = strcmp(haze_version(), HAZE_VERSION_STRING) == 0 &&
             haze_ctx_backend(ctx) == HAZE_BACKEND_CPU;
    /* operands from argc so that nothing is folded at compile time */
    volatile double one = (double)argc, a = 0.1 * one, b = 0.3 * one;
    haze_ivd q = haze_ivd_div(haze_ivd_make(one, 2 * one), haze_ivd_make(3 * one, 4 * one));
    double lo = haze_rd_mul(a, b), hi = haze_ru_mul(a, b);
    int iv = q.lo <= 0.25 && q.lo > 0.2 && q.hi >= 2.0 / 3.0 && q.hi < 0.67 && lo < hi &&
             lo <= a * b && a * b <= hi;
    printf("downstream: haze %s, %s; [1,2]/[3,4] = [%.17g, %.17g], %s\n", haze_version(),
           ok ? "ok" : "MISMATCH", q.lo, q.hi, iv ? "ok" : "WRONG");
    haze_ctx_free(ctx);
    return ok && iv ? 0 : 1;
}
