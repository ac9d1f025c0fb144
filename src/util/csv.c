/* Streaming CSV reader (see csv.h).
 *
 * The file is read in 1 MiB blocks into a buffer. A record is parsed in place once a
 * complete one is in the buffer: separators become NULs and quoted fields are unescaped
 * where they stand. A record that crosses the end of the buffer is moved to the front and
 * the buffer refilled (grown if one record is larger than the whole buffer). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/csv.h"
#include "util/mem.h"

#define BLOCK (1u << 20)

struct berth__csv {
    FILE *f;
    char *path;
    char sep;
    char *buf;
    size_t cap, len, pos; /* buffer holds [pos, len) unread */
    int eof;
    uint32_t line;     /* line of the next unread byte */
    uint32_t rec_line; /* line where the current record starts */
    char **fields;
    size_t *lens;
    size_t nf, fcap;
    berth_progress_fn progress; /* told the bytes read at each refill */
    void *progress_ctx;
    double size, done;
};

int berth__csv_open(struct berth__csv **out, const char *path, char sep, struct berth_err *err)
{
    struct berth__csv *r = calloc(1, sizeof *r);
    if (!r)
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    r->f = fopen(path, "rb");
    if (!r->f) {
        int e = errno;
        free(r);
        return berth_err_set(err, BERTH_EIO, "%s: cannot open: %s", path, strerror(e));
    }
    r->path = strdup(path);
    r->cap = BLOCK + 1;
    r->buf = malloc(r->cap);
    if (!r->path || !r->buf) {
        berth__csv_close(r);
        return berth_err_set(err, BERTH_ENOMEM, "%s: out of memory", path);
    }
    r->sep = sep;
    r->line = 1;
    *out = r;
    return 0;
}

void berth__csv_close(struct berth__csv *r)
{
    if (!r)
        return;
    if (r->f)
        fclose(r->f);
    free(r->path);
    free(r->buf);
    free(r->fields);
    free(r->lens);
    free(r);
}

/* Moves unread bytes to the front and reads more; returns bytes added, -1 on error. */
static long refill(struct berth__csv *r, struct berth_err *err)
{
    if (r->eof)
        return 0;
    if (r->pos) {
        memmove(r->buf, r->buf + r->pos, r->len - r->pos);
        r->len -= r->pos;
        r->pos = 0;
    }
    if (r->cap - 1 - r->len < BLOCK / 2) {
        size_t ncap = r->cap * 2;
        char *nb = realloc(r->buf, ncap);
        if (!nb)
            return berth_err_set(err, BERTH_ENOMEM, "%s:%u: out of memory", r->path, r->line);
        r->buf = nb;
        r->cap = ncap;
    }
    size_t n = fread(r->buf + r->len, 1, r->cap - 1 - r->len, r->f);
    if (n == 0) {
        if (ferror(r->f))
            return berth_err_set(err, BERTH_EIO, "%s:%u: read error", r->path, r->line);
        r->eof = 1;
    }
    r->len += n;
    r->done += (double)n;
    if (r->progress)
        r->progress(r->progress_ctx, r->done, r->size > r->done ? r->size : r->done, "bytes");
    return (long)n;
}

void berth__csv_progress(struct berth__csv *r, berth_progress_fn fn, void *ctx)
{
    struct stat st;
    r->progress = fn;
    r->progress_ctx = ctx;
    r->size = fn && !fstat(fileno(r->f), &st) ? (double)st.st_size : 0;
}

static int add_field(struct berth__csv *r, char *start, size_t len, int check_nul,
                     struct berth_err *err)
{
    if (check_nul && memchr(start, '\0', len))
        return berth_err_set(err, BERTH_EINPUT,
                             "%s:%u: field %zu: expected text, found a NUL byte (is this a "
                             "binary or UTF-16 file?)",
                             r->path, r->rec_line, r->nf + 1);
    if (r->nf == r->fcap) {
        size_t c1 = r->fcap, c2 = r->fcap;
        if (BERTH_GROW(r->fields, c1, r->nf + 1) || BERTH_GROW(r->lens, c2, r->nf + 1))
            return berth_err_set(err, BERTH_ENOMEM, "%s:%u: out of memory", r->path, r->rec_line);
        r->fcap = c1 < c2 ? c1 : c2;
    }
    start[len] = '\0';
    r->fields[r->nf] = start;
    r->lens[r->nf] = len;
    r->nf++;
    return 0;
}

/* Finds where the record starting at r->pos ends: the index of its terminating newline, or
 * r->len at the end of the file. Returns 0 when the buffer ends first and more may come. */
