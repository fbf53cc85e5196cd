/*
 * fuzz/fuzz_fnn_model.c - the SONFIN model file reader on arbitrary bytes.
 * The reader takes a path, so the input is written to a temporary file. A
 * model that loads is queried and predicts one row of zeros (and classifies
 * it when it is a classifier); nothing may crash, leak or read out of
 * bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_util.h"
#include "haze/haze.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    haze_ctx *ctx = fuzz_ctx();
    char path[512];
    fuzz_temp_name(path, sizeof path, "", ".model");
    if (fuzz_temp_file(path, ".model", data, size)) return 0;
    haze_fnn *net = NULL;
    int st = haze_fnn_load(ctx, path, &net);
    unlink(path);
    if (st != HAZE_OK) {
        if (net) abort(); /* a failed load returns nothing */
        return 0;
    }
    size_t D = haze_fnn_input_count(net), L = haze_fnn_output_count(net),
           R = haze_fnn_rule_count(net);
    if (!net || D == 0 || L == 0) abort();
    for (size_t j = 0; j < D; j++) haze_fnn_input_name(net, j);
    for (size_t l = 0; l < L; l++)
        if (haze_fnn_is_classifier(net) && !haze_fnn_class_name(net, l)) abort();
    haze_fnn_target_name(net);
    /* without rules the outputs are not backed by the file: y only then */
    double *x = calloc(D, sizeof *x), *y = malloc((R ? L : 1) * sizeof *y);
    if (x && y) {
        st = haze_fnn_predict(ctx, net, x, 1, y);
        if ((st == HAZE_OK) != (R > 0)) abort(); /* only a network without rules fails */
        int label = -1;
        st = haze_fnn_classify(ctx, net, x, 1, &label);
        if (st == HAZE_OK && (R == 0 || label < 0 || (size_t)label >= L)) abort();
    }
    free(x);
    free(y);
    haze_fnn_free(net);
    return 0;
}
