/* berthd's journal under disk faults, injected by a wrapping SQLite VFS (faultvfs.c): a
 * failed commit fails its waiters and nothing else, non-waited documents are retried and
 * coalesced, the newest document of a job always wins, the journal recovers without a
 * restart once the disk does, health says so, and a damaged or truncated journal is an
 * error at open rather than an empty queue. */
#include <pthread.h>
#include <sched.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "faultvfs.h"
#include "live/jobs/journal.h"
#include "tmpfile.h"

/* The stored documents, read back by a reopen: docs[id] (NULL when absent). */
#define MAXID 64

struct loaded {
    char *docs[MAXID];
    size_t n;
};

static int keep_doc(void *ctx, uint64_t id, const char *doc, struct berth_err *err)
{
    struct loaded *l = ctx;
    if (id >= MAXID)
        return berth_err_set(err, BERTH_EINPUT, "id %llu out of range", (unsigned long long)id);
    free(l->docs[id]);
    l->docs[id] = strdup(doc);
    l->n++;
    return 0;
}

static void loaded_free(struct loaded *l)
{
    for (size_t i = 0; i < MAXID; i++)
        free(l->docs[i]);
    memset(l, 0, sizeof *l);
}

/* Reopens path with the default VFS and reads everything back into l; 0 or an error. */
static int reload(const char *path, struct loaded *l, struct berth_err *err)
{
    struct berth__journal *jn = NULL;
    memset(l, 0, sizeof *l);
    int rc = berth__journal_open(path, NULL, &jn, err);
    if (rc)
        return rc;
    rc = berth__journal_load(jn, keep_doc, l, err);
    berth__journal_close(jn);
    return rc;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void pause_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* Polls until the journal has committed everything and is healthy (deadline 10 s). */
static int settles(struct berth__journal *jn)
{
    struct berth__journal_health h;
    for (int64_t end = now_ms() + 10000; now_ms() < end; pause_ms(2)) {
        berth__journal_health(jn, &h);
        if (!h.degraded && !h.pending)
            return 1;
    }
    return 0;
}

/* Polls until the writer has failed at least n transactions (deadline 10 s). */
static int fails(struct berth__journal *jn, uint64_t n)
{
    struct berth__journal_health h;
    for (int64_t end = now_ms() + 10000; now_ms() < end; pause_ms(2)) {
        berth__journal_health(jn, &h);
        if (h.failed_total >= n)
            return 1;
    }
    return 0;
}

static struct berth__journal *open_faulty(const char *path)
{
    struct berth_err err = {0};
    struct berth__journal *jn = NULL;
    CHECK_I64(faultvfs_register(), SQLITE_OK);
    faultvfs_reset();
    if (berth__journal_open(path, FAULTVFS_NAME, &jn, &err)) {
        fprintf(stderr, "open %s: %s\n", path, err.msg);
        CHECK(0);
    }
    return jn;
}

static int put(struct berth__journal *jn, uint64_t id, const char *doc, int wait)
{
    struct berth_err err = {0};
    return berth__journal_put(jn, id, doc, wait, &err);
}

static int count_docs(void *ctx, uint64_t id, const char *doc, struct berth_err *err)
{
    (void)err;
    size_t *n = ctx;
    char want[32];
    snprintf(want, sizeof want, "{\"n\":%llu}", (unsigned long long)id);
    CHECK_STR(doc, want);
    CHECK_I64(id, *n + 1); /* in id order */
    (*n)++;
    return 0;
}

/* 200 writes, only the last waited for; reopened, all 200 are there, the last one's second
 * version replacing its first. A brand-new state opens empty. */
static void test_roundtrip(void)
{
    struct tmp t;
    tmp_open(&t);
    struct berth_err err = {0};
    struct berth__journal *jn = NULL;
    char path[200];
    snprintf(path, sizeof path, "%s", tmp_path(&t, "j.db"));
    CHECK(!berth__journal_open(path, NULL, &jn, &err));
    if (!jn)
        return;
    size_t n = 0;
    CHECK(!berth__journal_load(jn, count_docs, &n, &err));
    CHECK_I64(n, 0);
    char doc[32];
    CHECK(!berth__journal_put(jn, 200, "{\"n\":0}", 0, &err));
    for (uint64_t i = 1; i <= 200; i++) {
        snprintf(doc, sizeof doc, "{\"n\":%llu}", (unsigned long long)i);
        CHECK(!berth__journal_put(jn, i, doc, i == 200, &err));
    }
    struct berth__journal_health h;
    berth__journal_health(jn, &h);
    CHECK(h.docs >= 200 && h.docs <= 201); /* 201 unless both of 200's came in one batch */
    CHECK(h.commits >= 1 && h.commits <= 201);
    CHECK(!h.degraded && !h.failures && !h.failed_total && !h.pending && !h.dropped);
    CHECK_STR(h.last_error, "");
    uint64_t commits = 0, docs = 0;
    berth__journal_stats(jn, &commits, &docs);
    CHECK_I64(commits, h.commits);
    CHECK_I64(docs, h.docs);
    berth__journal_close(jn);
    jn = NULL;
    CHECK(!berth__journal_open(path, NULL, &jn, &err));
    n = 0;
    CHECK(!berth__journal_load(jn, count_docs, &n, &err));
    CHECK_I64(n, 200);
    berth__journal_close(jn);
    tmp_close(&t);
}

/* A waited put whose commit fails (each way a disk fails) gets BERTH_EIO with SQLite's
 * message; once the fault clears the journal writes again without a reopen, and after one
 * the failed document is absent and every acknowledged one present. */
static void test_waited_fault(void)
{
    static const struct {
        enum faultvfs_op op;
        int files;
        long nth;
        int rc;
        const char *msg;
    } cases[] = {
        {FAULTVFS_WRITE, FAULTVFS_WAL, 1, SQLITE_FULL, "database or disk is full"},
        {FAULTVFS_WRITE, FAULTVFS_ANY, 2, SQLITE_FULL, "database or disk is full"},
        {FAULTVFS_WRITE, FAULTVFS_WAL, 1, SQLITE_IOERR_WRITE, "disk I/O error"},
        {FAULTVFS_SYNC, FAULTVFS_WAL, 1, SQLITE_IOERR_FSYNC, "disk I/O error"},
        {FAULTVFS_SYNC, FAULTVFS_ANY, 1, SQLITE_FULL, "database or disk is full"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        struct tmp t;
        tmp_open(&t);
        char path[200];
        snprintf(path, sizeof path, "%s", tmp_path(&t, "j.db"));
        struct berth__journal *jn = open_faulty(path);
        if (!jn)
            return;
        CHECK_I64(put(jn, 1, "{\"v\":\"one\"}", 1), 0);
        long syncs = faultvfs_calls(FAULTVFS_SYNC, FAULTVFS_WAL);
        CHECK(syncs >= 1); /* synchronous=FULL: every commit syncs the WAL */
        faultvfs_fail(cases[c].op, cases[c].files, cases[c].nth, cases[c].rc);
        struct berth_err err = {0};
        CHECK_I64(berth__journal_put(jn, 2, "{\"v\":\"two\"}", 1, &err), BERTH_EIO);
        CHECK_HAS(err.msg, cases[c].msg);
        CHECK_HAS(err.msg, path);
        CHECK(faultvfs_failed(cases[c].op) >= 1);
        /* still failing: a second waited put fails too, nothing sticks */
        CHECK_I64(put(jn, 3, "{\"v\":\"three\"}", 1), BERTH_EIO);
        struct berth__journal_health h;
        berth__journal_health(jn, &h);
        CHECK(h.degraded);
        CHECK_HAS(h.last_error, cases[c].msg);
        CHECK(h.last_error_us > 0);
        CHECK(h.failures >= 2);
        CHECK_I64(h.dropped, 2);
        faultvfs_clear(); /* space freed */
        CHECK_I64(put(jn, 4, "{\"v\":\"four\"}", 1), 0);
        berth__journal_health(jn, &h);
        CHECK(!h.degraded);
        CHECK_I64(h.failures, 0);
        CHECK_HAS(h.last_error, cases[c].msg); /* the last error stays on record */
        berth__journal_close(jn);
        struct loaded l;
        CHECK(!reload(path, &l, &err));
        CHECK_I64(l.n, 2);
        CHECK_STR(l.docs[1], "{\"v\":\"one\"}");
        CHECK(l.docs[2] == NULL);
        CHECK(l.docs[3] == NULL);
        CHECK_STR(l.docs[4], "{\"v\":\"four\"}");
        loaded_free(&l);
        tmp_close(&t);
    }
}

/* Non-waited documents written while the disk is full are kept, coalesced by job, and
 * committed by the writer's own retries once it has room again: no new put needed. */
static void test_nonwaited_retry(void)
{
    struct tmp t;
    tmp_open(&t);
    char path[200];
    snprintf(path, sizeof path, "%s", tmp_path(&t, "j.db"));
    struct berth__journal *jn = open_faulty(path);
    if (!jn)
        return;
    faultvfs_fail(FAULTVFS_WRITE, FAULTVFS_WAL, 1, SQLITE_FULL);
    CHECK_I64(put(jn, 1, "{\"v\":1}", 0), 0);
    CHECK(fails(jn, 1));
    CHECK_I64(put(jn, 1, "{\"v\":2}", 0), 0); /* replaces the pending {"v":1} */
    CHECK_I64(put(jn, 2, "{\"v\":1}", 0), 0);
    CHECK(fails(jn, 2));
    struct berth__journal_health h;
    berth__journal_health(jn, &h);
    CHECK(h.degraded);
    CHECK_I64(h.pending, 2); /* one document per job */
    CHECK_HAS(h.last_error, "database or disk is full");
    /* the backoff: more failures come without new puts */
    CHECK(fails(jn, h.failed_total + 2));
    faultvfs_clear();
    CHECK(settles(jn));
    berth__journal_health(jn, &h);
    CHECK(!h.degraded && !h.failures && !h.pending && !h.dropped);
    berth__journal_close(jn);
    struct berth_err err = {0};
    struct loaded l;
    CHECK(!reload(path, &l, &err));
    CHECK_I64(l.n, 2);
    CHECK_STR(l.docs[1], "{\"v\":2}");
    CHECK_STR(l.docs[2], "{\"v\":1}");
    loaded_free(&l);
    tmp_close(&t);
}

/* The ordering rules: the newest document of a job wins; a failed waited document neither
 * comes back later nor takes an older or newer pending document with it. */
static void test_ordering(void)
{
    struct tmp t;
    tmp_open(&t);
    char path[200];
    snprintf(path, sizeof path, "%s", tmp_path(&t, "j.db"));
    struct berth__journal *jn = open_faulty(path);
    if (!jn)
        return;
    CHECK_I64(put(jn, 3, "{\"j3\":\"acked\"}", 1), 0);
    faultvfs_fail(FAULTVFS_SYNC, FAULTVFS_WAL, 1, SQLITE_IOERR_FSYNC);
    /* job 1: a pending retry, then a newer waited document that commits after the fault */
    CHECK_I64(put(jn, 1, "{\"j1\":\"old\"}", 0), 0);
    /* job 2: a pending retry, then a waited document that fails: the retry must survive */
    CHECK_I64(put(jn, 2, "{\"j2\":\"memory\"}", 0), 0);
    CHECK_I64(put(jn, 2, "{\"j2\":\"failed\"}", 1), BERTH_EIO);
    /* job 3: acknowledged, then a waited document that fails: must not come back */
    CHECK_I64(put(jn, 3, "{\"j3\":\"failed\"}", 1), BERTH_EIO);
    /* job 4: a waited document fails, then a newer non-waited one: that one is kept */
    CHECK_I64(put(jn, 4, "{\"j4\":\"failed\"}", 1), BERTH_EIO);
    CHECK_I64(put(jn, 4, "{\"j4\":\"newer\"}", 0), 0);
    CHECK(fails(jn, 4));
    struct berth__journal_health h;
    berth__journal_health(jn, &h);
    CHECK_I64(h.pending, 3); /* jobs 1, 2 and 4 */
    CHECK_I64(h.dropped, 3);
    faultvfs_clear();
    CHECK_I64(put(jn, 1, "{\"j1\":\"new\"}", 1), 0); /* shares its transaction with the retries */
    CHECK(settles(jn));
    /* later batches must not bring an old document back over a newer one */
    CHECK_I64(put(jn, 5, "{\"j5\":1}", 1), 0);
    berth__journal_close(jn);
    struct berth_err err = {0};
    struct loaded l;
    CHECK(!reload(path, &l, &err));
    CHECK_STR(l.docs[1], "{\"j1\":\"new\"}");
    CHECK_STR(l.docs[2], "{\"j2\":\"memory\"}");
    CHECK_STR(l.docs[3], "{\"j3\":\"acked\"}");
    CHECK_STR(l.docs[4], "{\"j4\":\"newer\"}");
    CHECK_STR(l.docs[5], "{\"j5\":1}");
    loaded_free(&l);
    tmp_close(&t);
}

/* Polls until cond(jn) holds (deadline 10 s). */
static int until(struct berth__journal *jn, int (*cond)(struct berth__journal *))
{
    for (int64_t end = now_ms() + 10000; now_ms() < end; pause_ms(1))
        if (cond(jn))
            return 1;
    return 0;
}

static int is_stalled(struct berth__journal *jn)
{
    (void)jn;
    return faultvfs_stalled() == 1;
}

static int has_waiter(struct berth__journal *jn)
{
    struct berth__journal_health h;
    berth__journal_health(jn, &h);
    return h.waiters == 1;
}

struct waited_put {
    struct berth__journal *jn;
    uint64_t id;
    const char *doc;
    int rc;
};

static void *do_waited_put(void *arg)
{
    struct waited_put *w = arg;
    w->rc = put(w->jn, w->id, w->doc, 1);
    return NULL;
}

/* Puts made while a transaction is in flight (held inside its WAL fsync by the VFS): an
 * older document coming back from a failed transaction never replaces a newer queued one,
 * and within one transaction each job's newest put wins whatever the queue's order. */
static void test_inflight(void)
{
    struct tmp t;
    tmp_open(&t);
    char path[200];
    snprintf(path, sizeof path, "%s", tmp_path(&t, "j.db"));
    struct berth__journal *jn = open_faulty(path);
    if (!jn)
        return;
    /* job 1: v1 in flight, v2 queued; the flight fails: v1 returns to the queue, v2 stays */
    faultvfs_stall(FAULTVFS_SYNC, FAULTVFS_WAL);
    CHECK_I64(put(jn, 1, "{\"j1\":1}", 0), 0);
    CHECK(until(jn, is_stalled));
    CHECK_I64(put(jn, 1, "{\"j1\":2}", 0), 0);
    faultvfs_fail(FAULTVFS_SYNC, FAULTVFS_WAL, 1, SQLITE_IOERR_FSYNC);
    faultvfs_unstall();
    CHECK(fails(jn, 1));
    faultvfs_clear();
    CHECK(settles(jn));
    /* job 2: while a transaction is in flight, queue n1 (not waited), w2 (waited, another
     * thread) and n3 (not waited: it takes n1's place in the queue, ahead of w2) */
    faultvfs_stall(FAULTVFS_SYNC, FAULTVFS_WAL);
    CHECK_I64(put(jn, 9, "{\"j9\":1}", 0), 0);
    CHECK(until(jn, is_stalled));
    CHECK_I64(put(jn, 2, "{\"j2\":\"n1\"}", 0), 0);
    struct waited_put w = {jn, 2, "{\"j2\":\"w2\"}", -1};
    pthread_t th;
    CHECK(!pthread_create(&th, NULL, do_waited_put, &w));
    CHECK(until(jn, has_waiter));
    CHECK_I64(put(jn, 2, "{\"j2\":\"n3\"}", 0), 0);
    faultvfs_unstall();
    pthread_join(th, NULL);
    CHECK_I64(w.rc, 0);
    CHECK(settles(jn));
    /* job 3: a waited put fails in flight while a newer non-waited one is queued */
    faultvfs_stall(FAULTVFS_SYNC, FAULTVFS_WAL);
    w = (struct waited_put){jn, 3, "{\"j3\":\"w1\"}", -1};
    CHECK(!pthread_create(&th, NULL, do_waited_put, &w));
    CHECK(until(jn, is_stalled));
    CHECK_I64(put(jn, 3, "{\"j3\":\"n2\"}", 0), 0);
    faultvfs_fail(FAULTVFS_SYNC, FAULTVFS_WAL, 1, SQLITE_IOERR_FSYNC);
    faultvfs_unstall();
    pthread_join(th, NULL);
    CHECK_I64(w.rc, BERTH_EIO);
    faultvfs_clear();
    CHECK(settles(jn));
    berth__journal_close(jn);
    struct berth_err err = {0};
    struct loaded l;
    CHECK(!reload(path, &l, &err));
    CHECK_STR(l.docs[1], "{\"j1\":2}");
    CHECK_STR(l.docs[2], "{\"j2\":\"n3\"}");
    CHECK_STR(l.docs[3], "{\"j3\":\"n2\"}");
    loaded_free(&l);
    tmp_close(&t);
}

static void *do_close(void *arg)
{
    berth__journal_close(arg);
    return NULL;
}

/* A healthy close commits everything queued, even what came while a transaction was in
 * flight when it was called. */
static void test_close_commits(void)
{
    struct tmp t;
    tmp_open(&t);
    char path[200];
    snprintf(path, sizeof path, "%s", tmp_path(&t, "j.db"));
    struct berth__journal *jn = open_faulty(path);
    if (!jn)
        return;
    faultvfs_stall(FAULTVFS_SYNC, FAULTVFS_WAL);
    CHECK_I64(put(jn, 1, "{\"a\":1}", 0), 0);
    CHECK(until(jn, is_stalled));
    char doc[32];
    for (int i = 2; i < MAXID; i++) {
        snprintf(doc, sizeof doc, "{\"a\":%d}", i);
        CHECK_I64(put(jn, (uint64_t)i, doc, 0), 0);
    }
    pthread_t th;
    CHECK(!pthread_create(&th, NULL, do_close, jn));
    for (int i = 0; i < 1000; i++) /* most likely, the close is waiting by now */
        sched_yield();
    faultvfs_unstall();
    pthread_join(th, NULL);
    struct berth_err err = {0};
    struct loaded l;
    CHECK(!reload(path, &l, &err));
    CHECK_I64(l.n, MAXID - 1);
    CHECK_STR(l.docs[MAXID - 1], "{\"a\":63}");
    loaded_free(&l);
    tmp_close(&t);
}

/* Writers racing with faults that come and go: each job's stored document is its newest one
 * whose put did not fail. Each thread owns its jobs, so its own order is the put order.
 * Thread 0 also turns faults on and off, in step with its puts rather than with a clock
 * (failing is much quicker than committing: timed faults would starve the commits). */
#define NTHREADS 4
#define PER      8 /* jobs per thread */
#define ROUNDS   400

struct racer {
    struct berth__journal *jn;
    int t;
    unsigned seed;
    char want[PER][48];
};

static void toggle_faults(struct racer *r, int i)
{
    static const int rcs[] = {SQLITE_FULL, SQLITE_IOERR_WRITE, SQLITE_IOERR_FSYNC};
    if (i % 12 == 0) {
        enum faultvfs_op op = (enum faultvfs_op)(rand_r(&r->seed) % 2);
        faultvfs_fail(op, rand_r(&r->seed) % 2 ? FAULTVFS_WAL : FAULTVFS_ANY,
                      1 + (long)(rand_r(&r->seed) % 4), rcs[rand_r(&r->seed) % 3]);
    } else if (i % 12 == 4) {
        faultvfs_clear();
    }
}

static void *race(void *arg)
{
    struct racer *r = arg;
    for (int i = 0; i < ROUNDS; i++) {
        if (r->t == 0)
            toggle_faults(r, i);
        int k = (int)(rand_r(&r->seed) % PER), wait = rand_r(&r->seed) % 3 == 0;
        uint64_t id = (uint64_t)(r->t * PER + k + 1);
        char doc[48];
        snprintf(doc, sizeof doc, "{\"job\":%llu,\"v\":%d}", (unsigned long long)id, i);
        if (!put(r->jn, id, doc, wait))
            snprintf(r->want[k], sizeof r->want[k], "%s", doc);
    }
    return NULL;
}

static void test_race_with_faults(void)
{
    struct tmp t;
    tmp_open(&t);
    char path[200];
    snprintf(path, sizeof path, "%s", tmp_path(&t, "j.db"));
    struct berth__journal *jn = open_faulty(path);
    if (!jn)
        return;
    struct racer r[NTHREADS];
    pthread_t th[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        r[i] = (struct racer){jn, i, 7u + (unsigned)i, {{0}}};
        CHECK(!pthread_create(&th[i], NULL, race, &r[i]));
    }
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    faultvfs_clear();
    CHECK(settles(jn));
    struct berth__journal_health h;
    berth__journal_health(jn, &h);
    CHECK(h.failed_total > 0 && h.dropped > 0); /* the faults did strike */
    CHECK(h.commits > 0);
    berth__journal_close(jn);
    struct berth_err err = {0};
    struct loaded l;
    CHECK(!reload(path, &l, &err));
    for (int i = 0; i < NTHREADS; i++)
        for (int k = 0; k < PER; k++) {
            const char *got = l.docs[i * PER + k + 1];
            if (r[i].want[k][0])
                CHECK_STR(got, r[i].want[k]);
            /* else: only failed puts (or none): a failed waited one may not be stored */
            else if (got)
                CHECK_HAS(got, "\"v\":");
        }
    loaded_free(&l);
    tmp_close(&t);
}

/* Checkpoints that cannot write the main file (in WAL mode the only writes it gets) fail no
 * commit and lose nothing, even when the close's own checkpoint fails too. */
static void test_checkpoint_fault(void)
{
    struct tmp t;
    tmp_open(&t);
    char path[200];
    snprintf(path, sizeof path, "%s", tmp_path(&t, "j.db"));
    struct berth__journal *jn = open_faulty(path);
    if (!jn)
        return;
    faultvfs_fail(FAULTVFS_WRITE, FAULTVFS_DB, 1, SQLITE_FULL);
    char doc[32];
    int bad = 0;
    /* past the 1000-page WAL that starts a checkpoint (each commit: two pages or more) */
    for (int i = 1; i <= 600; i++) {
        snprintf(doc, sizeof doc, "{\"n\":%d}", i);
        bad += put(jn, (uint64_t)(i % (MAXID - 1)) + 1, doc, 1) != 0;
    }
    CHECK_I64(bad, 0);
    CHECK(faultvfs_failed(FAULTVFS_WRITE) >= 1); /* a checkpoint was tried, and failed */
    struct berth__journal_health h;
    berth__journal_health(jn, &h);
    CHECK(!h.degraded && !h.failed_total);
    berth__journal_close(jn); /* its checkpoint fails as well: the WAL stays */
    CHECK(!access(tmp_path(&t, "j.db-wal"), F_OK));
    faultvfs_clear();
    struct berth_err err = {0};
    struct loaded l;
    CHECK(!reload(path, &l, &err));
    CHECK_I64(l.n, MAXID - 1);
    CHECK_STR(l.docs[600 % (MAXID - 1) + 1], "{\"n\":600}");
    loaded_free(&l);
    tmp_close(&t);
}

/* Copies file a to b (the test's stand-in for a backup or a crashed disk's image). */
static void copy_file(const char *a, const char *b)
{
    FILE *in = fopen(a, "rb"), *out = fopen(b, "wb");
    CHECK(in && out);
    char buf[8192];
    size_t n;
    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        CHECK_I64(fwrite(buf, 1, n, out), n);
    if (in)
        fclose(in);
    if (out)
        CHECK_I64(fclose(out), 0);
}

/* The count in a mark file, or -1. */
static long long mark_count(const char *mark)
{
    FILE *m = fopen(mark, "r");
    char buf[64] = "";
    if (!m)
        return -1;
    if (!fgets(buf, sizeof buf, m))
        buf[0] = 0;
    fclose(m);
    long long n = -1;
    return sscanf(buf, "berth journal mark: %lld commits", &n) == 1 ? n : -1;
}

static int open_err(const char *path, struct berth_err *err)
{
    struct berth__journal *jn = NULL;
    memset(err, 0, sizeof *err);
    int rc = berth__journal_open(path, NULL, &jn, err);
    berth__journal_close(jn);
    return rc;
}

static void fill(const char *path, int from, int to)
{
    struct berth_err err = {0};
    struct berth__journal *jn = NULL;
    CHECK(!berth__journal_open(path, NULL, &jn, &err));
    char doc[32];
    for (int i = from; jn && i <= to; i++) {
        snprintf(doc, sizeof doc, "{\"n\":%d}", i);
        CHECK(!berth__journal_put(jn, (uint64_t)i, doc, 1, &err));
    }
    berth__journal_close(jn);
}

/* A zero-length or garbled database, a bad mark: errors naming the file. */
static void test_damaged(void)
{
    struct tmp t;
    tmp_open(&t);
    char path[200], mark[220];
    snprintf(path, sizeof path, "%s", tmp_path(&t, "j.db"));
    snprintf(mark, sizeof mark, "%s.mark", path);
    struct berth_err err;
    /* zero-length */
    tmp_write(&t, "j.db", "");
    CHECK_I64(open_err(path, &err), BERTH_EIO);
    CHECK_HAS(err.msg, path);
    CHECK_HAS(err.msg, "empty (0 bytes)");
    CHECK_HAS(err.msg, "restore it from a backup");
    unlink(path);
    /* garbage over the pages after the header: quick_check */
    fill(path, 1, 30);
    struct stat st;
    CHECK(!stat(path, &st) && st.st_size >= 3 * 4096);
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (f) {
        char junk[4096];
        memset(junk, 'x', sizeof junk);
        CHECK(!fseek(f, 4096, SEEK_SET));
        CHECK_I64(fwrite(junk, 1, sizeof junk, f), sizeof junk);
        CHECK(!fseek(f, 2 * 4096, SEEK_SET));
        CHECK_I64(fwrite(junk, 1, sizeof junk, f), sizeof junk);
        fclose(f);
    }
    CHECK_I64(open_err(path, &err), BERTH_EIO);
    CHECK_HAS(err.msg, path);
    CHECK_HAS(err.msg, "damaged (SQLite's quick_check: ");
    /* garbage over the header: not a database at all */
    f = fopen(path, "r+b");
    if (f) {
        CHECK_I64(fwrite("garbage garbage garbage", 1, 23, f), 23);
        fclose(f);
    }
    CHECK_I64(open_err(path, &err), BERTH_EIO);
    CHECK_HAS(err.msg, "damaged (SQLite's quick_check: file is not a database");
    unlink(path);
    unlink(mark);
    /* a mark that is not one */
    fill(path, 1, 2);
    tmp_write(&t, "j.db.mark", "hello\n");
    CHECK_I64(open_err(path, &err), BERTH_EIO);
    CHECK_HAS(err.msg, "not a journal mark file");
    CHECK_HAS(err.msg, mark);
    unlink(mark);
    CHECK_I64(open_err(path, &err), 0); /* the loss accepted: a new mark */
    CHECK(!access(mark, F_OK));
    tmp_close(&t);
}

/* Lost commits: the database replaced by an older copy (its WAL included), a crashed
 * disk's image whose WAL is gone, and a database gone while the mark remains. */
static void test_lost_commits(void)
{
    struct tmp t;
    tmp_open(&t);
    char path[200], wal[220], mark[220], old[200], oldwal[220];
    snprintf(path, sizeof path, "%s", tmp_path(&t, "j.db"));
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(mark, sizeof mark, "%s.mark", path);
    snprintf(old, sizeof old, "%s", tmp_path(&t, "old.db"));
    snprintf(oldwal, sizeof oldwal, "%s-wal", old);
    struct berth_err err = {0};
    struct berth__journal *jn = NULL;
    CHECK(!berth__journal_open(path, NULL, &jn, &err));
    if (!jn)
        return;
    char doc[32];
    for (int i = 1; i <= 5; i++) {
        snprintf(doc, sizeof doc, "{\"n\":%d}", i);
        CHECK(!berth__journal_put(jn, (uint64_t)i, doc, 1, &err));
    }
    /* the writer is idle: db + WAL are a consistent older copy */
    copy_file(path, old);
    copy_file(wal, oldwal);
    for (int i = 6; i <= 10; i++) {
        snprintf(doc, sizeof doc, "{\"n\":%d}", i);
        CHECK(!berth__journal_put(jn, (uint64_t)i, doc, 1, &err));
    }
    berth__journal_close(jn); /* writes the mark */
    CHECK(!access(mark, F_OK));
    CHECK(access(wal, F_OK)); /* a clean close checkpoints and removes the WAL */
    CHECK(!rename(old, path));
    CHECK(!rename(oldwal, wal));
    CHECK_I64(open_err(path, &err), BERTH_EIO);
    CHECK_HAS(err.msg, path);
    CHECK_HAS(err.msg, "truncated or replaced by an older copy");
    CHECK_HAS(err.msg, "acknowledged jobs may be lost");
    CHECK_HAS(err.msg, mark);
    CHECK(!unlink(mark)); /* accept the loss */
    struct loaded l;
    CHECK(!reload(path, &l, &err));
    CHECK_I64(l.n, 5);
    loaded_free(&l);
    CHECK_I64(open_err(path, &err), 0); /* and from then on it opens */

    /* a crash image that lost its WAL: the mark (at most a second behind) catches it */
    jn = NULL;
    CHECK(!berth__journal_open(path, NULL, &jn, &err));
    if (!jn)
        return;
    long long base = mark_count(mark);
    CHECK(base >= 5);
    for (int i = 11; i <= 20; i++) {
        snprintf(doc, sizeof doc, "{\"n\":%d}", i);
        CHECK(!berth__journal_put(jn, (uint64_t)i, doc, 1, &err));
    }
    char crash[200], crashmark[220];
    snprintf(crash, sizeof crash, "%s", tmp_path(&t, "crash.db"));
    snprintf(crashmark, sizeof crashmark, "%s.mark", crash);
    /* poll for the writer's next mark (a second after the last at most): 10 more commits */
    int marked = 0;
    for (int64_t end = now_ms() + 10000; !marked && now_ms() < end; pause_ms(5))
        marked = mark_count(mark) >= base + 10;
    CHECK(marked);
    copy_file(path, crash); /* the WAL is not copied: lost with the crash */
    copy_file(mark, crashmark);
    CHECK_I64(open_err(crash, &err), BERTH_EIO);
    CHECK_HAS(err.msg, crash);
    CHECK_HAS(err.msg, "truncated or replaced");
    berth__journal_close(jn);

    /* the database gone, the mark still there */
    CHECK(!unlink(path));
    CHECK_I64(open_err(path, &err), BERTH_EIO);
    CHECK_HAS(err.msg, "missing, but");
    CHECK_HAS(err.msg, mark);
    CHECK(!unlink(mark));
    CHECK_I64(open_err(path, &err), 0); /* neither: a brand-new journal */
    unlink(crash);
    tmp_close(&t);
}

static const struct check_test tests[] = {
    {"roundtrip", test_roundtrip},
    {"waited_fault", test_waited_fault},
    {"nonwaited_retry", test_nonwaited_retry},
    {"ordering", test_ordering},
    {"inflight", test_inflight},
    {"close_commits", test_close_commits},
    {"race_with_faults", test_race_with_faults},
    {"checkpoint_fault", test_checkpoint_fault},
    {"damaged", test_damaged},
    {"lost_commits", test_lost_commits},
};

CHECK_MAIN(tests)
