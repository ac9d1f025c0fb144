/* The local executor alone, through its ops table (live/exec/executor.h), with no daemon: a
 * fake host (below) gives it a scratch state dir, a log, the clock and each job's
 * environment, and fails the test if the executor asks it anything else. Real processes run
 * under the real shim: this program is its own berthd binary (`--shim SPEC FD` makes it the
 * shim, as berthd's main does). Covered: the inventory, an attempt's exit code and logs, the
 * log cap's drop count, the checkpoint signal (trapped: the job runs on) then the forced stop
 * (SIGKILL), an attempt that never ran (lost), and that nothing of an attempt outlives it:
 * its shim, its process group, a child that ignores the checkpoint signal. Where berthd as
 * root would have writable cgroups, a setsid escape is killed with its attempt's cgroup;
 * elsewhere that case prints "SKIP exec_local cgroup: WHY" (a failure where BERTH_REQUIRE
 * names cgroup). Every wait has a deadline. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "live/exec/cgroup.h"
#include "live/exec/exec_local.h"
#include "live/exec/executor.h"
#include "model/cluster.h"

#define WAIT_MS 30000 /* the longest any wait may take (a loaded machine, sanitizers) */
#define NAP_NS  5000000L

static const struct berth__executor *X = &berth__exec_local;

/* ---- the fake host ------------------------------------------------------------------------ */

struct fake {
    struct berth__lexec files;
    char state[64], spool[96], exe[4096];
    char log[8192];
    size_t nlog;
    int env_calls;
};

static struct fake F;
static struct berth__exec_host H;

static void fake_log(void *ctx, const char *fmt, va_list ap)
{
    struct fake *f = ctx;
    if (f->nlog < sizeof f->log) {
        int n = vsnprintf(f->log + f->nlog, sizeof f->log - f->nlog, fmt, ap);
        f->nlog += n > 0 ? (size_t)n : 0;
        f->nlog = f->nlog < sizeof f->log ? f->nlog : sizeof f->log - 1;
    }
}

static berth_us wall_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (berth_us)ts.tv_sec * BERTH_US_PER_S + ts.tv_nsec / 1000;
}

static berth_us fake_now(void *ctx)
{
    (void)ctx;
    return wall_us();
}

/* The job's own variables, then a PATH and the attempt, as berthd's would. */
static char **fake_job_env(void *ctx, const struct berth__ljob *j, int devices)
{
    struct fake *f = ctx;
    f->env_calls++;
    CHECK_I64(devices, 1); /* a local attempt gets its devices' variables */
    char **v = NULL, num[16];
    size_t n = 0, cap = 0;
    int bad = 0;
    for (size_t i = 0; j->env[i] && !bad; i++) {
        char *eq = strchr(j->env[i], '=');
        *eq = '\0';
        bad = berth__env_add(&v, &n, &cap, j->env[i], eq + 1);
        *eq = '=';
    }
    snprintf(num, sizeof num, "%d", j->attempt);
    if (bad || berth__env_add(&v, &n, &cap, "PATH", "/usr/local/bin:/usr/bin:/bin") ||
        berth__env_add(&v, &n, &cap, "BERTH_JOB_ID", j->idstr) ||
        berth__env_add(&v, &n, &cap, "BERTH_ATTEMPT", num)) {
        berth__strv_free(v);
        return NULL;
    }
    return v;
}

/* What the local executor never needs of its host: each call is a failure. */
static void unexpected(const char *what)
{
    fprintf(stderr, "CHECK failed: the local executor called the host's %s\n", what);
    check_failures++;
}

static struct berth__ljob *no_job(void *ctx, uint64_t id)
{
    (void)ctx, (void)id;
    unexpected("job");
    return NULL;
}

static struct berth__ljob *no_next_job(void *ctx, int walk, size_t *cursor)
{
    (void)ctx, (void)walk, (void)cursor;
    unexpected("next_job");
    return NULL;
}

