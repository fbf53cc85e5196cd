/*
 * fuzz/fuzz_fis.c - the MATLAB .fis and fuzzylite .fll readers on arbitrary
 * text. The first byte picks the reader; a system that parses is evaluated
 * at a few points on the CPU and written back as .fis (through a temporary
 * file), which must then read back; nothing may crash, leak or read out of
 * bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fis/fis_model.h"
#include "fuzz_util.h"
#include "haze/haze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    haze_ctx *ctx = fuzz_ctx();
    char *text = fuzz_text(data, size);
    if (!text) return 0;
    haze_fis *fis = NULL;
    int st = data[0] & 1 ? haze_fis_parse_fll(ctx, text, "fuzz.fll", &fis)
                         : haze_fis_parse(ctx, text, "fuzz.fis", &fis);
    free(text);
    if (st != HAZE_OK) {
        if (fis) abort(); /* a failed parse returns nothing */
        return 0;
    }
    int ni = haze_fis_input_count(fis), no = haze_fis_output_count(fis);
    /* a .fll resolution of up to 1e6 points per output makes evaluation
     * cost points x rules: linear, as in fuzzylite, but seconds under the
     * sanitizers for a few lines of text; such an engine is evaluated at
     * the default points instead */
    double cost = 0.0;
    for (int o = 0; o < no; o++)
        cost += (double)(fis->out[o].res > 0 ? fis->out[o].res : fis->points) *
                (double)(haze_fis_rule_count(fis) + 1);
    if (cost > 1e5) haze_fis_set_points(ctx, fis, 101);
    if (ni > 0 && ni <= 64 && no > 0 && no <= 64 && haze_fis_rule_count(fis) <= 4096) {
        double in[3 * 64], out[3 * 64];
        for (int p = 0; p < 3; p++)
            for (int i = 0; i < ni; i++) {
                double lo = 0, hi = 1;
                haze_fis_var_range(ctx, fis, 0, i, &lo, &hi);
                in[p * ni + i] = lo + (hi - lo) * (0.1 + 0.4 * p);
            }
        haze_fis_eval(ctx, fis, in, 3, out, NULL);
    }
    /* a .fis file spells out every rule's code for every variable: a .fll
     * engine of a thousand inputs and as many rules (which name one each)
     * is megabytes of .fis, linear in the output but not in the input */
    char path[512];
    fuzz_temp_name(path, sizeof path, "", "");
    int fd = (double)(haze_fis_rule_count(fis) + 1) * (ni + no) > 2e5 ? -1 : mkstemp(path);
    if (fd >= 0) {
        close(fd);
        /* what the writer accepts it must write as a .fis file that reads
         * back (a system it cannot express is refused with an error) */
        if (haze_fis_save(ctx, fis, path) == HAZE_OK) {
            haze_fis *back = NULL;
            if (haze_fis_load(ctx, path, &back) != HAZE_OK) {
                fprintf(stderr, "saved .fis does not read back: %s\n", haze_ctx_errmsg(ctx));
                abort();
            }
            if (haze_fis_input_count(back) != ni || haze_fis_output_count(back) != no ||
                haze_fis_rule_count(back) != haze_fis_rule_count(fis))
                abort();
            haze_fis_free(back);
        }
        unlink(path);
    }
    haze_fis_free(fis);
    return 0;
}
