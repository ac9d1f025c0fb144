/* One way to read a JSON input file, and JSON text that is whole or nothing (see
 * json_load.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/json_load.h"
#include "util/mem.h"

int berth__json_load(const char *path, json_t **out, struct berth_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return berth_err_set(err, BERTH_EIO, "%s: cannot open: %s", path, strerror(errno));
    unsigned char bom[3];
    size_t n = fread(bom, 1, 3, f);
    if (n < 3 || bom[0] != 0xEF || bom[1] != 0xBB || bom[2] != 0xBF)
        rewind(f);
    json_error_t je;
    json_t *root = json_loadf(f, JSON_REJECT_DUPLICATES, &je);
    fclose(f);
    if (!root)
        return berth_err_set(err, BERTH_EINPUT, "%s:%d:%d: invalid JSON: %s", path, je.line,
                             je.column, je.text);
    *out = root;
    return 0;
}

struct dump_buf {
    char *p;
    size_t n, cap;
    int failed; /* sticky: jansson goes on after a failed write of a key */
};

static int dump_append(const char *s, size_t n, void *ctx)
{
    struct dump_buf *b = ctx;
    if (b->failed || BERTH_GROW(b->p, b->cap, b->n + n + 1)) {
        b->failed = 1;
        return -1;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
    return 0;
}

char *berth__json_dumps(const json_t *j, size_t flags)
{
    struct dump_buf b = {NULL, 0, 0, 0};
    if (json_dump_callback(j, dump_append, &b, flags) || b.failed || !b.p) {
        free(b.p);
        return NULL;
    }
    return b.p;
}
