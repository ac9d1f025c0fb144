/* One way to read a JSON input file (see json_load.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "io/json_load.h"

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
