/* The unique-server-name check that the CSV cluster formats (openb node lists, the PAI
 * machine spec) share; see io/cluster_int.h. */
#include "io/cluster_int.h"

int berth__cluster_unique_csv_names(const struct berth__cluster_builder *b, size_t from,
                                    const char *path, const char *column, const char *what,
                                    struct berth_err *err)
{
    size_t a, d;
    int found = berth__builder_find_duplicate(b, from, &a, &d);
    if (found < 0)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    if (!found)
        return 0;
    return berth_err_set(err, BERTH_EINPUT,
                         "%s:%zu: column %s: expected %s, found \"%.60s\", already on line %zu",
                         path, b->p[d].src, column, what, b->p[d].name, b->p[a].src);
}