static int find_end(const struct berth__csv *r, size_t *rec_end)
{
    /* the common case: no quote before the next newline, which then ends the record */
    const char *nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
    if (nl && !memchr(r->buf + r->pos, '"', (size_t)(nl - (r->buf + r->pos)))) {
        *rec_end = (size_t)(nl - r->buf);
        return 1;
    }
    /* A field is quoted only when it starts with '"'; elsewhere a quote is a plain byte. */
    enum { START, UNQUOTED, QUOTED, QUOTE_SEEN } st = START;
    for (size_t i = r->pos; i < r->len; i++) {
        char c = r->buf[i];
        switch (st) {
        case START:
        case UNQUOTED:
            if (c == '\n') {
                *rec_end = i;
                return 1;
            }
            st = c == r->sep ? START : (st == START && c == '"') ? QUOTED : UNQUOTED;
            break;
        case QUOTED:
            if (c == '"')
                st = QUOTE_SEEN;
            break;
        case QUOTE_SEEN: /* '""' is an escaped quote; anything else ends the quoted part */
            if (c == '\n') {
                *rec_end = i;
                return 1;
            }
            st = c == '"' ? QUOTED : c == r->sep ? START : UNQUOTED;
            break;
        }
    }
    if (!r->eof)
        return 0;
    *rec_end = r->len;
    return 1;
}

/* Parses the complete record [r->pos, rec_end) in place. */
static int parse_record(struct berth__csv *r, size_t rec_end, struct berth_err *err)
{
    char *p = r->buf + r->pos, *end = r->buf + rec_end;
    uint32_t lines = 0;
    r->nf = 0;
    /* NULs are looked for field by field (to name the field) only if the record has one */
    int nul = memchr(p, '\0', (size_t)(end - p)) != NULL;
    for (;;) {
        char *fstart = p;
        size_t flen;
        if (p < end && *p == '"') {
            char *w = p; /* unescape in place */
            p++;
            for (;;) {
                if (p >= end)
                    return berth_err_set(err, BERTH_EINPUT,
                                         "%s:%u: field %zu: expected a closing '\"', found the "
                                         "end of the file",
                                         r->path, r->rec_line, r->nf + 1);
                if (*p == '"') {
                    if (p + 1 < end && p[1] == '"') {
                        *w++ = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                if (*p == '\n')
                    lines++;
                *w++ = *p++;
            }
            flen = (size_t)(w - fstart);
            if (p < end && *p == '\r' && p + 1 == end)
                p++;
            if (p < end && *p != r->sep)
                return berth_err_set(err, BERTH_EINPUT,
                                     "%s:%u: field %zu: expected a separator after a quoted "
                                     "field, found '%c'",
                                     r->path, r->rec_line, r->nf + 1, *p);
        } else {
            char *s = memchr(p, r->sep, (size_t)(end - p));
            p = s ? s : end;
            flen = (size_t)(p - fstart);
            if (p == end && flen && fstart[flen - 1] == '\r')
                flen--;
        }
        int more = p < end; /* stopped on a separator */
        int rc = add_field(r, fstart, flen, nul, err);
        if (rc)
            return rc;
        if (more) {
            p++;
            continue;
        }
        break;
    }
    r->pos = rec_end < r->len ? rec_end + 1 : rec_end;
    r->line += lines + 1;
    return 1;
}

int berth__csv_next(struct berth__csv *r, struct berth_err *err)
{
    for (;;) {
        /* skip blank lines */
        while (r->pos < r->len && (r->buf[r->pos] == '\n' || r->buf[r->pos] == '\r')) {
            if (r->buf[r->pos] == '\n')
                r->line++;
            r->pos++;
        }
        size_t rec_end;
        if (r->pos < r->len && find_end(r, &rec_end)) {
            r->rec_line = r->line;
            return parse_record(r, rec_end, err);
        }
        if (r->eof)
            return 0;
        long n = refill(r, err);
        if (n < 0)
            return (int)n;
    }
}

size_t berth__csv_nfields(const struct berth__csv *r)
{
    return r->nf;
}

const char *berth__csv_field(const struct berth__csv *r, size_t i)
{
    return r->fields[i];
}

size_t berth__csv_len(const struct berth__csv *r, size_t i)
{
    return r->lens[i];
}

uint32_t berth__csv_line(const struct berth__csv *r)
{
    return r->rec_line;
}

const char *berth__csv_path(const struct berth__csv *r)
{
    return r->path;
}

void berth__csv_put(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}
