/* Parsing a policy's KEY=VALUE settings against its table (settings.h). */
#include <stdio.h>
#include <string.h>

#include "sched/settings.h"
#include "util/num.h"

static void keys_of(const struct berth__setting *t, size_t n, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%s%s", i ? ", " : "", t[i].key);
    if (!n)
        snprintf(buf, len, "it has none");
}

static int bad_value(const char *policy, const struct berth__setting *t, const char *v, size_t len,
                     const char *what, struct berth_err *err)
{
    char ex[96];
    return berth_err_set(err, BERTH_EINPUT, "policy %s: setting %s: expected %s, found %s", policy,
                         t->key, what, berth__excerpt(ex, sizeof ex, v, len));
}

/* Parses one value into the scratch copy of the settings at base. */
static int parse_value(const char *policy, const struct berth__setting *t, const char *v,
                       size_t len, char *base, struct berth_err *err)
{
    char what[160];
    switch (t->kind) {
    case BERTH_SET_SECONDS: {
        int64_t us;
        snprintf(what, sizeof what, "seconds from %g to %g", t->min, t->max);
        if (berth__parse_seconds_us(v, len, &us) || (double)us < t->min * 1e6 ||
            (double)us > t->max * 1e6)
            return bad_value(policy, t, v, len, what, err);
        memcpy(base + t->offset, &us, sizeof us);
        return 0;
    }
    case BERTH_SET_DOUBLE: {
        double d;
        snprintf(what, sizeof what, "a number from %g to %g", t->min, t->max);
        if (berth__parse_double(v, len, &d) || d < t->min || d > t->max)
            return bad_value(policy, t, v, len, what, err);
        memcpy(base + t->offset, &d, sizeof d);
        return 0;
    }
    case BERTH_SET_PERMILLE: {
        int64_t m, exact;
        snprintf(what, sizeof what, "a percentage from %g to %g (one decimal at most)", t->min,
                 t->max);
        if (berth__parse_scaled(v, len, 1, &m) || berth__parse_scaled(v, len, 6, &exact) ||
            exact != m * 100000 || (double)m < t->min * 10 || (double)m > t->max * 10)
            return bad_value(policy, t, v, len, what, err);
        int32_t m32 = (int32_t)m;
        memcpy(base + t->offset, &m32, sizeof m32);
        return 0;
    }
    case BERTH_SET_BOOL: {
        static const char *const words[] = {"0", "off", "no", "false", "1", "on", "yes", "true"};
        for (int w = 0; w < 8; w++)
            if (strlen(words[w]) == len && !strncmp(words[w], v, len)) {
                int on = w >= 4;
                memcpy(base + t->offset, &on, sizeof on);
                return 0;
            }
        return bad_value(policy, t, v, len, "0/1, off/on, no/yes or false/true", err);
    }
    case BERTH_SET_SECONDS_LIST: {
        struct berth__us_list l = {{0}, 0};
        snprintf(what, sizeof what,
                 "up to %d increasing numbers of seconds from %g to %g, separated by ':'",
                 BERTH_US_LIST_MAX, t->min, t->max);
        for (size_t i = 0; i <= len;) {
            size_t j = i;
            while (j < len && v[j] != ':')
                j++;
            int64_t us;
            if (l.n == BERTH_US_LIST_MAX || berth__parse_seconds_us(v + i, j - i, &us) ||
                (double)us < t->min * 1e6 || (double)us > t->max * 1e6 ||
                (l.n && us <= l.v[l.n - 1]))
                return bad_value(policy, t, v, len, what, err);
            l.v[l.n++] = us;
            i = j + 1;
        }
        memcpy(base + t->offset, &l, sizeof l);
        return 0;
    }
    }
    return berth_err_set(err, BERTH_EINTERNAL, "policy %s: setting %s of an unknown kind", policy,
                         t->key);
}

/* The bytes a setting of kind k takes in the settings struct. */
static size_t value_size(int k)
{
    switch (k) {
    case BERTH_SET_SECONDS:
        return sizeof(berth_us);
    case BERTH_SET_DOUBLE:
        return sizeof(double);
    case BERTH_SET_PERMILLE:
        return sizeof(int32_t);
    case BERTH_SET_BOOL:
        return sizeof(int);
    default:
        return sizeof(struct berth__us_list);
    }
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

int berth__settings_parse(const char *policy, const char *s, const struct berth__setting *t,
                          size_t n, void *dst, struct berth_err *err)
{
    if (!s || !*s)
        return 0;
    char scratch[512]; /* every policy's settings struct is small; parse into a copy */
    size_t size = 0;
    for (size_t i = 0; i < n; i++) {
        size_t end = t[i].offset + value_size(t[i].kind);
        size = end > size ? end : size;
    }
    if (size > sizeof scratch)
        return berth_err_set(err, BERTH_EINTERNAL, "policy %s: settings struct too large", policy);
    if (size)
        memcpy(scratch, dst, size);
    uint64_t seen = 0;
    char keys[256];
    for (const char *p = s; *p;) {
        const char *e = p;
        while (*e && *e != ',')
            e++;
        const char *a = p, *b = e;
        while (a < b && is_blank(*a))
            a++;
        while (b > a && is_blank(b[-1]))
            b--;
        const char *eq = memchr(a, '=', (size_t)(b - a));
        char ex[96];
        if (!eq || eq == a)
            return berth_err_set(err, BERTH_EINPUT,
                                 "policy %s: settings: expected KEY=VALUE, found %s", policy,
                                 berth__excerpt(ex, sizeof ex, a, (size_t)(b - a)));
        const char *ke = eq;
        while (ke > a && is_blank(ke[-1]))
            ke--;
        size_t k;
        for (k = 0; k < n; k++)
            if (strlen(t[k].key) == (size_t)(ke - a) && !memcmp(t[k].key, a, (size_t)(ke - a)))
                break;
        if (k == n) {
            keys_of(t, n, keys, sizeof keys);
            return berth_err_set(err, BERTH_EINPUT,
                                 "policy %s: unknown setting %s (its settings: %s)", policy,
                                 berth__excerpt(ex, sizeof ex, a, (size_t)(ke - a)), keys);
        }
        if (k < 64 && (seen >> k & 1))
            return berth_err_set(err, BERTH_EINPUT, "policy %s: setting %s given twice", policy,
                                 t[k].key);
        seen |= k < 64 ? UINT64_C(1) << k : 0;
        const char *v = eq + 1;
        while (v < b && is_blank(*v))
            v++;
        int rc = parse_value(policy, &t[k], v, (size_t)(b - v), scratch, err);
        if (rc)
            return rc;
        p = *e ? e + 1 : e;
    }
    if (size)
        memcpy(dst, scratch, size);
    return 0;
}