static int no_refuses(void *ctx, const struct berth__ljob *j, struct berth_err *err)
{
    (void)ctx, (void)j, (void)err;
    unexpected("refuses");
    return 0;
}

static int no_adopt(void *ctx, struct berth__ljob *j, struct berth_err *err)
{
    (void)ctx, (void)j;
    unexpected("adopt");
    return berth_err_set(err, BERTH_EINPUT, "unexpected");
}

static int no_cancel(void *ctx, struct berth__ljob *j, berth_us now, struct berth_err *err)
{
    (void)ctx, (void)j, (void)now;
    unexpected("cancel");
    return berth_err_set(err, BERTH_EINPUT, "unexpected");
}

static int no_save(void *ctx, struct berth__ljob *j, struct berth_err *err)
{
    (void)ctx, (void)j, (void)err;
    unexpected("save");
    return 0;
}

static int no_reserve(void *ctx, uint32_t server, int on)
{
    (void)ctx, (void)server, (void)on;
    unexpected("reserve");
    return -1;
}

static void no_pass_due(void *ctx)
{
    (void)ctx;
    unexpected("pass_due");
}

static void no_counted_read(void *ctx)
{
    (void)ctx;
    unexpected("counted_read");
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path) && errno != ENOENT ? -1 : 0;
}

/* A fresh state dir (STATE/jobs, STATE/spool, as berthd makes them) and the host over it. */
static void host_up(const struct berth__iso *iso)
{
    memset(&F, 0, sizeof F);
    snprintf(F.state, sizeof F.state, "/tmp/berth-exec-XXXXXX");
    ssize_t n = readlink("/proc/self/exe", F.exe, sizeof F.exe - 1);
    if (!mkdtemp(F.state) || n <= 0) {
        perror("scratch state dir or /proc/self/exe");
        exit(2);
    }
    F.exe[n] = '\0';
    char jobs[96];
    snprintf(jobs, sizeof jobs, "%s/jobs", F.state);
    snprintf(F.spool, sizeof F.spool, "%s/spool", F.state);
    if (mkdir(jobs, 0700) || mkdir(F.spool, 0700)) {
        perror("mkdir");
        exit(2);
    }
    F.files = (struct berth__lexec){.state_dir = F.state,
                                    .self_exe = F.exe,
                                    .api_url = "http://127.0.0.1:0",
                                    .spool_dir = F.spool,
                                    .multi_user = 0,
                                    .log_cap = 4096,
                                    .pids_max = 256,
                                    .iso = iso};
    H = (struct berth__exec_host){.ctx = &F,
                                  .files = &F.files,
                                  .gpus = "1x2:a100",
                                  .log = fake_log,
                                  .now = fake_now,
                                  .job_env = fake_job_env,
                                  .job = no_job,
                                  .next_job = no_next_job,
                                  .refuses = no_refuses,
                                  .adopt = no_adopt,
                                  .cancel = no_cancel,
                                  .save = no_save,
                                  .reserve = no_reserve,
                                  .pass_due = no_pass_due,
                                  .counted_read = no_counted_read};
}

static void host_down(void)
{
    if (F.state[0] && nftw(F.state, rm_one, 16, FTW_DEPTH | FTW_PHYS))
        fprintf(stderr, "cannot remove %s\n", F.state);
}

/* ---- helpers ------------------------------------------------------------------------------ */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void nap(void)
{
    struct timespec ts = {0, NAP_NS};
    nanosleep(&ts, NULL);
}

