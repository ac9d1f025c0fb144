/* The token file and token checks (see auth.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "auth.h"
#include "util/mem.h"

struct tok {
    char *token, *user;
    int admin;
};

struct berth__auth {
    struct tok *t;
    size_t n, cap;
};

void berth__auth_free(struct berth__auth *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n; i++) {
        free(a->t[i].token);
        free(a->t[i].user);
    }
    free(a->t);
    free(a);
}

static int parse_line(struct berth__auth *a, char *line, const char *path, unsigned no,
                      struct berth_err *err)
{
    char *save = NULL, *f[4] = {0};
    int n = 0;
    for (char *w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
        if (*w == '#')
            break;
        if (n == 4)
            return berth_err_set(err, BERTH_EINPUT, "%s:%u: expected TOKEN USER [admin]", path, no);
        f[n++] = w;
    }
    if (n == 0)
        return 0;
    if (n < 2 || n > 3 || (n == 3 && strcmp(f[2], "admin")))
        return berth_err_set(err, BERTH_EINPUT, "%s:%u: expected TOKEN USER [admin]", path, no);
    if (strlen(f[0]) < 16)
        return berth_err_set(err, BERTH_EINPUT, "%s:%u: token: expected at least 16 characters",
                             path, no);
    for (size_t i = 0; i < a->n; i++)
        if (!strcmp(a->t[i].token, f[0]))
            return berth_err_set(err, BERTH_EINPUT, "%s:%u: token repeated", path, no);
    if (BERTH_GROW(a->t, a->cap, a->n + 1))
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    struct tok *t = &a->t[a->n];
    t->token = strdup(f[0]);
    t->user = strdup(f[1]);
    t->admin = n == 3;
    if (!t->token || !t->user) {
        free(t->token);
        free(t->user);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    a->n++;
    return 0;
}

int berth__auth_load(const char *path, struct berth__auth **out, struct berth_err *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return berth_err_set(err, BERTH_EIO, "--tokens %s: cannot open", path);
    struct berth__auth *a = calloc(1, sizeof *a);
    char line[1024];
    unsigned no = 0;
    int rc = a ? 0 : berth_err_set(err, BERTH_ENOMEM, "out of memory");
    while (!rc && fgets(line, sizeof line, f)) {
        no++;
        rc = parse_line(a, line, path, no, err);
    }
    fclose(f);
    if (!rc && a->n == 0)
        rc = berth_err_set(err, BERTH_EINPUT, "%s: no tokens (lines TOKEN USER [admin])", path);
    if (rc) {
        berth__auth_free(a);
        return rc;
    }
    *out = a;
    return 0;
}

int berth__auth_same(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char d = la != lb;
    for (size_t i = 0; i < la && i < lb; i++)
        d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0;
}

int berth__auth_user(const struct berth__auth *a, const char *token, struct berth__caller *who)
{
    for (size_t i = 0; i < a->n; i++)
        if (berth__auth_same(a->t[i].token, token)) {
            *who = (struct berth__caller){a->t[i].user, a->t[i].admin, 0};
            return 0;
        }
    return -1;
}

int berth__auth_new_token(char *buf, size_t len)
{
    unsigned char r[16];
    if (len < 33 || getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
        return -1;
    for (int i = 0; i < 16; i++)
        snprintf(buf + 2 * i, 3, "%02x", r[i]);
    return 0;
}
