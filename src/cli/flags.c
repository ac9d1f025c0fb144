/* The flag tables' parser and help writer (see flags.h): one way to read a command line and
 * one way to print a command's --help, for every command of berth. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "flags.h"

#define MAX_FLAGS 128 /* entries of one command, its tables together */
#define HEAD_CAP  24  /* a longer flag column head puts its description on the next line */

/* What a command takes when its tables do not list --help. */
static const struct cli_flag unlisted_help = {"help", 'h', NULL, NULL, .kind = CLI_HELP};

/* One entry and where its section's targets are. */
struct ref {
    const struct cli_flag *f;
    size_t at;
};

/* Every entry of spec's tables, then the unlisted --help unless a table has one. */
static int refs_of(const struct cli_spec *s, struct ref *r, size_t *n, struct berth_err *err)
{
    int has_help = 0;
    *n = 0;
    for (const struct cli_section *sec = s->sections; sec && sec->flags; sec++)
        for (const struct cli_flag *f = sec->flags; f->name || f->letter; f++) {
            if (*n == MAX_FLAGS - 1)
                return berth_err_set(err, BERTH_EINTERNAL, "more than %d flags", MAX_FLAGS - 1);
            has_help |= f->kind == CLI_HELP;
            r[(*n)++] = (struct ref){f, sec->at};
        }
    if (!has_help)
        r[(*n)++] = (struct ref){&unlisted_help, 0};
    return 0;
}

/* The entry a long name (len bytes, not terminated) means: itself, else the one name it is a
 * prefix of. */
static int find_long(const struct ref *r, size_t n, const char *name, size_t len, size_t *which,
                     struct berth_err *err)
{
    size_t hits = 0;
    for (size_t i = 0; len && i < n; i++)
        if (r[i].f->name && strlen(r[i].f->name) == len && !strncmp(r[i].f->name, name, len)) {
            *which = i;
            return 0;
        }
    for (size_t i = 0; len && i < n; i++)
        if (r[i].f->name && !strncmp(r[i].f->name, name, len) && !hits++)
            *which = i;
    if (hits == 1)
        return 0;
    if (!hits)
        return berth_err_set(err, BERTH_EINPUT, "unknown flag '--%.*s'", (int)len, name);
    char list[512];
    size_t o = 0, k = 0;
    for (size_t i = 0; i < n && o < sizeof list; i++)
        if (r[i].f->name && !strncmp(r[i].f->name, name, len)) {
            k++;
            o += (size_t)snprintf(list + o, sizeof list - o, "%s--%s",
                                  k == 1 ? "" : (k == hits ? " or " : ", "), r[i].f->name);
        }
    return berth_err_set(err, BERTH_EINPUT, "ambiguous flag '--%.*s': %s", (int)len, name, list);
}

int cli_flags_u64(const char *s, double lo, double hi, uint64_t *out, struct berth_err *err)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = s && isdigit((unsigned char)*s) ? strtoull(s, &end, 10) : 0;
    if (!end || *end || errno || (double)v < lo || (hi > 0 && (double)v > hi)) {
        if (hi > 0)
            return berth_err_set(err, BERTH_EINPUT,
                                 "expected a whole number from %.0f to %.0f, found '%s'", lo, hi,
                                 s ? s : "");
        return berth_err_set(err, BERTH_EINPUT, "expected a whole number >= %.0f, found '%s'", lo,
                             s ? s : "");
    }
    *out = v;
    return 0;
}

int cli_flags_seconds(const char *s, berth_us *out, struct berth_err *err)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || !*s || *end || errno || !(v > 0) || v > 1e12)
        return berth_err_set(err, BERTH_EINPUT, "expected a number of seconds > 0, found '%s'",
                             s ? s : "");
    berth_us us = (berth_us)(v * 1e6 + 0.5);
    if (us <= 0)
        return berth_err_set(err, BERTH_EINPUT, "expected at least 1 microsecond, found '%s'", s);
    *out = us;
    return 0;
}

