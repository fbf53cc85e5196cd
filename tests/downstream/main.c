/* A downstream program: makes a CPU context and prints the version. */
#include <stdio.h>
#include <string.h>

#include <haze/haze.h>

int main(void) {
    haze_ctx_options o = haze_ctx_options_default();
    o.backend = HAZE_BACKEND_CPU;
    haze_ctx *ctx;
    if (haze_ctx_new(&ctx, &o) != HAZE_OK) return 1;
    int ok = strcmp(haze_version(), HAZE_VERSION_STRING) == 0 &&
             haze_ctx_backend(ctx) == HAZE_BACKEND_CPU;
    printf("downstream: haze %s, %s\n", haze_version(), ok ? "ok" : "MISMATCH");
    haze_ctx_free(ctx);
    return ok ? 0 : 1;
}
