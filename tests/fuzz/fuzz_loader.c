/* libFuzzer harness for one trace loader, chosen at compile time (-DFUZZ_FORMAT="native"):
 * each input becomes a file that is loaded strict and lenient. Beyond crashes, leaks and
 * undefined behaviour it checks the loader's contract: errors name the file, a strict success
 * is a lenient success with the same jobs, every job is sane, and the native CSV written from
 * a loaded trace reads back as the same jobs (what `berth trace convert` relies on).
 * (The status field is not part of native CSV and is not compared.)
 * pai2020 reads two tables: its input is split at the first line that is exactly "--" into
 * the job table (the bytes before that line) and the task table (the bytes after it; empty
 * when there is no such line), loaded as "JOBS,TASKS". */
#include "berth/trace.h"

#ifndef FUZZ_FORMAT
#error "build with -DFUZZ_FORMAT=\"format name\""
#endif

#define FUZZ_WHO "fuzz_loader (" FUZZ_FORMAT ")"
#include "fuzz_util.h"
#include "../jobspec_eq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* in_path: the input (pai2020: its job table), in2_path: pai2020's task table, load_path:
 * what is loaded (in_path, or "in_path,in2_path") */
static char in_path[256], in2_path[256], out_path[256], load_path[520];

static int two_tables(void)
{
    return !strcmp(FUZZ_FORMAT, "pai2020");
}

static void fuzz_cleanup(void)
{
    unlink(in_path);
    unlink(in2_path);
    unlink(out_path);
}

/* Three scratch files, made once per process. */
static int scratch(void)
{
    if (in_path[0])
        return 0;
    fuzz_scratch(in_path, sizeof in_path, "in");
    fuzz_scratch(in2_path, sizeof in2_path, "in2");
    fuzz_scratch(out_path, sizeof out_path, "out");
    if (two_tables())
        snprintf(load_path, sizeof load_path, "%s,%s", in_path, in2_path);
    else
        snprintf(load_path, sizeof load_path, "%s", in_path);
    atexit(fuzz_cleanup);
    return 0;
}

static void check_job(const struct berth_jobspec *j, size_t i)
{
    ENSURE(j->id && berth_jobspec_extra(j)->job_type && berth_jobspec_extra(j)->user && j->queue &&
               berth_jobspec_extra(j)->gpu_type && berth_jobspec_extra(j)->status,
           "job %zu: NULL string", i);
    ENSURE(j->duration_us > 0 ||
               (j->duration_us == 0 && j->total_steps > 0 && berth_jobspec_extra(j)->job_type[0]),
           "job %zu: duration %lld us (none only with job_type and total_steps)", i,
           (long long)j->duration_us);
    ENSURE(j->arrival_us >= 0, "job %zu: arrival %lld us", i, (long long)j->arrival_us);
    ENSURE(j->num_gpus >= 1 ||
               (j->num_gpus == 0 && j->max_gpus == 0 &&
                (berth_jobspec_extra(j)->cpu_milli || berth_jobspec_extra(j)->mem_mib)),
           "job %zu: %d GPUs (max %d, %lld milli-CPUs, %lld MiB)", i, j->num_gpus, j->max_gpus,
           (long long)berth_jobspec_extra(j)->cpu_milli,
           (long long)berth_jobspec_extra(j)->mem_mib);
    ENSURE(j->min_gpus >= 0 && j->min_gpus <= j->num_gpus && j->max_gpus >= j->num_gpus,
           "job %zu: GPUs %d in [%d, %d]", i, j->num_gpus, j->min_gpus, j->max_gpus);
    ENSURE(j->gpu_share_milli >= 1 && j->gpu_share_milli <= 1000, "job %zu: share %d", i,
           j->gpu_share_milli);
    ENSURE(j->gpu_share_milli == 1000 || j->num_gpus == 1, "job %zu: share %d of %d GPUs", i,
           j->gpu_share_milli, j->num_gpus);
    ENSURE(berth_jobspec_extra(j)->cpu_milli >= 0 && berth_jobspec_extra(j)->mem_mib >= 0 &&
               berth_jobspec_extra(j)->gpu_mem_mib >= 0 && j->total_steps >= 0,
           "job %zu: negative amount", i);
}

