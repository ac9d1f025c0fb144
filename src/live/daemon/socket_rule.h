/* Who may use berthd's Unix socket. By default every account of the machine may (multi-user
 * mode; single-user mode: berthd's own and root), known by its peer credentials: `nobody`
 * and service accounts included, and removing a user's token does not stop their socket
 * access. Two optional rules narrow it (docs/security.md, "The Unix socket"):
 *  - --socket-users LIST: only the accounts and @groups listed (names and groups are
 *    checked at start; a group counts its members and the accounts whose primary group it
 *    is). Root, berthd's own account and the token file's admins always may;
 *  - --socket-requires-token: only accounts that a line of the token file names (any token,
 *    admin or not): removing a user's last token and SIGHUP ends their socket access too.
 *    Root and berthd's own account are exempt.
 * A caller either rule refuses is answered 403 saying which. */
#ifndef BERTH_LIVE_SOCKET_RULE_H
#define BERTH_LIVE_SOCKET_RULE_H

#include <stddef.h>
#include <sys/types.h>

#include "berth/err.h"
#include "live/daemon/auth.h"

struct berth__socket_rule;

/* The rule of users (--socket-users, NULL: everyone) and requires_token; *out NULL when
 * neither narrows anything. BERTH_EINPUT naming the flag and the entry for an empty entry,
 * an account or a group that does not exist. */
int berth__socket_rule_parse(const char *users, int requires_token, struct berth__socket_rule **out,
                             struct berth_err *err);
void berth__socket_rule_free(struct berth__socket_rule *r);
/* Whether who (an account on the socket, berth__auth_peer's) may call: 0, or -1 with the
 * reason in why. has_token: a line of the token file names who's account
 * (berth__auth_has_token, read under the daemon's lock); self: berthd's own uid. Looks the
 * account's groups up (NSS): call it outside the daemon's lock. */
int berth__socket_rule_check(const struct berth__socket_rule *r, const struct berth__caller *who,
                             int has_token, uid_t self, char *why, size_t len);

#endif
