/* What the fuzz harnesses share: ENSURE (a broken contract: say what, remove the scratch
 * files, abort so that libFuzzer keeps the input), scratch files and writing an input out.
 * The includer defines FUZZ_WHO (its name in messages) before including this, and the
 * function fuzz_cleanup() (removes its scratch files) after. */
#ifndef BERTH_FUZZ_UTIL_H
#define BERTH_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void fuzz_cleanup(void);

#define ENSURE(c, ...)                                                                             \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s: %s: ", FUZZ_WHO, #c);                                             \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            fuzz_cleanup(); /* abort() skips atexit; libFuzzer keeps its own copy */               \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* Makes path (cap bytes) a fresh empty file berth-fuzz-NAME-XXXXXX in $FUZZ_TMPDIR, /dev/shm
 * or /tmp. Aborts when it cannot, or when the path holds a comma (pai2020 joins two). */
static inline void fuzz_scratch(char *path, size_t cap, const char *name)
{
    const char *dir = getenv("FUZZ_TMPDIR");
    if (!dir || !*dir)
        dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, cap, "%s/berth-fuzz-%s-XXXXXX", dir, name);
    int fd = mkstemp(path);
    if (fd < 0 || strchr(path, ',')) {
        perror(path);
        abort();
    }
    close(fd);
}

static inline void fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    ENSURE(f, "cannot open %s", path);
    ENSURE(fwrite(data, 1, size, f) == size && fclose(f) == 0, "cannot write %s", path);
}

#endif