/* Job id of shell script body (its checkpoint signal ckpt, e.g. "USR1"), attempt 1 on GPU 0. */
static struct berth__ljob *job(uint64_t id, const char *script, const char *ckpt)
{
    json_t *o = json_pack("{s:[s],s:b,s:i,s:s,s:{s:s}}", "argv", script, "shell", 1, "gpus", 1,
                          "checkpoint_signal", ckpt, "env", "BERTH_TEST_VAR", "from-the-job");
    struct passwd *pw = getpwuid(geteuid());
    struct berth__ljob *j = NULL;
    struct berth_err err = {0};
    int rc = o && pw ? berth__ljob_from_submit(o, pw->pw_name, geteuid(), getegid(), &j, &err) : -1;
    json_decref(o);
    if (rc) {
        fprintf(stderr, "job %llu: %s\n", (unsigned long long)id, err.msg);
        exit(2);
    }
    berth__ljob_set_id(j, id);
    j->attempt = j->launched = 1;
    CHECK_I64(berth__ljob_slots(j), 0); /* made when a job first runs */
    j->slots[0] = (struct berth__slot){0, 0};
    j->nslots = 1;
    return j;
}

/* The whole of one of the job's own files, or "" (buf holds it). */
static const char *spool_text(const struct berth__ljob *j, const char *file, char *buf, size_t len)
{
    char path[4200];
    berth__lexec_spool(&F.files, j->id, file, path, sizeof path);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return buf;
}

/* Waits until the job's stdout holds needle: 1, or 0 at the deadline. */
static int wait_stdout(const struct berth__ljob *j, const char *needle)
{
    char buf[8192];
    for (int64_t deadline = now_ms() + WAIT_MS;; nap()) {
        if (strstr(spool_text(j, "stdout.log", buf, sizeof buf), needle))
            return 1;
        if (now_ms() >= deadline)
            return 0;
    }
}

/* Polls the attempt (with a sync before each look, as berthd's loop does: it reaps the
 * shims) until it ends: poll's answer, 0 when it still ran at the deadline. */
static int wait_end(void *self, struct berth__ljob *j)
{
    struct berth_err err = {0};
    for (int64_t deadline = now_ms() + WAIT_MS;; nap()) {
        CHECK_I64(X->sync(self, wall_us(), &err), 0);
        int st = X->poll(self, j);
        if (st || now_ms() >= deadline)
            return st;
    }
}

/* 1 while pid runs as the very process that started at start (a zombie has ended). */
static int alive(pid_t pid, uint64_t start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
        return 0;
    return berth__proc_start(pid) == start;
}

/* Waits (reaping shims, as the loop's sync does) until pid has ended: 1, or 0 at the
 * deadline. */
static int wait_gone(void *self, pid_t pid, uint64_t start)
{
    struct berth_err err = {0};
    for (int64_t deadline = now_ms() + WAIT_MS;; nap()) {
        X->sync(self, wall_us(), &err);
        if (!alive(pid, start))
            return 1;
        if (now_ms() >= deadline)
            return 0;
    }
}

/* The attempt's process group as the shim recorded it in aK.pid (0 when there is none). */
static pid_t job_pgid(const struct berth__ljob *j)
{
    char f[32], path[4200];
    snprintf(f, sizeof f, "a%d.pid", j->attempt);
    berth__lexec_path(&F.files, j->id, f, path, sizeof path);
    FILE *fp = fopen(path, "r");
    int pgid = 0;
    if (!fp || fscanf(fp, "%d", &pgid) != 1)
        pgid = 0;
    if (fp)
        fclose(fp);
    return (pid_t)pgid;
}

/* Processes of group pgid that still run (zombies have ended: they wait for whoever
 * inherited them to reap them). */