/* Writes t as native CSV and reads it back: the same jobs, in the same order. */
static void round_trip(const struct berth_trace *t)
{
    struct berth_err err = {0};
    FILE *f = fopen(out_path, "w");
    ENSURE(f, "cannot open %s", out_path);
    int rc = berth_trace_write_native(f, berth_trace_jobs(t), berth_trace_count(t), &err);
    ENSURE(fclose(f) == 0 && rc == 0, "writing native CSV: %s", err.msg);
    struct berth_trace *b = NULL;
    rc = berth_trace_load(out_path, "native", &b, &err);
    ENSURE(rc == 0, "the native CSV written from a loaded trace does not load: %s", err.msg);
    size_t n = berth_trace_count(t);
    ENSURE(berth_trace_count(b) == n, "%zu jobs written, %zu read back", n, berth_trace_count(b));
    for (size_t i = 0; i < n; i++)
        ENSURE(same_job(&berth_trace_jobs(t)[i], &berth_trace_jobs(b)[i]),
               "job %zu (id \"%s\", line %u) differs after the native round trip", i,
               berth_trace_jobs(t)[i].id, berth_trace_jobs(t)[i].line);
    berth_trace_free(b);
}

/* Where the first line that is exactly "--" starts (size when there is none). */
static size_t separator(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i + 2 <= size; i++)
        if ((i == 0 || data[i - 1] == '\n') && data[i] == '-' && data[i + 1] == '-' &&
            (i + 2 == size || data[i + 2] == '\n'))
            return i;
    return size;
}

/* The error names the file (either table for pai2020). */
static int names_input(const char *msg)
{
    return strstr(msg, in_path) || (two_tables() && strstr(msg, in2_path));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    scratch();
    if (two_tables()) {
        size_t sep = separator(data, size);
        size_t rest = sep + 3 <= size ? sep + 3 : size; /* after "--\n" */
        fuzz_write_file(in_path, data, sep);
        fuzz_write_file(in2_path, data + rest, size - rest);
    } else {
        fuzz_write_file(in_path, data, size);
    }

    struct berth_trace *t[2] = {NULL, NULL};
    struct berth_load_report rep[2];
    int rc[2];
    for (int lenient = 0; lenient < 2; lenient++) {
        struct berth_load_opts o = {.format = FUZZ_FORMAT, .lenient = lenient};
        struct berth_err err = {0};
        rc[lenient] = berth_trace_load_opts(load_path, &o, &rep[lenient], &t[lenient], &err);
        if (rc[lenient]) {
            ENSURE(rc[lenient] == BERTH_EINPUT || rc[lenient] == BERTH_EIO ||
                       rc[lenient] == BERTH_ENOMEM,
                   "unexpected code %d: %s", rc[lenient], err.msg);
            ENSURE(names_input(err.msg), "the message does not name the file: %s", err.msg);
            continue;
        }
        size_t n = berth_trace_count(t[lenient]);
        ENSURE(n >= 1 && n == rep[lenient].jobs, "%zu jobs, report says %zu", n, rep[lenient].jobs);
        ENSURE(rep[lenient].jobs <= rep[lenient].rows, "%zu jobs from %zu rows", rep[lenient].jobs,
               rep[lenient].rows);
        ENSURE(rep[lenient].nreasons <= BERTH_LOAD_MAX_REASONS, "%zu reasons",
               rep[lenient].nreasons);
        for (size_t i = 0; i < n; i++)
            check_job(&berth_trace_jobs(t[lenient])[i], i);
    }
    if (rc[0] == 0) { /* strict success: lenient loads the same jobs and finds no bad row */
        ENSURE(rc[1] == 0, "strict load succeeded, lenient failed");
        size_t n = berth_trace_count(t[0]);
        ENSURE(berth_trace_count(t[1]) == n, "strict %zu jobs, lenient %zu", n,
               berth_trace_count(t[1]));
        for (size_t i = 0; i < n; i++)
            ENSURE(same_job(&berth_trace_jobs(t[0])[i], &berth_trace_jobs(t[1])[i]),
                   "job %zu differs between strict and lenient", i);
        for (size_t i = 0; i < rep[0].nreasons; i++)
            ENSURE(!rep[0].reasons[i].bad, "strict success with a bad row: %s",
                   rep[0].reasons[i].reason);
        round_trip(t[0]);
    } else if (rc[1] == 0) {
        round_trip(t[1]);
    }
    berth_trace_free(t[0]);
    berth_trace_free(t[1]);
    return 0;
}