int cli_flags_num(const char *s, double lo, double hi, double *out, struct berth_err *err)
{
    char *end;
    errno = 0;
    double v = s ? strtod(s, &end) : 0;
    if (!s || !*s || *end || errno || !isfinite(v) || v < lo || v > hi)
        return berth_err_set(err, BERTH_EINPUT, "expected a number from %g to %g, found '%s'", lo,
                             hi, s ? s : "");
    *out = v;
    return 0;
}

/* Sets one flag; label is how the message names it (--name, -x). */
static int apply(const struct cli_flag *f, char *base, const char *v, const char *label,
                 struct berth_err *err)
{
    struct berth_err e = {0};
    void *t = base + f->at;
    int rc = 0;
    switch (f->kind) {
    case CLI_CALL:
        rc = f->set(f, base, v, &e);
        break;
    case CLI_ON:
        *(int *)t = 1;
        break;
    case CLI_STR:
        *(const char **)t = v;
        break;
    case CLI_U64:
        rc = cli_flags_u64(v, f->lo, f->hi, t, &e);
        break;
    case CLI_SECS:
        rc = cli_flags_seconds(v, t, &e);
        break;
    case CLI_NUM:
        rc = cli_flags_num(v, f->lo, f->hi, t, &e);
        break;
    case CLI_HELP:
        break;
    }
    if (!rc)
        return 0;
    return berth_err_set(err, e.code == BERTH_ENOMEM ? BERTH_ENOMEM : BERTH_EINPUT, "%s: %s", label,
                         e.msg);
}

/* The flags given once so far (CLI_ONCE entries only). */
struct seen {
    const struct cli_flag *f[MAX_FLAGS];
    size_t n;
};

/* Whether this command takes flag f at all (trace stats does not take slice's --from). */
static int check_variant(const struct cli_spec *s, const struct cli_flag *f, const char *label,
                         struct berth_err *err)
{
    if (f->only && !(f->only & s->variant))
        return berth_err_set(err, BERTH_EINPUT, "%s is not a flag of this command", label);
    return 0;
}

/* Takes flag r with value v (NULL: none): 0, 1 for --help, or an error. */
static int take(const struct ref *r, void *opts, const char *v, const char *label,
                struct seen *seen, struct berth_err *err)
{
    const struct cli_flag *f = r->f;
    if (f->kind == CLI_HELP)
        return 1;
    if (f->bits & CLI_ONCE) {
        for (size_t i = 0; i < seen->n; i++)
            if (seen->f[i] == f) /* named in full: -u and --user are one flag */
                return berth_err_set(err, BERTH_EINPUT, "%s%s: given twice; it takes one value",
                                     f->name ? "--" : "", f->name ? f->name : label);
        seen->f[seen->n++] = f;
    }
    return apply(f, (char *)opts + r->at, v, label, err);
}

