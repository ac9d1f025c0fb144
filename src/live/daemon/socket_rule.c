/* Who may use berthd's Unix socket (see socket_rule.h). */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/daemon/socket_rule.h"
#include "live/exec/ident.h"
#include "util/mem.h"

#define MAX_GROUPS 1024 /* an account's groups looked at */

struct berth__socket_rule {
    int listed; /* --socket-users given */
    uid_t *uids;
    size_t nuids, ucap;
    gid_t *gids;
    size_t ngids, gcap;
    int requires_token;
};

void berth__socket_rule_free(struct berth__socket_rule *r)
{
    if (!r)
        return;
    free(r->uids);
    free(r->gids);
    free(r);
}

static int add_group(struct berth__socket_rule *r, const char *name, struct berth_err *err)
{
    struct group g, *res = NULL;
    char buf[16384];
    if (getgrnam_r(name, &g, buf, sizeof buf, &res) || !res)
        return berth_err_set(err, BERTH_EINPUT, "--socket-users: @%.64s: no such group", name);
    if (BERTH_GROW(r->gids, r->gcap, r->ngids + 1))
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    r->gids[r->ngids++] = res->gr_gid;
    return 0;
}

static int add_user(struct berth__socket_rule *r, const char *name, struct berth_err *err)
{
    struct berth__account a;
    struct berth_err e = {0};
    if (berth__account_by_name(name, &a, &e))
        return berth_err_set(err, BERTH_EINPUT, "--socket-users: %s", e.msg);
    if (BERTH_GROW(r->uids, r->ucap, r->nuids + 1))
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    r->uids[r->nuids++] = a.uid;
    return 0;
}

int berth__socket_rule_parse(const char *users, int requires_token, struct berth__socket_rule **out,
                             struct berth_err *err)
{
    *out = NULL;
    if (!users && !requires_token)
        return 0;
    struct berth__socket_rule *r = calloc(1, sizeof *r);
    if (!r)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    r->requires_token = requires_token;
    r->listed = users != NULL;
    int rc = 0;
    for (const char *p = users; !rc && p && *p;) {
        size_t n = strcspn(p, ", \t");
        char name[256];
        if (n == 0 || n >= sizeof name || (p[0] == '@' && n == 1)) {
            rc = berth_err_set(err, BERTH_EINPUT,
                               "--socket-users: expected account names and @groups separated by "
                               "',', found '%.200s'",
                               users);
            break;
        }
        snprintf(name, sizeof name, "%.*s", (int)n, p);
        rc = name[0] == '@' ? add_group(r, name + 1, err) : add_user(r, name, err);
        p += n;
        p += strspn(p, ", \t");
    }
    if (!rc && users && !r->nuids && !r->ngids)
        rc = berth_err_set(err, BERTH_EINPUT,
                           "--socket-users: expected account names and @groups separated by ','");
    if (rc) {
        berth__socket_rule_free(r);
        return rc;
    }
    *out = r;
    return 0;
}

/* 1 when the account of who is in a listed group (its primary group or another). */
static int in_groups(const struct berth__socket_rule *r, const struct berth__caller *who)
{
    if (!r->ngids)
        return 0;
    gid_t groups[MAX_GROUPS];
    struct berth__account a = {.uid = who->uid, .gid = who->gid};
    snprintf(a.name, sizeof a.name, "%s", who->user);
    int n = berth__account_groups(&a, groups, MAX_GROUPS);
    if (n < 0) { /* more groups than we look at: the primary one only */
        groups[0] = who->gid;
        n = 1;
    }
    for (int i = 0; i < n; i++)
        for (size_t k = 0; k < r->ngids; k++)
            if (groups[i] == r->gids[k])
                return 1;
    return 0;
}

int berth__socket_rule_check(const struct berth__socket_rule *r, const struct berth__caller *who,
                             int has_token, uid_t self, char *why, size_t len)
{
    if (!r || who->uid == 0 || who->uid == self)
        return 0;
    if (r->listed && !who->admin) {
        int listed = 0;
        for (size_t i = 0; i < r->nuids && !listed; i++)
            listed = r->uids[i] == who->uid;
        if (!listed && !in_groups(r, who)) {
            snprintf(why, len,
                     "caller: account '%s' may not use berthd's Unix socket: it is not in "
                     "--socket-users (the accounts and @groups listed there, root, berthd's own "
                     "account and the token file's admins may)",
                     who->user);
            return -1;
        }
    }
    if (r->requires_token && !has_token) {
        snprintf(why, len,
                 "caller: account '%s' may not use berthd's Unix socket: with "
                 "--socket-requires-token only accounts a line of the token file names may, and "
                 "none names it (its token was removed, or it never had one)",
                 who->user);
        return -1;
    }
    return 0;
}
