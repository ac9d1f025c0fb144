/* Tests of include/berth/job_client.h, the C job client: progress lines written to a
 * temporary progress file (exact text up to the time stamp), signal names, the checkpoint
 * flag, malformed variables, and the no-op path outside berth. */
#include "berth/job_client.h"

#include <stdlib.h>
#include <sys/time.h>

#include "check.h"
#include "tmpfile.h"

static const char *const job_vars[] = {
    "BERTH_JOB_ID",        "BERTH_API",    "BERTH_JOB_TOKEN",
    "BERTH_PROGRESS_FILE", "BERTH_RESUME", "BERTH_CHECKPOINT_SIGNAL",
    "BERTH_GRACE_S",       "WORLD_SIZE",   "RANK",
    "LOCAL_RANK",
};

static void clear_env(void)
{
    for (size_t i = 0; i < sizeof job_vars / sizeof *job_vars; i++)
        unsetenv(job_vars[i]);
}

static double now_s(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + tv.tv_usec / 1e6;
}

/* Reads a whole small file into buf (NUL-terminated); returns its length. */
static size_t slurp(const char *path, char *buf, size_t size)
{
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, size - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    return n;
}

static void test_signal_names(void)
{
    static const struct {
        const char *name;
        int want;
    } cases[] = {
        {"SIGTERM", SIGTERM},
        {"TERM", SIGTERM},
        {"sigusr1", SIGUSR1},
        {"Usr2", SIGUSR2},
        {" SIGINT ", SIGINT},
        {"SIGHUP", SIGHUP},
        {"QUIT", SIGQUIT},
        {"SIGALRM", SIGALRM},
        {"SIGKILL", SIGKILL}, /* allowed: "no warning", nothing to catch */
        {"cont", SIGCONT},
        {"SIGXCPU", SIGXCPU},
        {"SIGSTOP", -1},
        {"SIGSEGV", -1},
        {"STOP", -1},
        {"SIGFOO", -1},
        {"", -1},
        {"SIG", -1},
        {"15", -1},
        {"SIG TERM", -1},
        {"SIGTERMX", -1},
        {"SIGUSR1SIGUSR1SIGUSR1", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int got = berth_job_client_signal_parse(cases[i].name);
        if (got != cases[i].want)
            fprintf(stderr, "signal name \"%s\"\n", cases[i].name);
        CHECK_I64(got, cases[i].want);
    }
    CHECK_I64(berth_job_client_signal_parse(NULL), -1);
    CHECK_STR(berth_job_client_signal_name(SIGUSR1), "SIGUSR1");
    CHECK_STR(berth_job_client_signal_name(SIGTERM), "SIGTERM");
    CHECK(berth_job_client_signal_name(SIGSTOP) == NULL);
}

/* Outside berth: defaults, no file, every report succeeds without doing anything. */
static void test_noop(void)
{
    struct berth_job_client job;
    clear_env();
    CHECK_I64(berth_job_client_open(&job), 0);
    CHECK_I64(job.fd, -1);
    CHECK_I64(job.resume, 0);
    CHECK_I64(job.ckpt_signal, SIGTERM);
    CHECK_DBL(job.grace_s, -1, 0);
    CHECK_I64(job.rank, 0);
    CHECK_I64(job.world_size, 1);
    CHECK(job.id == NULL);
    CHECK_I64(berth_job_client_report(&job, 0), 0);
    CHECK_I64(berth_job_client_report_metric(&job, 10, 0.5), 0);
    CHECK_I64(berth_job_client_report(&job, -1), -EINVAL); /* checked outside berth too */
    berth_job_client_close(&job);
    berth_job_client_close(&job); /* closing twice is harmless */
}

/* The lines written, in order, exactly as far as the time stamp; the numbers are the
 * shortest of %.15g / %.17g that read back exactly: 0.1 is "0.1", 1/3 needs 17 digits. */
static void test_progress_file(void)
{
    static const char *const want[] = {
        "{\"step\": 3}",
        "{\"step\": 4}",
        "{\"step\": 5, \"metric\": 0.5}",
        "{\"step\": 7, \"metric\": 0.1}",
        "{\"step\": 8, \"metric\": 0.33333333333333331}",
        "{\"step\": 9, \"metric\": -2.5e-07}",
        "{\"step\": 1099511627776, \"metric\": 1e+300}",
        "{\"step\": 1099511627777, \"metric\": 2}",
    };
    struct tmp t;
    struct berth_job_client job;
    char buf[4096];
    tmp_open(&t);
    clear_env();
    /* an earlier run's line stays: the file is appended to */
    setenv("BERTH_PROGRESS_FILE", tmp_write(&t, "progress.jsonl", "{\"step\": 3}\n"), 1);
    setenv("BERTH_JOB_ID", "42", 1);
    setenv("BERTH_RESUME", "1", 1);
    setenv("BERTH_CHECKPOINT_SIGNAL", "usr1", 1);
    setenv("BERTH_GRACE_S", "30.5", 1);
    setenv("WORLD_SIZE", "2", 1);
    setenv("RANK", "1", 1);
    setenv("LOCAL_RANK", "1", 1);
    double t0 = now_s();
    CHECK_I64(berth_job_client_open(&job), 0);
    CHECK(job.fd >= 0);
    CHECK_I64(job.resume, 1);
    CHECK_I64(job.ckpt_signal, SIGUSR1);
    CHECK_DBL(job.grace_s, 30.5, 0);
    CHECK_I64(job.world_size, 2);
    CHECK_I64(job.rank, 1);
    CHECK_I64(job.local_rank, 1);
    CHECK_STR(job.id, "42");
    CHECK_I64(berth_job_client_report(&job, 4), 0);
    CHECK_I64(berth_job_client_report_metric(&job, 5, 0.5), 0);
    CHECK_I64(berth_job_client_report_metric(&job, 7, 0.1), 0);
    CHECK_I64(berth_job_client_report_metric(&job, 8, 1.0 / 3), 0);
    CHECK_I64(berth_job_client_report_metric(&job, 9, -2.5e-7), 0);
    CHECK_I64(berth_job_client_report_metric(&job, 1LL << 40, 1e300), 0);
    CHECK_I64(berth_job_client_report_metric(&job, (1LL << 40) + 1, 2.0), 0);
    /* refused reports write nothing */
    CHECK_I64(berth_job_client_report_metric(&job, 10, NAN), -EINVAL);
    CHECK_HAS(job.msg, "metric must be finite");
    CHECK_I64(berth_job_client_report_metric(&job, 10, INFINITY), -EINVAL);
    CHECK_I64(berth_job_client_report(&job, -3), -EINVAL);
    CHECK_HAS(job.msg, "step must be >= 0, found -3");
    double t1 = now_s();
    berth_job_client_close(&job);

    slurp(tmp_path(&t, "progress.jsonl"), buf, sizeof buf);
    char *line = buf;
    size_t n = 0;
    for (char *nl; (nl = strchr(line, '\n')); line = nl + 1, n++) {
        *nl = '\0';
        if (n >= sizeof want / sizeof *want) {
            CHECK(!"more lines than written");
            break;
        }
        if (n == 0) { /* the earlier run's line, as it was */
            CHECK_STR(line, want[0]);
            continue;
        }
        /* "<want>, \"time\": S.mmm}" with S.mmm between t0 and t1 */
        size_t k = strlen(want[n]) - 1; /* without the closing brace */
        CHECK(strncmp(line, want[n], k) == 0);
        if (strncmp(line, want[n], k))
            fprintf(stderr, "line %zu: %s\nwant:   %s\n", n + 1, line, want[n]);
        const char *ts = strstr(line, ", \"time\": ");
        CHECK(ts == line + k);
        if (ts) {
            char *end;
            double tm = strtod(ts + 10, &end);
            CHECK_STR(end, "}");
            CHECK(tm >= t0 - 0.002 && tm <= t1 + 0.002);
        }
    }
    CHECK_I64(n, sizeof want / sizeof *want);
    CHECK_STR(line, ""); /* nothing after the last newline */
    clear_env();
    tmp_close(&t);
}

/* Each malformed variable is refused with its name in the message, and nothing opened. */
static void test_bad_env(void)
{
    static const struct {
        const char *var, *value, *msg;
        int rc;
    } cases[] = {
        {"BERTH_RESUME", "yes", "BERTH_RESUME: expected 1 (or unset), found \"yes\"", -EINVAL},
        {"BERTH_CHECKPOINT_SIGNAL", "SIGSTOP", "BERTH_CHECKPOINT_SIGNAL: unknown signal", -EINVAL},
        {"BERTH_GRACE_S", "-1", "BERTH_GRACE_S: expected seconds >= 0", -EINVAL},
        {"BERTH_GRACE_S", "soon", "BERTH_GRACE_S", -EINVAL},
        {"WORLD_SIZE", "0", "WORLD_SIZE: expected an integer >= 1, found \"0\"", -EINVAL},
        {"RANK", "x", "RANK: expected an integer >= 0", -EINVAL},
        {"RANK", "1", "RANK: 1 is not below WORLD_SIZE 1", -EINVAL},
        {"LOCAL_RANK", "99999999999", "LOCAL_RANK", -EINVAL},
        {"BERTH_PROGRESS_FILE", "progress.jsonl", "expected an absolute path", -EINVAL},
        {"BERTH_PROGRESS_FILE", "/nonexistent-berth-dir/p.jsonl",
         "cannot open progress file /nonexistent-berth-dir/p.jsonl", -ENOENT},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct berth_job_client job;
        clear_env();
        setenv(cases[i].var, cases[i].value, 1);
        CHECK_I64(berth_job_client_open(&job), cases[i].rc);
        CHECK_HAS(job.msg, cases[i].msg);
        CHECK_I64(job.fd, -1);
    }
    clear_env();
}

/* The handler raises the flag for the named signal only; clear lowers it. */
static void test_checkpoint_flag(void)
{
    struct berth_job_client job;
    clear_env();
    setenv("BERTH_CHECKPOINT_SIGNAL", "SIGUSR2", 1);
    CHECK_I64(berth_job_client_open(&job), 0);
    CHECK_I64(berth_job_client_install_checkpoint_handler(&job), 0);
    CHECK_I64(berth_job_client_checkpoint_requested(), 0);
    raise(SIGUSR2); /* delivered before raise returns, to this thread */
    CHECK_I64(berth_job_client_checkpoint_requested(), 1);
    berth_job_client_clear_checkpoint_request();
    CHECK_I64(berth_job_client_checkpoint_requested(), 0);
    signal(SIGUSR2, SIG_DFL);
    berth_job_client_close(&job);
    /* SIGKILL: preempted without warning; nothing to catch, and that is no error */
    setenv("BERTH_CHECKPOINT_SIGNAL", "SIGKILL", 1);
    CHECK_I64(berth_job_client_open(&job), 0);
    CHECK_I64(job.ckpt_signal, SIGKILL);
    CHECK_I64(berth_job_client_install_checkpoint_handler(&job), 0);
    CHECK_I64(berth_job_client_checkpoint_requested(), 0);
    berth_job_client_close(&job);
    clear_env();
}

static const struct check_test tests[] = {
    {"signal_names", test_signal_names},       {"noop", test_noop},
    {"progress_file", test_progress_file},     {"bad_env", test_bad_env},
    {"checkpoint_flag", test_checkpoint_flag},
};

CHECK_MAIN(tests)