int cli_flags_read(const struct cli_spec *spec, int argc, char **argv, void *opts, int *nargs,
                   struct berth_err *err)
{
    struct ref r[MAX_FLAGS];
    struct seen seen = {.n = 0};
    size_t n, w = 0;
    int k = 0, rc;
    *nargs = 0;
    if ((rc = refs_of(spec, r, &n, err)))
        return rc;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i], label[80];
        int operand = a[0] != '-' || !a[1];
        if (!strcmp(a, "--") || (operand && spec->stop_at_operand)) {
            for (i += !operand; i < argc; i++) /* the rest, in order; a slot is never ahead */
                argv[1 + k++] = argv[i];
            break;
        }
        if (operand) {
            argv[1 + k++] = a;
            continue;
        }
        if (a[1] == '-') { /* --name, --name=VALUE, --name VALUE */
            const char *name = a + 2, *eq = strchr(name, '='), *v = NULL;
            size_t len = eq ? (size_t)(eq - name) : strlen(name);
            if ((rc = find_long(r, n, name, len, &w, err)))
                return rc;
            const struct cli_flag *f = r[w].f;
            snprintf(label, sizeof label, "--%s", f->name);
            if ((rc = check_variant(spec, f, label, err)))
                return rc;
            if (f->arg && eq)
                v = eq + 1;
            else if (f->arg && i + 1 < argc)
                v = argv[++i];
            else if (f->arg)
                return berth_err_set(err, BERTH_EINPUT, "%s: expected a value", label);
            else if (eq)
                return berth_err_set(err, BERTH_EINPUT, "%s: expected no value, found '%s'", label,
                                     eq + 1);
            if ((rc = take(&r[w], opts, v, label, &seen, err)))
                return rc;
            continue;
        }
        for (const char *p = a + 1; *p; p++) { /* -x, -xVALUE, -x VALUE, -xy */
            for (w = 0; w < n && r[w].f->letter != *p; w++)
                ;
            if (w == n)
                return berth_err_set(err, BERTH_EINPUT, "unknown flag '-%c'", *p);
            const struct cli_flag *f = r[w].f;
            const char *v = NULL;
            snprintf(label, sizeof label, "-%c", *p);
            if ((rc = check_variant(spec, f, label, err)))
                return rc;
            if (f->arg && p[1])
                v = p + 1;
            else if (f->arg && i + 1 < argc)
                v = argv[++i];
            else if (f->arg)
                return berth_err_set(err, BERTH_EINPUT, "%s: expected a value", label);
            if ((rc = take(&r[w], opts, v, label, &seen, err)))
                return rc;
            if (f->arg)
                break;
        }
    }
    *nargs = k;
    return 0;
}

int cli_flags_parse(const struct cli_spec *spec, int argc, char **argv, void *opts, int *nargs)
{
    struct berth_err err = {0};
    int rc = cli_flags_read(spec, argc, argv, opts, nargs, &err);
    if (rc == 0)
        return CLI_FLAGS_GO;
    if (rc == 1) {
        cli_flags_help(spec, stdout);
        return EXIT_OK;
    }
    if (rc != BERTH_EINPUT) {
        fprintf(stderr, "berth %s: %s\n", spec->cmd, err.msg);
        return EXIT_RUNTIME;
    }
    fprintf(stderr, "berth %s: %s (see berth %s --help)\n", spec->cmd, err.msg,
            spec->help_cmd ? spec->help_cmd : spec->cmd);
    return EXIT_BAD_INPUT;
}

/* ---- the help ------------------------------------------------------------------------- */

static void spaces(FILE *f, int n)
{
    fprintf(f, "%*s", n, "");
}

/* The length of the word at s: up to a space outside `...` or, with brackets set, outside
 * [...] too (a usage line's "[--sample FRAC | --count N]" is one word). */
static size_t word_len(const char *s, int brackets)
{
    size_t i = 0;
    int depth = 0, quoted = 0;
    for (; s[i] && s[i] != '\n' && (s[i] != ' ' || depth > 0 || quoted); i++)
        if (s[i] == '`')
            quoted = !quoted;
        else if (brackets && s[i] == '[')
            depth++;
        else if (brackets && s[i] == ']' && depth > 0)
            depth--;
    return i;
}

/* Writes text with the cursor at column col: its lines ('\n') start at column indent, each
 * wrapped at CLI_HELP_WIDTH. A wrapped line goes on at its own start, or after its first gap
 * of two spaces or more ("  gavel   Gavel's..." goes on under "Gavel's"); the first line at
 * column hang when hang > 0. */
static void put_text(FILE *f, const char *text, int col, int indent, int hang0, int brackets)
{
    for (const char *l = text;;) {
        size_t lead = strspn(l, " ");
        const char *p = l + lead;
        int x = col + (int)lead, hang = hang0 > 0 ? hang0 : x;
        hang0 = 0;
        spaces(f, (int)lead);
        for (const char *q = p; *q && *q != '\n'; q++)
            if (q[0] == ' ' && q[1] == ' ') {
                hang = x + (int)(q - p) + (int)strspn(q, " ");
                break;
            }
        while (*p && *p != '\n') {
            size_t gap = strspn(p, " ");
            size_t w = word_len(p + gap, brackets);
            if (gap == 1 && x + 1 + (int)w > CLI_HELP_WIDTH && x > hang) {
                fputc('\n', f);
                spaces(f, hang);
                x = hang;
            } else {
                spaces(f, (int)gap);
                x += (int)gap;
            }
            fprintf(f, "%.*s", (int)w, p + gap);
            x += (int)w;
            p += gap + w;
        }
        if (!*p)
            break;
        l = p + 1;
        col = indent;
        fputc('\n', f);
        if (*l && *l != '\n')
            spaces(f, indent);
    }
    fputc('\n', f);
}

