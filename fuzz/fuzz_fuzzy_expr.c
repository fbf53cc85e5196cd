/*
 * fuzz/fuzz_fuzzy_expr.c - `haze fuzzy eval --batch FILE` on arbitrary
 * lines: the expression parser and evaluator of the CLI (cli/cmd_fuzzy.c)
 * over the library's fuzzy arithmetic. The first byte picks the encoding,
 * precision, number of cuts, output format and --exact; the rest is the
 * batch file. Every input must end in a result or a message, never a crash,
 * undefined behaviour or a leak.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    static const char *const enc[] = {"lu", "mr", "mi", "lu"};
    static const char *const fmt[] = {"table", "csv", "json", "table"};
    static const char *const cuts[] = {"1", "3", "4", "32"};
    const unsigned sel = data[0];
    char in[512], out[512];
    fuzz_temp_name(in, sizeof in, "in-", "");
    fuzz_temp_name(out, sizeof out, "out-", "");
    const int fi = fuzz_temp_file(in, "", data + 1, size - 1), fo = mkstemp(out);
    if (fo >= 0) close(fo);
    if (fi == 0 && fo >= 0) {
        char *argv[16];
        int argc = 0;
        argv[argc++] = "fuzzy";
        argv[argc++] = "--batch";
        argv[argc++] = in;
        argv[argc++] = "-o";
        argv[argc++] = out;
        argv[argc++] = "--encoding";
        argv[argc++] = (char *)enc[sel & 3];
        argv[argc++] = "--precision";
        argv[argc++] = sel & 4 ? "single" : "double";
        argv[argc++] = "--cuts";
        argv[argc++] = (char *)cuts[(sel >> 3) & 3];
        argv[argc++] = "--format";
        argv[argc++] = (char *)fmt[(sel >> 5) & 3];
        if (sel & 0x80) argv[argc++] = "--exact";
        argv[argc++] = "eval";
        argv[argc] = NULL;
        cli_global g = {HAZE_BACKEND_CPU, 1, 1, "haze", 0, 0, 0, {0}};
        cmd_fuzzy(argc, argv, &g);
    }
    if (fi == 0) unlink(in);
    if (fo >= 0) unlink(out);
    return 0;
}
