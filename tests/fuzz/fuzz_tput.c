/* libFuzzer harness for a throughput loader, chosen at compile time (-DFUZZ_TPUT="gavel":
 * berth_tput_load_gavel, "lucid": berth_tput_add_lucid_pairs onto the built-in catalog).
 * Each input becomes a file that is loaded. Beyond crashes, leaks and undefined behaviour it
 * checks the loaders' contract: errors use the documented codes and name the file, a bad
 * Lucid file leaves the model as it was, and a loaded model answers every query with a
 * finite rate >= 0 (pairs: a finite speed >= 0). */
#include <math.h>

#include "berth/tput.h"
#include "model/tput.h"

#ifndef FUZZ_TPUT
#error "build with -DFUZZ_TPUT=\"gavel\" or \"lucid\""
#endif

#define FUZZ_WHO "fuzz_tput (" FUZZ_TPUT ")"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char in_path[256];

static void fuzz_cleanup(void)
{
    unlink(in_path);
}

/* Every type has a name; the classes from `from` on (the first 200 of them: the loaded ones)
 * have names that find them, and sane rates and pairs (the first 40). */
static void check_model(const struct berth_tput *m, size_t from)
{
    size_t nc = berth_tput_class_count(m), nt = berth_tput_type_count(m);
    for (size_t t = 0; t < nt; t++)
        ENSURE(berth_tput_type_name(m, t), "type %zu has no name", t);
    for (size_t c = from; c < nc && c < from + 200; c++) {
        const char *name = berth_tput_class_name(m, c);
        ENSURE(name && berth__tput_class_find(m, name) == (int)c, "class %zu: name or index", c);
        for (size_t t = 0; t < nt; t++)
            for (int32_t g = 1; g <= 17; g++)
                for (int s = 0; s < 2; s++) {
                    double r = berth__tput_rate(m, (int)c, (int)t, g, s);
                    ENSURE(isfinite(r) && r >= 0, "class %zu type %zu x%d spread %d: %g", c, t, g,
                           s, r);
                }
    }
    for (size_t a = from; a < nc && a < from + 40; a++)
        for (size_t b = from; b < nc && b < from + 40; b++)
            for (int t = -1; t < (int)nt && t < 4; t++) {
                double p = berth__tput_pair(m, (int)a, (int)b, t);
                ENSURE(isfinite(p) && p >= 0, "pair %zu %zu type %d: %g", a, b, t, p);
            }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!in_path[0]) {
        fuzz_scratch(in_path, sizeof in_path, "tput");
        atexit(fuzz_cleanup);
    }
    fuzz_write_file(in_path, data, size);
    struct berth_err err = {0};
    struct berth_tput *m = NULL;
    size_t before = 0;
    int rc;
    if (!strcmp(FUZZ_TPUT, "gavel")) {
        rc = berth_tput_load_gavel(in_path, &m, &err);
        ENSURE(rc == 0 ? m != NULL : m == NULL, "rc %d with model %p", rc, (void *)m);
    } else {
        ENSURE(berth_tput_builtin(&m, &err) == 0, "built-in catalog: %s", err.msg);
        before = berth_tput_class_count(m);
        rc = berth_tput_add_lucid_pairs(m, in_path, &err);
        ENSURE(rc == 0 || rc == BERTH_ENOMEM || berth_tput_class_count(m) == before,
               "a bad file added %zu classes", berth_tput_class_count(m) - before);
    }
    if (rc) {
        ENSURE(rc == BERTH_EINPUT || rc == BERTH_EIO || rc == BERTH_ENOMEM,
               "unexpected code %d: %s", rc, err.msg);
        ENSURE(strstr(err.msg, in_path), "the message does not name the file: %s", err.msg);
    }
    if (m)
        check_model(m, before);
    berth_tput_free(m);
    return 0;
}
