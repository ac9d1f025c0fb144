/* The cluster shorthand NxG:type[,NxG:type...] (GPU memory and the topology's racks=, blocks=,
 * nvl= parts too) read into a builder. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "model/cluster.h"
#include "util/num.h"

int berth__cluster_type_name_ok(const char *s, size_t n)
{
    if (!n || n > 31)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-' && s[i] != '.')
            return 0;
    return 1;
}

/* One racks=R, blocks=B or nvl=N part of a shorthand (each at most once). */
static int shape_option(const char *spec, int part, const char *p, size_t len,
                        struct berth__cluster_builder *b, struct berth_err *err)
{
    const char *eq = memchr(p, '=', len);
    size_t klen = (size_t)(eq - p);
    int64_t v = 0;
    char ex[80];
    int32_t *at = klen == 5 && !memcmp(p, "racks", 5)    ? &b->racks
                  : klen == 6 && !memcmp(p, "blocks", 6) ? &b->blocks
                  : klen == 3 && !memcmp(p, "nvl", 3)    ? &b->nvl
                                                         : NULL;
    if (!at)
        return berth_err_set(err, BERTH_EINPUT,
                             "--cluster '%s': part %d: expected racks=R, blocks=B or nvl=N (the "
                             "topology), found %s",
                             spec, part, berth__excerpt(ex, sizeof ex, p, len));
    if (berth__parse_i64(eq + 1, len - klen - 1, &v) || v < 1 || v > 1000000)
        return berth_err_set(err, BERTH_EINPUT,
                             "--cluster '%s': part %d: expected %.*s= a whole number from 1 to "
                             "1000000, found %s",
                             spec, part, (int)klen, p, berth__excerpt(ex, sizeof ex, p, len));
    if (*at)
        return berth_err_set(err, BERTH_EINPUT, "--cluster '%s': part %d: %.*s= given twice", spec,
                             part, (int)klen, p);
    *at = (int32_t)v;
    return 0;
}

/* A GPU's memory in a shorthand part: "16g" (GiB), "16384m" or "16384" (MiB); 0 when bad. */
static int64_t parse_mem(const char *p, size_t len)
{
    int64_t v = 0, mul = 1;
    if (len && (p[len - 1] == 'g' || p[len - 1] == 'G'))
        mul = 1024, len--;
    else if (len && (p[len - 1] == 'm' || p[len - 1] == 'M'))
        len--;
    if (!len || berth__parse_i64(p, len, &v) || v < 1 || v > (INT64_C(1) << 34) / mul)
        return 0;
    return v * mul;
}

/* "16x4:v100,8x8:a100", a part's GPUs optionally with their memory: "1x4:v100:16g" */
int berth__cluster_parse_shorthand(const char *spec, struct berth__cluster_builder *b,
                                   struct berth_err *err)
{
    const char *p = spec;
    int part = 0;
    if (!*spec)
        return berth_err_set(err, BERTH_EINPUT,
                             "--cluster: expected NxG:type[,NxG:type...] or a cluster file, "
                             "found an empty string");
    for (;;) {
        part++;
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (memchr(p, '=', len)) { /* racks=R, blocks=B, nvl=N: the topology's shape */
            int rc = shape_option(spec, part, p, len, b, err);
            if (rc)
                return rc;
            if (!comma)
                break;
            p = comma + 1;
            continue;
        }
        const char *x = memchr(p, 'x', len), *colon = memchr(p, ':', len);
        char ex[80];
        int64_t n = 0, g = 0, mem = 0;
        /* the type runs to the part's end or to a second colon (the GPUs' memory) */
        const char *mc = colon ? memchr(colon + 1, ':', len - (size_t)(colon + 1 - p)) : NULL;
        size_t tlen = colon ? (size_t)((mc ? mc : p + len) - (colon + 1)) : 0;
        if (!x || !colon || colon < x || berth__parse_i64(p, (size_t)(x - p), &n) ||
            berth__parse_i64(x + 1, (size_t)(colon - x - 1), &g) ||
            !berth__cluster_type_name_ok(colon + 1, tlen))
            return berth_err_set(err, BERTH_EINPUT,
                                 "--cluster '%s': part %d: expected NxG:type or NxG:type:MEM "
                                 "(for example 16x4:v100 or 1x4:v100:16g), a cluster file or a "
                                 "built-in name (philly, gavel, tiresias), found %s",
                                 spec, part, berth__excerpt(ex, sizeof ex, p, len));
        if (mc && !(mem = parse_mem(mc + 1, len - (size_t)(mc + 1 - p))))
            return berth_err_set(err, BERTH_EINPUT,
                                 "--cluster '%s': part %d: expected the GPUs' memory as 16g "
                                 "(GiB) or 16384m (MiB) after the type, found %s",
                                 spec, part,
                                 berth__excerpt(ex, sizeof ex, mc + 1, len - (size_t)(mc + 1 - p)));
        if (n < 1 || n > 1000000)
            return berth_err_set(err, BERTH_EINPUT,
                                 "--cluster '%s': part %d: expected 1 to 1000000 servers, "
                                 "found %lld",
                                 spec, part, (long long)n);
        if (g < 1 || g > BERTH_MAX_SERVER_GPUS)
            return berth_err_set(err, BERTH_EINPUT,
                                 "--cluster '%s': part %d: expected 1 to %d GPUs per server, "
                                 "found %lld",
                                 spec, part, BERTH_MAX_SERVER_GPUS, (long long)g);
        char tb[32];
        snprintf(tb, sizeof tb, "%.*s", (int)tlen, colon + 1);
        const char *type = berth__builder_str(b, tb, 1);
        if (!type)
            return berth_err_set(err, BERTH_ENOMEM, "--cluster: out of memory");
        if (b->n + (size_t)n > 1000000)
            return berth_err_set(err, BERTH_EINPUT,
                                 "--cluster '%.60s': expected at most 1000000 servers in all, "
                                 "found more by part %d",
                                 spec, part);
        for (int64_t i = 0; i < n; i++)
            if (berth__builder_add(b, &(struct berth__server_spec){
                                          .type = type, .gpus = (int32_t)g, .gpu_mem_mib = mem}))
                return berth_err_set(err, BERTH_ENOMEM, "--cluster: out of memory");
        if (!comma)
            break;
        p = comma + 1;
    }
    if (b->n > 1000000)
        return berth_err_set(err, BERTH_EINPUT,
                             "--cluster '%s': expected at most 1000000 servers, found %zu", spec,
                             b->n);
    if (!b->n)
        return berth_err_set(err, BERTH_EINPUT,
                             "--cluster '%s': expected at least one NxG:type part beside the "
                             "topology's racks=, blocks=, nvl=",
                             spec);
    return b->racks || b->blocks || b->nvl ? berth__builder_shape(b, "--cluster", err) : 0;
}
