/* The journal (see journal.h): SQLite in WAL mode behind one writer thread that commits
 * whatever has queued since its last transaction, so many submissions share one fsync. A
 * failed transaction fails its waiters and keeps its other documents for the next one; the
 * open checks the database (size, quick_check, commit counter against the mark file). */
#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "live/jobs/journal.h"
#include "util/atomic_file.h"
#include "util/hist.h"
#include "util/mem.h"

#define BACKOFF_MIN_US 50000LL   /* first retry after a failure */
#define BACKOFF_MAX_US 1000000LL /* the backoff doubles up to this */
#define MARK_EVERY_US  1000000LL /* the mark file is written at most this often */
#define MARK_PREFIX    "berth journal mark: "

/* A put's waiter, on its stack: the writer fills it when the batch holding it ends. */
struct waiter {
    int done, rc;
    char msg[256];
};

struct entry {
    uint64_t id, seq; /* seq: put order; for each job the highest seq wins */
    char *doc;
    struct waiter *wt; /* NULL: not waited (kept and retried when its transaction fails) */
};

/* The queue's index: job id -> the position of its non-waited entry in q. A slot is in use
 * when its stamp is the queue's; swapping the queue out bumps the stamp, emptying it. */
struct slot {
    uint64_t id, stamp;
    size_t pos;
};

struct berth__journal {
    sqlite3 *db;
    sqlite3_stmt *put, *bump;
    char *path, *mark;
    pthread_t writer;
    pthread_mutex_t mu;
    pthread_cond_t more, done[2]; /* done[g & 1]: batch g ended */
    struct entry *q, *w;          /* q: queued (the next batch); w: being written */
    size_t nq, qcap, nw, wcap;
    struct slot *tab;
    size_t tcap, nidx; /* nidx: non-waited entries in q */
    uint64_t stamp;
    size_t nw_kept;    /* non-waited entries in w */
    uint64_t seq, gen; /* the last put's seq; the batch being queued */
    uint64_t fresh;    /* puts since the writer last took the queue */
    int64_t retry_at;  /* after a failure: when to try again (monotonic us) */
    int64_t backoff;   /* the current backoff (0 after a commit) */
    uint64_t counter;  /* the database's commit counter (writer only, after open) */
    uint64_t marked;   /* the count the mark file holds (writer only) */
    int64_t marked_at; /* when it was written (monotonic us; writer only) */
    struct berth__journal_health h;
    struct berth__hist commit; /* each committed transaction's time, from take to commit */
    int stop;
};

static int64_t mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}

/* The slot holding id, or the empty one where it would go. */
static struct slot *find_slot(struct berth__journal *jn, uint64_t id)
{
    size_t mask = jn->tcap - 1, i = (size_t)mix(id) & mask;
    while (jn->tab[i].stamp == jn->stamp && jn->tab[i].id != id)
        i = (i + 1) & mask;
    return &jn->tab[i];
}

/* Room for one more indexed entry (load at most one half). */
static int grow_index(struct berth__journal *jn)
{
    if (2 * (jn->nidx + 1) <= jn->tcap)
        return 0;
    size_t ncap = jn->tcap ? 2 * jn->tcap : 64;
    struct slot *t = calloc(ncap, sizeof *t);
    if (!t)
        return -1;
    free(jn->tab);
    jn->tab = t;
    jn->tcap = ncap;
    jn->stamp = 1;
    for (size_t i = 0; i < jn->nq; i++)
        if (!jn->q[i].wt) {
            struct slot *s = find_slot(jn, jn->q[i].id);
            *s = (struct slot){jn->q[i].id, jn->stamp, i};
        }
    return 0;
}

/* Queues e (taking its doc); a non-waited entry replaces the queued non-waited entry for its
 * job when it is newer, and is dropped when it is older. Called with mu held. */
static int enqueue(struct berth__journal *jn, struct entry e)
{
    struct slot *s = NULL;
    if (!e.wt) {
        if (grow_index(jn))
            return -1;
        s = find_slot(jn, e.id);
        if (s->stamp == jn->stamp) {
            struct entry *old = &jn->q[s->pos];
            if (old->seq < e.seq) {
                free(old->doc);
                old->doc = e.doc;
                old->seq = e.seq;
            } else {
                free(e.doc);
            }
            return 0;
        }
    }
    if (BERTH_GROW(jn->q, jn->qcap, jn->nq + 1))
        return -1;
    if (s) {
        *s = (struct slot){e.id, jn->stamp, jn->nq};
        jn->nidx++;
    }
    jn->q[jn->nq++] = e;
    return 0;
}

