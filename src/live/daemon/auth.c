/* The token file and token checks (see auth.h). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "live/daemon/auth.h"
#include "util/mem.h"
#include "util/name.h"

struct tok {
    char *token;
    struct berth__account acct;
    int admin;
};

struct berth__auth {
    struct tok *t;
    size_t n, cap;
    struct berth__auth_opts o;
    struct berth__account self;
};

void berth__auth_free(struct berth__auth *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n; i++)
        free(a->t[i].token);
    free(a->t);
    free(a);
}

size_t berth__auth_count(const struct berth__auth *a)
{
    return a->n;
}

/* The USER of a line: an account, and berthd's own in single-user mode. */
static int line_account(struct berth__auth *a, const char *user, const char *path, unsigned no,
                        struct berth__account *acct, struct berth_err *err)
{
    struct berth_err e = {0};
    uint32_t cp = 0;
    size_t at = 0;
    int bad = berth__name_check(user, &cp, &at);
    if (bad) { /* a look-alike account would pass for another in every table */
        char why[BERTH_ERR_MSG_MAX];
        return berth_err_set(err, BERTH_EINPUT, "%s:%u: %s", path, no,
                             berth__name_why(why, sizeof why, "user", bad, cp, at));
    }
    if (!a->o.multi_user) {
        if (strcmp(user, a->self.name))
            return berth_err_set(
                err, BERTH_EINPUT,
                "%s:%u: user '%.64s': berthd runs as '%s', not root, so it can run jobs only as "
                "'%s': every token must name '%s' (or start berthd as root to run jobs as "
                "their users)",
                path, no, user, a->self.name, a->self.name, a->self.name);
        *acct = a->self;
        return 0;
    }
    if (berth__account_by_name(user, acct, &e))
        return berth_err_set(err, BERTH_EINPUT,
                             "%s:%u: user %s: jobs run as their token's account, so every USER "
                             "must be one (useradd it, or fix the line)",
                             path, no, e.msg);
    return 0;
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
    struct berth__account acct;
    int rc = line_account(a, f[1], path, no, &acct, err);
    if (rc)
        return rc;
    if (BERTH_GROW(a->t, a->cap, a->n + 1))
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    struct tok *t = &a->t[a->n];
    t->token = strdup(f[0]);
    t->acct = acct;
    t->admin = n == 3;
    if (!t->token)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    a->n++;
    return 0;
}

int berth__auth_load(const char *path, const struct berth__auth_opts *o, struct berth__auth **out,
                     struct berth_err *err)
{
    if (o->check_perms) {
        int rc = berth__secret_file_check(path, "--tokens", err);
        if (rc)
            return rc;
    }
    FILE *f = fopen(path, "r");
    if (!f)
        return berth_err_set(err, BERTH_EIO, "--tokens %s: cannot open", path);
    struct berth__auth *a = calloc(1, sizeof *a);
    char line[1024];
    unsigned no = 0;
    int rc = a ? 0 : berth_err_set(err, BERTH_ENOMEM, "out of memory");
    if (a) {
        a->o = *o;
        if (o->self)
            a->self = *o->self;
        a->o.self = &a->self;
    }
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

static void set_caller(struct berth__caller *who, const struct berth__account *acct, int admin,
                       int local)
{
    memset(who, 0, sizeof *who);
    snprintf(who->user, sizeof who->user, "%s", acct->name);
    who->uid = acct->uid;
    who->gid = acct->gid;
    who->admin = admin;
    who->local = local;
}

int berth__auth_user(const struct berth__auth *a, const char *token, struct berth__caller *who)
{
    int found = -1;
    for (size_t i = 0; i < a->n; i++) /* every token compared: the time says nothing */
        if (berth__auth_same(a->t[i].token, token) && found < 0)
            found = (int)i;
    if (found < 0)
        return -1;
    set_caller(who, &a->t[found].acct, a->t[found].admin, 0);
    return 0;
}

int berth__auth_peer(const struct berth__auth *a, uid_t uid, struct berth__caller *who)
{
    struct berth__account acct;
    if (!a->o.multi_user) {
        if (uid != a->self.uid && uid != 0)
            return -1;
        acct = a->self;
    } else if (berth__account_by_uid(uid, &acct, NULL) || !berth__name_printable(acct.name)) {
        return -1; /* no account, or one whose name would pass for another's (util/name.h) */
    }
    int admin = uid == 0;
    for (size_t i = 0; i < a->n && !admin; i++)
        admin = a->t[i].admin && a->t[i].acct.uid == acct.uid;
    set_caller(who, &acct, admin, 1);
    return 0;
}

int berth__auth_has_token(const struct berth__auth *a, uid_t uid)
{
    for (size_t i = 0; i < a->n; i++)
        if (a->t[i].acct.uid == uid)
            return 1;
    return 0;
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
