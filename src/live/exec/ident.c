/* Accounts and secret files (see ident.h). */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "live/exec/ident.h"

static int fill(const struct passwd *pw, struct berth__account *a)
{
    if (strlen(pw->pw_name) >= sizeof a->name)
        return -1;
    a->uid = pw->pw_uid;
    a->gid = pw->pw_gid;
    snprintf(a->name, sizeof a->name, "%s", pw->pw_name);
    snprintf(a->home, sizeof a->home, "%s", pw->pw_dir ? pw->pw_dir : "/");
    return 0;
}

int berth__account_by_name(const char *name, struct berth__account *a, struct berth_err *err)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    int rc = getpwnam_r(name, &pw, buf, sizeof buf, &res);
    if (rc || !res || fill(res, a))
        return berth_err_set(err, BERTH_EINPUT, "'%.64s' is not a Unix account on this machine%s%s",
                             name, rc ? ": " : "", rc ? strerror(rc) : "");
    return 0;
}

int berth__account_by_uid(uid_t uid, struct berth__account *a, struct berth_err *err)
{
    struct passwd pw, *res = NULL;
    char buf[4096];
    int rc = getpwuid_r(uid, &pw, buf, sizeof buf, &res);
    if (rc || !res || fill(res, a))
        return berth_err_set(err, BERTH_EINPUT, "uid %u has no account name on this machine",
                             (unsigned)uid);
    return 0;
}

int berth__account_self(struct berth__account *a, struct berth_err *err)
{
    return berth__account_by_uid(geteuid(), a, err);
}

int berth__ident_multi_user(void)
{
    return geteuid() == 0;
}

int berth__account_groups(const struct berth__account *a, gid_t *groups, int max)
{
    int n = max;
    if (getgrouplist(a->name, a->gid, groups, &n) < 0)
        return -1;
    return n;
}

int berth__secret_file_check(const char *path, const char *what, struct berth_err *err)
{
    struct stat st;
    if (stat(path, &st))
        return berth_err_set(err, BERTH_EIO, "%s %s: %s", what, path, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return berth_err_set(err, BERTH_EINPUT, "%s %s: not a regular file", what, path);
    if (st.st_uid != geteuid() && st.st_uid != 0)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s %s: owned by uid %u, expected berthd's own account (uid %u) or "
                             "root: another account could change who may do what",
                             what, path, (unsigned)st.st_uid, (unsigned)geteuid());
    if (st.st_mode & 077)
        return berth_err_set(err, BERTH_EINPUT,
                             "%s %s: mode %03o lets other accounts read or change it; it holds "
                             "secrets (chmod 600 %s)",
                             what, path, (unsigned)(st.st_mode & 0777), path);
    return 0;
}