static int group_running(pid_t pgid)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        char path[300], buf[1024], state;
        int ppid, pgrp;
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        size_t len = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f)
            fclose(f);
        buf[len] = '\0';
        const char *p = strrchr(buf, ')');
        if (p && sscanf(p + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid &&
            state != 'Z' && state != 'X')
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* Waits until nothing of group pgid runs: 1, or 0 at the deadline. */
static int group_gone(pid_t pgid)
{
    for (int64_t deadline = now_ms() + WAIT_MS;; nap()) {
        if (pgid > 1 && !group_running(pgid))
            return 1;
        if (pgid <= 1 || now_ms() >= deadline)
            return 0;
    }
}

/* "WORD PID" in the job's stdout: PID, recorded with its start time (0 when not found). */
static pid_t stdout_pid(const struct berth__ljob *j, const char *word, uint64_t *start)
{
    char buf[8192], key[32];
    snprintf(key, sizeof key, "%s ", word);
    const char *p = strstr(spool_text(j, "stdout.log", buf, sizeof buf), key);
    pid_t pid = p ? (pid_t)strtol(p + strlen(key), NULL, 10) : 0;
    *start = pid > 0 ? berth__proc_start(pid) : 0;
    return pid;
}

static int history_has(const struct berth__ljob *j, const char *note)
{
    for (size_t i = 0; i < j->nhist; i++)
        if (strstr(j->hist[i].note, note))
            return 1;
    return 0;
}

static void *open_local(void)
{
    void *self = NULL;
    struct berth_cluster *inv = NULL;
    struct berth_err err = {0};
    CHECK_I64(X->open(&H, &self, &inv, &err), 0);
    CHECK(self != NULL);
    berth_cluster_free(inv);
    return self;
}

/* ---- the tests ---------------------------------------------------------------------------- */

static void test_open(void)
{
    host_up(NULL);
    void *self = NULL;
    struct berth_cluster *inv = NULL;
    struct berth_err err = {0};
    CHECK_I64(X->open(&H, &self, &inv, &err), 0);
    CHECK(self != NULL && inv != NULL);
    if (inv) {
        CHECK_I64(inv->nsrv, 1);
        CHECK_I64(berth_cluster_gpus(inv), 2);
        CHECK_STR(inv->types[0].name, "a100");
    }
    berth_cluster_free(inv);
    X->close(self);
    /* a bad inventory: an error, and nothing to close or free */
    H.gpus = "2x:nonsense";
    self = NULL, inv = NULL;
    CHECK(X->open(&H, &self, &inv, &err) != 0);
    CHECK(self == NULL && inv == NULL);
    CHECK(err.msg[0] != '\0');
    CHECK_I64(F.nlog, 0);
    host_down();
}

/* A short job: its exit code, its logs, the host's environment, nothing left behind. */
static void test_exit_code(void)
{
    host_up(NULL);
    void *self = open_local();
    struct berth__ljob *j =
        job(1, "echo \"hello $BERTH_JOB_ID $BERTH_ATTEMPT $BERTH_TEST_VAR\"; echo oops >&2; exit 3",
            "TERM");
    struct berth_err err = {0};
    CHECK(!X->started(self, j));
    CHECK_I64(X->launch(self, j, wall_us(), &err), 0);
    CHECK_I64(F.env_calls, 1);
    CHECK(j->shim_pid > 0);
    CHECK(history_has(j, "attempt 1 started (pid"));
    CHECK_I64(j->state, BERTH_L_RUNNING);
    uint64_t shim_start = j->shim_start;
    CHECK_I64(wait_end(self, j), 1);
    CHECK_I64(j->exit_code, 3);
    CHECK_I64(j->exit_signal, -1);
    char buf[4096];
    CHECK_STR(spool_text(j, "stdout.log", buf, sizeof buf), "hello 1 1 from-the-job\n");
    CHECK_STR(spool_text(j, "stderr.log", buf, sizeof buf), "oops\n");
    CHECK(X->started(self, j));
    int64_t out = -1, er = -1;
    CHECK_I64(X->dropped(self, j, &out, &er), -1); /* the cap dropped nothing */
    CHECK(wait_gone(self, j->shim_pid, shim_start));
    CHECK(group_gone(job_pgid(j)));
    CHECK_I64(X->poll(self, j), 1); /* an ended attempt stays ended */
    berth__ljob_free(j);
    X->close(self);
    host_down();
}

/* Output past the log cap: the newest kept, the dropped bytes counted in aK.drop. The job
 * prints 1..2000, one number a line: after the note, the log must hold exactly the newest
 * bytes of that output (a cap that kept the oldest half, as one did when the log was opened
 * write-only and its compaction could not read, fails here). */
static void test_log_cap(void)
{
    host_up(NULL);
    void *self = open_local();
    struct berth__ljob *j = job(2, "seq 1 2000", "TERM");
    struct berth_err err = {0};
    CHECK_I64(X->launch(self, j, wall_us(), &err), 0);
    CHECK_I64(wait_end(self, j), 1);
    CHECK_I64(j->exit_code, 0);
    int64_t out = 0, er = -1;
    CHECK_I64(X->dropped(self, j, &out, &er), 0);
    char full[16000];
    size_t len = 0;
    for (int i = 1; i <= 2000; i++)
        len += (size_t)snprintf(full + len, sizeof full - len, "%d\n", i);
    CHECK(out > 0 && out < (int64_t)len);
    CHECK_I64(er, 0);
    char path[4200], got[8192];
    berth__lexec_spool(&F.files, j->id, "stdout.log", path, sizeof path);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(got, 1, sizeof got - 1, f) : 0;
    if (f)
        fclose(f);
    got[n] = '\0';
    CHECK(n > 0 && (int64_t)n <= F.files.log_cap);
    const char *body = strchr(got, '\n'); /* after the note's line */
    CHECK(body && !strncmp(got, "[berth: ", 8) && strstr(got, "bytes of stdout dropped here"));
    if (body) {
        size_t kept = n - (size_t)(body + 1 - got);
        CHECK(kept > 0 && kept <= len);
        CHECK(!memcmp(body + 1, full + len - kept, kept));
        CHECK_I64((int64_t)(len - kept), out);
    }
    berth__ljob_free(j);
    X->close(self);
    host_down();
}

/* The checkpoint signal is the job's to handle (it traps it and runs on, and so does a child
 * that ignores it); the forced stop then kills the whole group. */
static void test_checkpoint_then_kill(void)
{
    host_up(NULL);
    void *self = open_local();
    struct berth__ljob *j = job(3,
                                "trap 'echo checkpoint' USR1; "
                                "sh -c 'trap \"\" USR1; echo \"child $$\"; exec sleep 600' & "
                                "echo ready; while :; do sleep 0.05; done",
                                "USR1");
    struct berth_err err = {0};
    CHECK_I64(X->launch(self, j, wall_us(), &err), 0);
    uint64_t shim_start = j->shim_start, child_start = 0;
    /* the shim pumps logs only once aK.pid is written; the child ignores the signal once it
     * said who it is */
    CHECK(wait_stdout(j, "ready") && wait_stdout(j, "child "));
    pid_t child = stdout_pid(j, "child", &child_start), pgid = job_pgid(j);
    CHECK(child > 0 && child_start > 0 && pgid > 1);
    CHECK(group_running(pgid) >= 2); /* the job's shell and its child, at least */
    /* force 0: the checkpoint request, which the job traps */
    j->then = BERTH_THEN_REQUEUE;
    X->stop(self, j, 0);
    CHECK(wait_stdout(j, "checkpoint"));
    CHECK_I64(X->poll(self, j), 0);
    CHECK(alive(child, child_start));
    CHECK(!history_has(j, "SIGKILL"));
    /* force 1: the grace period is over */
    X->stop(self, j, 1);
    CHECK(history_has(j, "grace period over: SIGKILL sent"));
    CHECK_I64(wait_end(self, j), 1);
    CHECK_I64(j->exit_signal, SIGKILL);
    CHECK_I64(j->exit_code, -1);
    CHECK(wait_gone(self, child, child_start));
    CHECK(wait_gone(self, j->shim_pid, shim_start));
    CHECK(group_gone(pgid));
    if (alive(child, child_start)) /* a failure must not leave it running */
        kill(child, SIGKILL);
    berth__ljob_free(j);
    X->close(self);
    host_down();
}

/* A journaled attempt that never ran: no shim holds its lock, it left no exit status. */
static void test_lost(void)
{
    host_up(NULL);
    void *self = open_local();
    struct berth__ljob *j = job(4, "true", "TERM");
    j->attempt = j->launched = 2;
    CHECK_I64(X->poll(self, j), 2);
    CHECK(!X->started(self, j));
    CHECK_I64(F.env_calls, 0);
    berth__ljob_free(j);
    X->close(self);
    host_down();
}

static int required(void)
{
    const char *r = getenv("BERTH_REQUIRE");
    char list[256];
    snprintf(list, sizeof list, ",%s,", r ? r : "");
    return strstr(list, ",cgroup,") != NULL;
}

static void skip_cgroup(const char *why)
{
    if (required()) {
        fprintf(stderr, "FAIL exec_local cgroup: %s (BERTH_REQUIRE names cgroup)\n", why);
        check_failures++;
        return;
    }
    printf("SKIP exec_local cgroup: %s\n", why);
}

/* In the attempt's cgroup, a setsid escape ends with the attempt. */
static void test_cgroup_escape(void)
{
    if (geteuid() != 0) {
        skip_cgroup("not root");
        return;
    }
    char instance[64];
    snprintf(instance, sizeof instance, "berthtest-exec-%d", (int)getpid());
    struct berth__iso *iso = NULL;
    struct berth_err err = {0};
    if (berth__iso_open(instance, NULL, &iso, &err)) {
        skip_cgroup(err.msg);
        return;
    }
    if (berth__iso_kind(iso) == BERTH_ISO_NONE) {
        skip_cgroup(berth__iso_describe(iso));
        berth__iso_close(iso);
        return;
    }
    host_up(iso);
    void *self = open_local();
    struct berth__ljob *j = job(5,
                                "setsid sleep 600 </dev/null >/dev/null 2>&1 & echo \"escape $!\"; "
                                "echo ready; exec sleep 600",
                                "TERM");
    CHECK_I64(X->launch(self, j, wall_us(), &err), 0);
    uint64_t shim_start = j->shim_start, esc_start = 0;
    CHECK(wait_stdout(j, "ready"));
    pid_t esc = stdout_pid(j, "escape", &esc_start), pgid = job_pgid(j);
    CHECK(esc > 0 && esc_start > 0);
    j->then = BERTH_THEN_CANCEL;
    X->stop(self, j, 0); /* TERM ends the main process; its cgroup goes with it */
    CHECK_I64(wait_end(self, j), 1);
    CHECK_I64(j->exit_signal, SIGTERM);
    CHECK(wait_gone(self, esc, esc_start));
    CHECK(wait_gone(self, j->shim_pid, shim_start));
    CHECK(group_gone(pgid));
    if (alive(esc, esc_start))
        kill(esc, SIGKILL);
    berth__ljob_free(j);
    X->close(self);
    host_down();
    if (berth__iso_remove_base(iso, &err)) {
        fprintf(stderr, "cleanup: %s\n", err.msg);
        check_failures++;
    }
    berth__iso_close(iso);
}

static const struct check_test tests[] = {
    {"open", test_open},       {"exit_code", test_exit_code},
    {"log_cap", test_log_cap}, {"checkpoint_then_kill", test_checkpoint_then_kill},
    {"lost", test_lost},       {"cgroup_escape", test_cgroup_escape},
};

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "--shim")) /* this program as berthd's shim */
        return berth__shim_main(argv[2], (int)strtol(argv[3], NULL, 10));
    umask(077); /* as berthd: its control files are its own */
    return check_main(argc, argv, tests, sizeof tests / sizeof *tests);
}
