/* Reads of berthd's journal that take neither the daemon's lock nor the journal's: a job that
 * left memory (--min-job-age, --max-job-count) and accounting over every job are read here,
 * on a read-only SQLite connection opened for the call. In WAL mode a reader sees the last
 * commit and never blocks the writer, nor is blocked by it. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "live/jobs/journal.h"

static int reader(const struct berth__journal *jn, sqlite3 **db, struct berth_err *err)
{
    const char *path = berth__journal_path(jn);
    if (sqlite3_open_v2(path, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        int rc = berth_err_set(err, BERTH_EIO, "journal %s: cannot read: %s", path,
                               *db ? sqlite3_errmsg(*db) : "out of memory");
        sqlite3_close(*db);
        *db = NULL;
        return rc;
    }
    sqlite3_busy_timeout(*db, 5000); /* a checkpoint's moment, never the writer's batch */
    return 0;
}

int berth__journal_get(const struct berth__journal *jn, uint64_t id, char **doc,
                       struct berth_err *err)
{
    *doc = NULL;
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc = reader(jn, &db, err);
    if (rc)
        return rc;
    if (sqlite3_prepare_v2(db, "SELECT doc FROM jobs WHERE id = ?", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_bind_int64(st, 1, (sqlite3_int64)id) != SQLITE_OK) {
        rc = berth_err_set(err, BERTH_EIO, "journal %s: %s", berth__journal_path(jn),
                           sqlite3_errmsg(db));
    } else {
        int s = sqlite3_step(st);
        const unsigned char *t = s == SQLITE_ROW ? sqlite3_column_text(st, 0) : NULL;
        if (t && !(*doc = strdup((const char *)t)))
            rc = berth_err_set(err, BERTH_ENOMEM, "journal: out of memory");
        else if (!t && s != SQLITE_DONE && s != SQLITE_ROW)
            rc = berth_err_set(err, BERTH_EIO, "journal %s: %s", berth__journal_path(jn),
                               sqlite3_errmsg(db));
        else if (!t)
            rc = 1;
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}

int berth__journal_scan(const struct berth__journal *jn, uint64_t after,
                        int (*fn)(void *ctx, uint64_t id, const char *doc, struct berth_err *err),
                        void *ctx, struct berth_err *err)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc = reader(jn, &db, err);
    if (rc)
        return rc;
    if (sqlite3_prepare_v2(db, "SELECT id, doc FROM jobs WHERE id > ? ORDER BY id", -1, &st,
                           NULL) != SQLITE_OK ||
        sqlite3_bind_int64(st, 1, (sqlite3_int64)after) != SQLITE_OK) {
        rc = berth_err_set(err, BERTH_EIO, "journal %s: %s", berth__journal_path(jn),
                           sqlite3_errmsg(db));
    } else {
        int s;
        while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
            const unsigned char *t = sqlite3_column_text(st, 1);
            rc = fn(ctx, (uint64_t)sqlite3_column_int64(st, 0), t ? (const char *)t : "", err);
        }
        if (!rc && s != SQLITE_DONE)
            rc = berth_err_set(err, BERTH_EIO, "journal %s: %s", berth__journal_path(jn),
                               sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rc;
}