/* A flag's head in the column: "-g, --gpus N", "    --share F" (slot: the block shows
 * letters), "--seed N". */
static int head_of(const struct cli_flag *fl, int slot, char *buf, size_t len)
{
    int letter = fl->letter && !(fl->bits & CLI_QUIET_LETTER);
    int n = 0;
    if (slot && letter)
        n = snprintf(buf, len, "-%c%s", fl->letter, fl->name ? ", " : "");
    else if (slot)
        n = snprintf(buf, len, "    ");
    else if (!fl->name)
        n = snprintf(buf, len, "-%c", fl->letter);
    if (fl->name)
        n += snprintf(buf + n, len - (size_t)n, "--%s", fl->name);
    if (fl->arg)
        n += snprintf(buf + n, len - (size_t)n, " %s", fl->arg);
    return n < (int)len ? n : (int)len - 1;
}

/* The sections from first up to the next titled one: one column. */
static void put_block(FILE *f, const struct cli_section *first, const struct cli_section *end)
{
    int slot = 0, widest = 0, listed = 0;
    char head[256];
    for (const struct cli_section *s = first; s < end; s++)
        for (const struct cli_flag *fl = s->flags; fl->name || fl->letter; fl++)
            if (fl->help) {
                listed = 1;
                slot |= fl->letter && !(fl->bits & CLI_QUIET_LETTER);
            }
    if (!listed)
        return;
    for (const struct cli_section *s = first; s < end; s++)
        for (const struct cli_flag *fl = s->flags; fl->name || fl->letter; fl++) {
            int w = fl->help ? head_of(fl, slot, head, sizeof head) : 0;
            if (w <= HEAD_CAP && w > widest)
                widest = w;
        }
    int col = 2 + (widest ? widest : HEAD_CAP) + 2;
    fputc('\n', f);
    if (first->title)
        fprintf(f, "%s\n", first->title);
    for (const struct cli_section *s = first; s < end; s++)
        for (const struct cli_flag *fl = s->flags; fl->name || fl->letter; fl++) {
            if (!fl->help)
                continue;
            int w = head_of(fl, slot, head, sizeof head);
            fprintf(f, "  %s", head);
            if (2 + w + 2 > col) {
                fputc('\n', f);
                spaces(f, col);
            } else {
                spaces(f, col - 2 - w);
            }
            put_text(f, fl->help, col, col, 0, 0);
        }
}

void cli_flags_help(const struct cli_spec *spec, FILE *f)
{
    const char *u = spec->usage;
    for (int first = 1;; first = 0) { /* each line hangs under its command words */
        size_t len = strcspn(u, "\n"), words = 0;
        for (;;) { /* "trace slice" of "trace slice IN OUT [--format F]..." */
            size_t w = strspn(u + words, "abcdefghijklmnopqrstuvwxyz");
            if (!w || words + w >= len || u[words + w] != ' ')
                break;
            words += w + 1;
        }
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)len, u);
        fprintf(f, "%s", first ? "usage: berth " : "       berth ");
        put_text(f, line, 13, 13, 13 + (int)words, 1);
        if (!u[len])
            break;
        u += len + 1;
    }
    if (spec->about) {
        fputc('\n', f);
        put_text(f, spec->about, 0, 0, 0, 0);
    }
    for (const struct cli_section *s = spec->sections; s && s->flags;) {
        const struct cli_section *end = s + 1;
        while (end->flags && !end->title)
            end++;
        put_block(f, s, end);
        s = end;
    }
    if (spec->epilogue) {
        fputc('\n', f);
        put_text(f, spec->epilogue, 0, 0, 0, 0);
    }
}