static int by_id_seq(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Writes the batch w (sorted by job, then put order: only each job's newest document is
 * written) and bumps the counter, in one transaction. Returns the documents written, or -1
 * with SQLite's message in msg. Writer thread only, without mu. */
static long write_batch(struct berth__journal *jn, char *msg, size_t cap)
{
    long n = 0;
    int ok = sqlite3_exec(jn->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
    for (size_t i = 0; ok && i < jn->nw; i++) {
        if (i + 1 < jn->nw && jn->w[i + 1].id == jn->w[i].id)
            continue; /* a newer one follows */
        sqlite3_reset(jn->put);
        sqlite3_bind_int64(jn->put, 1, (sqlite3_int64)jn->w[i].id);
        sqlite3_bind_text(jn->put, 2, jn->w[i].doc, -1, SQLITE_STATIC);
        ok = sqlite3_step(jn->put) == SQLITE_DONE;
        n++;
    }
    sqlite3_reset(jn->put);
    sqlite3_clear_bindings(jn->put);
    if (ok) {
        sqlite3_reset(jn->bump);
        sqlite3_bind_int64(jn->bump, 1, (sqlite3_int64)(jn->counter + 1));
        ok = sqlite3_step(jn->bump) == SQLITE_DONE;
        sqlite3_reset(jn->bump);
    }
    if (ok)
        ok = sqlite3_exec(jn->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
    if (ok)
        return n;
    snprintf(msg, cap, "%s", sqlite3_errmsg(jn->db));
    if (!sqlite3_get_autocommit(jn->db))
        sqlite3_exec(jn->db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

/* Writes count into the mark file: a temp file (PATH.mark.tmp), fsync, rename. Returns 0 or
 * -1. */
static int write_mark(const struct berth__journal *jn, uint64_t count)
{
    char buf[64];
    int len = snprintf(buf, sizeof buf, MARK_PREFIX "%llu commits\n", (unsigned long long)count);
    return berth__atomic_write(NULL, jn->mark, buf, (size_t)len, BERTH_AF_FSYNC, 0644, NULL) ? -1
                                                                                             : 0;
}

/* Brings the mark up to the counter when it is behind and due (or force). Writer only. */
static void update_mark(struct berth__journal *jn, int force)
{
    int64_t now = mono_us();
    if (jn->marked == jn->counter || (!force && now < jn->marked_at + MARK_EVERY_US))
        return;
    if (!write_mark(jn, jn->counter))
        jn->marked = jn->counter;
    jn->marked_at = now; /* a failure is retried a second later */
}

/* Waits (with mu held) until there is something to do: new puts, a retry that is due, or a
 * stop; writes the mark first whenever it is due (under a steady load too). */
static void wait_work(struct berth__journal *jn)
{
    for (;;) {
        int64_t now = mono_us(), until = INT64_MAX;
        if (jn->marked != jn->counter) {
            int64_t due = jn->marked_at + MARK_EVERY_US;
            if (now >= due) {
                pthread_mutex_unlock(&jn->mu);
                update_mark(jn, 0);
                pthread_mutex_lock(&jn->mu);
                continue;
            }
            until = due;
        }
        if (jn->stop || jn->fresh)
            return;
        if (jn->h.failures) {
            if (now >= jn->retry_at)
                return;
            if (jn->retry_at < until)
                until = jn->retry_at;
        }
        if (until == INT64_MAX) {
            pthread_cond_wait(&jn->more, &jn->mu);
        } else {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            int64_t ns = (int64_t)ts.tv_nsec + (until - now) * 1000;
            ts.tv_sec += (time_t)(ns / 1000000000);
            ts.tv_nsec = (long)(ns % 1000000000);
            pthread_cond_timedwait(&jn->more, &jn->mu, &ts);
        }
    }
}

/* Ends batch w (mu held): on success its waiters get 0; on failure they get the error and
 * their documents are dropped, and the non-waited documents go back to the queue. */
static void end_batch(struct berth__journal *jn, long written, const char *msg)
{
    if (written >= 0) {
        jn->h.commits++;
        jn->h.docs += (uint64_t)written;
        jn->h.failures = 0;
        jn->h.degraded = 0;
        jn->backoff = 0;
    } else {
        jn->h.failures++;
        jn->h.failed_total++;
        jn->h.degraded = 1;
        snprintf(jn->h.last_error, sizeof jn->h.last_error, "%s", msg);
        jn->h.last_error_us = wall_us();
        jn->backoff = jn->backoff ? jn->backoff * 2 : BACKOFF_MIN_US;
        if (jn->backoff > BACKOFF_MAX_US)
            jn->backoff = BACKOFF_MAX_US;
        jn->retry_at = mono_us() + jn->backoff;
    }
    for (size_t i = 0; i < jn->nw; i++) {
        struct entry *e = &jn->w[i];
        if (e->wt) {
            e->wt->rc = written >= 0 ? 0 : BERTH_EIO;
            if (written < 0) {
                snprintf(e->wt->msg, sizeof e->wt->msg, "%s", msg);
                jn->h.dropped++;
            }
            e->wt->done = 1;
            free(e->doc);
        } else if (written >= 0) {
            free(e->doc);
        } else if (enqueue(jn, *e)) { /* kept for the next try */
            free(e->doc);
            jn->h.dropped++;
            snprintf(jn->h.last_error, sizeof jn->h.last_error,
                     "out of memory: job %llu's document was lost", (unsigned long long)e->id);
        }
    }
    jn->nw = 0;
    jn->nw_kept = 0;
}

static void *writer_main(void *arg)
{
    struct berth__journal *jn = arg;
    char msg[256];
    pthread_mutex_lock(&jn->mu);
    for (;;) {
        wait_work(jn);
        if (jn->stop && !jn->nq)
            break;
        /* swap the queue with the (empty) write buffer; empty the index */
        struct entry *t = jn->w;
        size_t tcap = jn->wcap;
        jn->w = jn->q;
        jn->wcap = jn->qcap;
        jn->nw = jn->nq;
        jn->nw_kept = jn->nidx;
        jn->q = t;
        jn->qcap = tcap;
        jn->nq = 0;
        jn->nidx = 0;
        jn->stamp++;
        jn->fresh = 0;
        uint64_t g = jn->gen++; /* what is queued from now on is the next batch */
        pthread_mutex_unlock(&jn->mu);
        qsort(jn->w, jn->nw, sizeof *jn->w, by_id_seq);
        int64_t t0 = mono_us();
        long written = write_batch(jn, msg, sizeof msg);
        if (written >= 0)
            berth__hist_observe_us(&jn->commit, mono_us() - t0);
        if (written >= 0)
            jn->counter++;
        pthread_mutex_lock(&jn->mu);
        end_batch(jn, written, msg);
        /* wake only this batch's waiters: the next batch's wait on the other variable */
        pthread_cond_broadcast(&jn->done[g & 1]);
        if (jn->stop && written < 0)
            break; /* closing: one last try only, then what is left is lost */
    }
    /* puts that raced with the close (a caller's bug): fail their waiters */
    for (size_t i = 0; i < jn->nq; i++) {
        if (jn->q[i].wt) {
            jn->q[i].wt->rc = BERTH_EIO;
            snprintf(jn->q[i].wt->msg, sizeof jn->q[i].wt->msg, "the journal is closing");
            jn->q[i].wt->done = 1;
        }
        free(jn->q[i].doc);
    }
    jn->nq = 0;
    jn->nidx = 0;
    pthread_cond_broadcast(&jn->done[0]);
    pthread_cond_broadcast(&jn->done[1]);
    pthread_mutex_unlock(&jn->mu);
    update_mark(jn, 1);
    return NULL;
}

static char *concat(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb + 1);
    }
    return s;
}

/* Reads the mark file: 1 with *count, 0 when there is none, or an error. */
static int read_mark(const struct berth__journal *jn, uint64_t *count, struct berth_err *err)
{
    FILE *f = fopen(jn->mark, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        return berth_err_set(err, BERTH_EIO, "journal %s: %s", jn->mark, strerror(errno));
    }
    char buf[128] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *end = NULL;
    size_t lp = strlen(MARK_PREFIX);
    if (!strncmp(buf, MARK_PREFIX, lp) && buf[lp] >= '0' && buf[lp] <= '9') {
        errno = 0;
        unsigned long long v = strtoull(buf + lp, &end, 10);
        if (!errno && !strcmp(end, " commits\n")) {
            *count = v;
            return 1;
        }
    }
    return berth_err_set(err, BERTH_EIO,
                         "journal %s: not a journal mark file: it was damaged or replaced; "
                         "remove it to open %s without the lost-commit check",
                         jn->mark, jn->path);
}

/* The first column of sql's first row into out; or -1 with SQLite's message in out. */
static int query_text(struct berth__journal *jn, const char *sql, char *out, size_t cap)
{
    sqlite3_stmt *st = NULL;
    int s = SQLITE_ERROR;
    if (sqlite3_prepare_v2(jn->db, sql, -1, &st, NULL) == SQLITE_OK &&
        (s = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *t = sqlite3_column_text(st, 0);
        snprintf(out, cap, "%s", t ? (const char *)t : "");
    } else {
        snprintf(out, cap, "%s", sqlite3_errmsg(jn->db));
    }
    sqlite3_finalize(st);
    return s == SQLITE_ROW ? 0 : -1;
}

static int exec_sql(struct berth__journal *jn, const char *sql, struct berth_err *err)
{
    char *msg = NULL;
    if (sqlite3_exec(jn->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        berth_err_set(err, BERTH_EIO, "journal %s: %s: %s", jn->path, sql,
                      msg ? msg : sqlite3_errmsg(jn->db));
        sqlite3_free(msg);
        return BERTH_EIO;
    }
    return 0;
}

/* Opens the database and checks it; the schema, the counter and the mark. */
static int open_db(struct berth__journal *jn, const char *vfs, struct berth_err *err)
{
    uint64_t mark = 0;
    int rc, have_mark = read_mark(jn, &mark, err);
    if (have_mark < 0)
        return have_mark;
    struct stat st;
    int exists = !stat(jn->path, &st);
    if (!exists && errno != ENOENT)
        return berth_err_set(err, BERTH_EIO, "journal %s: %s", jn->path, strerror(errno));
    if (!exists && have_mark && mark > 0)
        return berth_err_set(err, BERTH_EIO,
                             "journal %s: missing, but %s says %llu commits were made: the "
                             "journal was lost or moved and acknowledged jobs may be lost; "
                             "restore it from a backup, or remove %s to start empty",
                             jn->path, jn->mark, (unsigned long long)mark, jn->mark);
    if (exists && st.st_size == 0)
        return berth_err_set(err, BERTH_EIO,
                             "journal %s: the file is empty (0 bytes): it was truncated or "
                             "never written, and acknowledged jobs may be lost; restore it "
                             "from a backup, or remove it%s to start with an empty journal",
                             jn->path, have_mark ? " and its .mark file" : "");
    if (sqlite3_open_v2(jn->path, &jn->db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                        vfs) != SQLITE_OK)
        return berth_err_set(err, BERTH_EIO, "journal %s: %s", jn->path,
                             jn->db ? sqlite3_errmsg(jn->db) : "cannot open");
    sqlite3_busy_timeout(jn->db, 5000);
    char text[256];
    if (query_text(jn, "PRAGMA quick_check", text, sizeof text) || strcmp(text, "ok"))
        return berth_err_set(err, BERTH_EIO,
                             "journal %s: damaged (SQLite's quick_check: %s); restore it from "
                             "a backup, or move it away to start with an empty journal",
                             jn->path, text);
    if (query_text(jn, "PRAGMA journal_mode=WAL", text, sizeof text) || strcmp(text, "wal"))
        return berth_err_set(err, BERTH_EIO, "journal %s: cannot use WAL mode: %s", jn->path, text);
    if ((rc = exec_sql(jn, "PRAGMA synchronous=FULL", err)) ||
        (rc = exec_sql(jn,
                       "CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY, doc TEXT NOT NULL);"
                       "CREATE TABLE IF NOT EXISTS meta(k TEXT PRIMARY KEY, v INTEGER NOT NULL);"
                       "INSERT OR IGNORE INTO meta(k, v) VALUES('commits', 0)",
                       err)))
        return rc;
    if (query_text(jn, "SELECT v FROM meta WHERE k = 'commits'", text, sizeof text))
        return berth_err_set(err, BERTH_EIO, "journal %s: the commit counter: %s", jn->path, text);
    jn->counter = strtoull(text, NULL, 10);
    if (have_mark && mark > jn->counter)
        return berth_err_set(err, BERTH_EIO,
                             "journal %s: holds %llu commits but %s says %llu were made: the "
                             "journal (or its -wal file) was truncated or replaced by an older "
                             "copy, and acknowledged jobs may be lost; restore it from a "
                             "backup, or remove %s to accept the loss",
                             jn->path, (unsigned long long)jn->counter, jn->mark,
                             (unsigned long long)mark, jn->mark);
    if (sqlite3_prepare_v2(jn->db, "INSERT OR REPLACE INTO jobs(id, doc) VALUES(?, ?)", -1,
                           &jn->put, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(jn->db, "UPDATE meta SET v = ? WHERE k = 'commits'", -1, &jn->bump,
                           NULL) != SQLITE_OK)
        return berth_err_set(err, BERTH_EIO, "journal %s: %s", jn->path, sqlite3_errmsg(jn->db));
    /* a missing or older mark (the loss accepted): count from here */
    jn->marked = have_mark ? mark : UINT64_MAX;
    jn->marked_at = mono_us() - MARK_EVERY_US;
    update_mark(jn, 1);
    return 0;
}

static void free_journal(struct berth__journal *jn)
{
    sqlite3_finalize(jn->put);
    sqlite3_finalize(jn->bump);
    sqlite3_close(jn->db);
    free(jn->q);
    free(jn->w);
    free(jn->tab);
    free(jn->path);
    free(jn->mark);
    free(jn);
}

/* Removes what a failed first open made: SQLite creates the file before it writes its first
 * page, and a journal left empty would be refused at every later open. */
static void remove_new(const char *path)
{
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    char p[4096];
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++)
        if (snprintf(p, sizeof p, "%s%s", path, suffixes[i]) < (int)sizeof p)
            unlink(p);
}

int berth__journal_open(const char *path, const char *vfs, struct berth__journal **out,
                        struct berth_err *err)
{
    struct berth__journal *jn = calloc(1, sizeof *jn);
    if (!jn)
        return berth_err_set(err, BERTH_ENOMEM, "journal: out of memory");
    /* a commit: 0.1 ms to 10 s */
    static const double commit_le[] = {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                       0.05,   0.1,     0.25,   0.5,   1,      2.5,   10};
    berth__hist_init(&jn->commit, commit_le, sizeof commit_le / sizeof *commit_le);
    jn->path = concat(path, "");
    jn->mark = concat(path, ".mark");
    if (!jn->path || !jn->mark) {
        free_journal(jn);
        return berth_err_set(err, BERTH_ENOMEM, "journal: out of memory");
    }
    struct stat st;
    int existed = !stat(path, &st) || errno != ENOENT;
    int rc = open_db(jn, vfs, err);
    if (rc) {
        free_journal(jn);
        if (!existed)
            remove_new(path);
        return rc;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&jn->mu, NULL);
    pthread_cond_init(&jn->more, &ca);
    pthread_condattr_destroy(&ca);
    pthread_cond_init(&jn->done[0], NULL);
    pthread_cond_init(&jn->done[1], NULL);
    if (pthread_create(&jn->writer, NULL, writer_main, jn)) {
        pthread_mutex_destroy(&jn->mu);
        pthread_cond_destroy(&jn->more);
        pthread_cond_destroy(&jn->done[0]);
        pthread_cond_destroy(&jn->done[1]);
        free_journal(jn);
        return berth_err_set(err, BERTH_EIO, "journal %s: cannot start its writer thread", path);
    }
    *out = jn;
    return 0;
}

void berth__journal_close(struct berth__journal *jn)
{
    if (!jn)
        return;
    pthread_mutex_lock(&jn->mu);
    jn->stop = 1;
    pthread_cond_signal(&jn->more);
    pthread_mutex_unlock(&jn->mu);
    pthread_join(jn->writer, NULL);
    pthread_mutex_destroy(&jn->mu);
    pthread_cond_destroy(&jn->more);
    pthread_cond_destroy(&jn->done[0]);
    pthread_cond_destroy(&jn->done[1]);
    free_journal(jn);
}

int berth__journal_put(struct berth__journal *jn, uint64_t id, const char *doc, int wait,
                       struct berth_err *err)
{
    char *copy = strdup(doc);
    if (!copy)
        return berth_err_set(err, BERTH_ENOMEM, "journal %s: out of memory", jn->path);
    struct waiter wt = {0};
    pthread_mutex_lock(&jn->mu);
    if (enqueue(jn, (struct entry){id, ++jn->seq, copy, wait ? &wt : NULL})) {
        pthread_mutex_unlock(&jn->mu);
        free(copy);
        return berth_err_set(err, BERTH_ENOMEM, "journal %s: out of memory", jn->path);
    }
    uint64_t g = jn->gen;
    jn->fresh++;
    pthread_cond_signal(&jn->more);
    int rc = 0;
    if (wait) {
        jn->h.waiters++;
        while (!wt.done)
            pthread_cond_wait(&jn->done[g & 1], &jn->mu);
        jn->h.waiters--;
        if (wt.rc)
            rc = berth_err_set(err, wt.rc, "journal %s: commit failed: %s", jn->path, wt.msg);
    }
    pthread_mutex_unlock(&jn->mu);
    return rc;
}

int berth__journal_put_all(struct berth__journal *jn, const uint64_t *ids, char *const *docs,
                           size_t n, struct berth_err *err)
{
    if (!n)
        return 0;
    char **copy = calloc(n, sizeof *copy);
    for (size_t i = 0; copy && i < n; i++)
        if (!(copy[i] = strdup(docs[i]))) {
            for (size_t k = 0; k < i; k++)
                free(copy[k]);
            free(copy);
            copy = NULL;
        }
    if (!copy)
        return berth_err_set(err, BERTH_ENOMEM, "journal %s: out of memory", jn->path);
    struct waiter wt = {0};
    pthread_mutex_lock(&jn->mu);
    /* room first, so that either every document is queued or none is */
    if (BERTH_GROW(jn->q, jn->qcap, jn->nq + n)) {
        pthread_mutex_unlock(&jn->mu);
        for (size_t i = 0; i < n; i++)
            free(copy[i]);
        free(copy);
        return berth_err_set(err, BERTH_ENOMEM, "journal %s: out of memory", jn->path);
    }
    for (size_t i = 0; i < n; i++) /* waited entries: never coalesced, all in this batch */
        jn->q[jn->nq++] = (struct entry){ids[i], ++jn->seq, copy[i], &wt};
    free(copy);
    uint64_t g = jn->gen;
    jn->fresh += n;
    pthread_cond_signal(&jn->more);
    jn->h.waiters++;
    while (!wt.done)
        pthread_cond_wait(&jn->done[g & 1], &jn->mu);
    jn->h.waiters--;
    int rc =
        wt.rc ? berth_err_set(err, wt.rc, "journal %s: commit failed: %s", jn->path, wt.msg) : 0;
    pthread_mutex_unlock(&jn->mu);
    return rc;
}

int berth__journal_load(struct berth__journal *jn,
                        int (*fn)(void *ctx, uint64_t id, const char *doc, struct berth_err *err),
                        void *ctx, struct berth_err *err)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(jn->db, "SELECT id, doc FROM jobs ORDER BY id", -1, &st, NULL) !=
        SQLITE_OK)
        return berth_err_set(err, BERTH_EIO, "journal %s: %s", jn->path, sqlite3_errmsg(jn->db));
    int rc = 0, s;
    while (!rc && (s = sqlite3_step(st)) == SQLITE_ROW) {
        const unsigned char *doc = sqlite3_column_text(st, 1);
        rc = fn(ctx, (uint64_t)sqlite3_column_int64(st, 0), doc ? (const char *)doc : "", err);
    }
    if (!rc && s != SQLITE_DONE)
        rc = berth_err_set(err, BERTH_EIO, "journal %s: %s", jn->path, sqlite3_errmsg(jn->db));
    sqlite3_finalize(st);
    return rc;
}

void berth__journal_health(struct berth__journal *jn, struct berth__journal_health *h)
{
    pthread_mutex_lock(&jn->mu);
    *h = jn->h;
    h->pending = jn->nidx + jn->nw_kept;
    pthread_mutex_unlock(&jn->mu);
}

const char *berth__journal_path(const struct berth__journal *jn)
{
    return jn->path;
}

const struct berth__hist *berth__journal_commit_hist(const struct berth__journal *jn)
{
    return &jn->commit;
}

void berth__journal_stats(struct berth__journal *jn, uint64_t *commits, uint64_t *docs)
{
    pthread_mutex_lock(&jn->mu);
    *commits = jn->h.commits;
    *docs = jn->h.docs;
    pthread_mutex_unlock(&jn->mu);
}
