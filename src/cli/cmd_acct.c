/* `berth acct`: accounting from berthd's journal, in the habits of sacct (one line per job:
 * wait, run time, GPU-hours, state, exit) and sreport (totals per user, queue and GPU type
 * over --since/--until), as a table, --json or --csv. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "client.h"

struct acct_args {
    struct cli_client c;
    const char *since, *until, *user, *queue;
    int totals, json, csv;
};

#define A struct acct_args
static const struct cli_flag acct_flags[] = {
    {"since", 'S', "T",
     "jobs whose life reaches past T: a local date or time (2026-12-01, 2026-12-01 14:00), "
     "'now', or an age (7d, 12h, 30m: that long ago); default: all",
     CLI_STR_AT(A, since), .bits = CLI_QUIET_LETTER | CLI_ONCE},
    {"until", 'E', "T", "and that began before T (same forms; default: now)", CLI_STR_AT(A, until),
     .bits = CLI_QUIET_LETTER | CLI_ONCE},
    {"user", 'u', "U", "only user U's jobs (an admin's; a user sees only their own)",
     CLI_STR_AT(A, user), .bits = CLI_QUIET_LETTER | CLI_ONCE},
    {"queue", 'q', "Q", "only queue Q's jobs", CLI_STR_AT(A, queue),
     .bits = CLI_QUIET_LETTER | CLI_ONCE},
    {"totals", 0, NULL, "only the totals per user, queue and GPU type (sreport)",
     CLI_ON_AT(A, totals)},
    {"json", 0, NULL, "print berthd's JSON (jobs and totals)", CLI_ON_AT(A, json)},
    {"csv", 0, NULL, "print CSV: one row per job (with --totals: per user, queue and type)",
     CLI_ON_AT(A, csv)},
    {0},
};
#undef A

static const struct cli_section acct_sections[] = {
    {NULL, acct_flags, 0},
    {NULL, cli_client_table, offsetof(struct acct_args, c)},
    {0},
};

static const struct cli_spec acct_spec = {
    .cmd = "acct",
    .usage = "acct [--since T] [--until T] [--user U] [--queue Q] [--totals] [--json | --csv] "
             "[--server URL] [--token TOKEN] [--socket PATH]",
    .about = "Accounting from berthd's journal, like sacct and sreport: every job whose life "
             "overlaps the window, with its wait, run time in the window, GPU-hours (GPUs x "
             "share x run time), state and exit, then the totals per user, queue and GPU type. "
             "A user sees their own jobs; an admin everyone's.",
    .sections = acct_sections,
};

/* T as Unix seconds: a local date ("2026-12-01"), date and time ("2026-12-01 14:00[:05]" or
 * with 'T'), "now", or an age ("7d", "12h", "30m", "90s" ago). 0 or -1. */
static int when(const char *s, double *out)
{
    time_t now = time(NULL);
    if (!strcmp(s, "now")) {
        *out = (double)now;
        return 0;
    }
    char *end;
    double x = strtod(s, &end);
    if (end != s && end[0] && !end[1] && strchr("dhms", end[0]) && isfinite(x) && x >= 0) {
        double unit = end[0] == 'd' ? 86400 : end[0] == 'h' ? 3600 : end[0] == 'm' ? 60 : 1;
        *out = (double)now - x * unit;
        return 0;
    }
    struct tm tm = {0};
    int y, mo, d, h = 0, mi = 0, sec = 0, n = 0;
    char sep;
    if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3)
        return -1;
    if (s[n]) {
        int m = 0;
        if (sscanf(s + n, "%c%2d:%2d%n", &sep, &h, &mi, &m) != 3 || (sep != ' ' && sep != 'T'))
            return -1;
        n += m;
        if (s[n] == ':' && sscanf(s + n, ":%2d%n", &sec, &m) == 1)
            n += m;
        if (s[n])
            return -1;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return -1;
    tm = (struct tm){.tm_year = y - 1900,
                     .tm_mon = mo - 1,
                     .tm_mday = d,
                     .tm_hour = h,
                     .tm_min = mi,
                     .tm_sec = sec,
                     .tm_isdst = -1};
    time_t t = mktime(&tm);
    if (t == (time_t)-1)
        return -1;
    *out = (double)t;
    return 0;
}

static void hms(double s, char *buf, size_t len)
{
    long long t = (long long)(s + 0.5), d = t / 86400;
    if (d)
        snprintf(buf, len, "%lld-%02lld:%02lld:%02lld", d, t / 3600 % 24, t / 60 % 60, t % 60);
    else
        snprintf(buf, len, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
}

static const char *str_of(const json_t *j, const char *k)
{
    const char *s = json_string_value(json_object_get(j, k));
    return s ? s : "";
}

/* A job's exit: "0", "137", "sig 9", or "-". */
static void exit_of(const json_t *j, char *buf, size_t len)
{
    const json_t *c = json_object_get(j, "exit_code"), *s = json_object_get(j, "exit_signal");
    if (json_is_integer(s))
        snprintf(buf, len, "sig %lld", (long long)json_integer_value(s));
    else if (json_is_integer(c))
        snprintf(buf, len, "%lld", (long long)json_integer_value(c));
    else
        snprintf(buf, len, "-");
}

/* CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv(const char *s, int last)
{
    if (strpbrk(s, ",\"\r\n")) {
        putchar('"');
        for (; *s; s++) {
            if (*s == '"')
                putchar('"');
            putchar(*s);
        }
        putchar('"');
    } else {
        fputs(s, stdout);
    }
    putchar(last ? '\n' : ',');
}

/* CSV fields of numbers: v in fmt; an integer, or "" when v is not one (null). */
static void csv_num(const char *fmt, double v, int last)
{
    char b[64];
    snprintf(b, sizeof b, fmt, v);
    csv(b, last);
}

static void csv_int(const json_t *v, int last)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)json_integer_value(v));
    csv(json_is_integer(v) ? b : "", last);
}

static void print_jobs(const json_t *jobs, int as_csv)
{
    const json_t *j;
    size_t i;
    if (as_csv)
        printf("id,user,queue,name,state,gpus,gpu_type,wait_s,run_s,gpu_hours,exit_code,"
               "exit_signal\n");
    else
        printf("%8s %-10s %-10s %-16s %-10s %4s %-6s %11s %11s %9s %6s\n", "ID", "USER", "QUEUE",
               "NAME", "STATE", "GPUS", "TYPE", "WAIT", "ELAPSED", "GPU-HOURS", "EXIT");
    json_array_foreach(jobs, i, j)
    {
        char cu[64], cq[64], cn[64], ct[64], w[32], e[32], x[32];
        cli_clean(str_of(j, "user"), cu, sizeof cu);
        cli_clean(str_of(j, "queue"), cq, sizeof cq);
        cli_clean(str_of(j, "name"), cn, sizeof cn);
        cli_clean(str_of(j, "gpu_type"), ct, sizeof ct);
        double wait = json_number_value(json_object_get(j, "wait_s"));
        double run = json_number_value(json_object_get(j, "run_s"));
        double gh = json_number_value(json_object_get(j, "gpu_hours"));
        if (as_csv) {
            csv_int(json_object_get(j, "id"), 0);
            csv(cu, 0);
            csv(cq, 0);
            csv(cn, 0);
            csv(str_of(j, "state"), 0);
            csv_int(json_object_get(j, "gpus"), 0);
            csv(ct, 0);
            csv_num("%.3f", wait, 0);
            csv_num("%.3f", run, 0);
            csv_num("%.6f", gh, 0);
            csv_int(json_object_get(j, "exit_code"), 0);
            csv_int(json_object_get(j, "exit_signal"), 1);
            continue;
        }
        hms(wait, w, sizeof w);
        hms(run, e, sizeof e);
        exit_of(j, x, sizeof x);
        printf("%8lld %-10.10s %-10.10s %-16.16s %-10.10s %4lld %-6.6s %11s %11s %9.2f %6s\n",
               (long long)json_integer_value(json_object_get(j, "id")), cu, cq, cn,
               str_of(j, "state"), (long long)json_integer_value(json_object_get(j, "gpus")), ct, w,
               e, gh, x);
    }
}

static void print_group(const char *title, const json_t *by, int as_csv)
{
    const char *k;
    const json_t *t;
    if (!as_csv)
        printf("\n%-16s %6s %10s %10s %11s\n", title, "JOBS", "GPU-HOURS", "RUN-HOURS", "AVG-WAIT");
    json_object_foreach((json_t *)by, k, t)
    {
        double jobs = (double)json_integer_value(json_object_get(t, "jobs"));
        double gh = json_number_value(json_object_get(t, "gpu_hours"));
        double rh = json_number_value(json_object_get(t, "run_hours"));
        double wh = json_number_value(json_object_get(t, "wait_hours"));
        char ck[64], w[32];
        cli_clean(k, ck, sizeof ck);
        if (as_csv) {
            csv(title, 0);
            csv(ck, 0);
            csv_num("%.0f", jobs, 0);
            csv_num("%.6f", gh, 0);
            csv_num("%.6f", rh, 0);
            csv_num("%.3f", jobs > 0 ? wh * 3600 / jobs : 0, 1);
            continue;
        }
        hms(jobs > 0 ? wh * 3600 / jobs : 0, w, sizeof w);
        printf("%-16.16s %6.0f %10.2f %10.2f %11s\n", ck, jobs, gh, rh, w);
    }
}

int cmd_acct(int argc, char **argv)
{
    struct acct_args a = {0};
    int nargs, rc = cli_flags_parse(&acct_spec, argc, argv, &a, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (nargs)
        return cli_usage_error("acct", "unexpected argument '%s' (see berth acct --help)", argv[1]);
    if (a.json && a.csv)
        return cli_usage_error("acct",
                               "--json and --csv: give one of them (see berth acct --help)");
    double since = 0, until = 0;
    if (a.since && when(a.since, &since))
        return cli_usage_error("acct",
                               "--since: expected a local date (2026-12-01), a date and time "
                               "(2026-12-01 14:00), now, or an age (7d, 12h, 30m), found '%s' "
                               "(see berth acct --help)",
                               a.since);
    if (a.until && when(a.until, &until))
        return cli_usage_error("acct",
                               "--until: expected a local date (2026-12-01), a date and time "
                               "(2026-12-01 14:00), now, or an age (7d, 12h, 30m), found '%s' "
                               "(see berth acct --help)",
                               a.until);
    if (a.until && until <= since)
        return cli_usage_error("acct",
                               "--until: expected a time after --since (see berth acct --help)");
    char path[1024], uq[300], qq[300];
    size_t o = (size_t)snprintf(path, sizeof path, "/v1/acct?x=1");
    if (a.since)
        o += (size_t)snprintf(path + o, sizeof path - o, "&since=%.0f", since);
    if (a.until)
        o += (size_t)snprintf(path + o, sizeof path - o, "&until=%.0f", until);
    if (cli_query_escape(a.user, uq, sizeof uq) || cli_query_escape(a.queue, qq, sizeof qq))
        return cli_usage_error("acct", "filters too long (see berth acct --help)");
    if (a.user)
        o += (size_t)snprintf(path + o, sizeof path - o, "&user=%s", uq);
    if (a.queue)
        o += (size_t)snprintf(path + o, sizeof path - o, "&queue=%s", qq);
    if (o >= sizeof path)
        return cli_usage_error("acct", "filters too long (see berth acct --help)");
    if (a.totals && !a.json)
        o += (size_t)snprintf(path + o, sizeof path - o, "&limit=0"); /* no rows wanted */
    if (o >= sizeof path)
        return cli_usage_error("acct", "filters too long (see berth acct --help)");
    struct cli_client c = a.c;
    struct cli_reply r;
    if ((rc = cli_client_init(&c, "acct")) || (rc = cli_call(&c, "GET", path, NULL, &r)))
        return rc;
    rc = cli_reply_check(&c, &r);
    /* berthd answers at most 10,000 rows at a time: the next pages, after the last row */
    for (json_t *next = rc ? NULL : json_object_get(r.json, "next_after");
         !rc && json_is_integer(next); next = json_object_get(r.json, "next_after")) {
        char more[1100];
        struct cli_reply p;
        snprintf(more, sizeof more, "%s&after=%lld", path, (long long)json_integer_value(next));
        if ((rc = cli_call(&c, "GET", more, NULL, &p)))
            break;
        if (!(rc = cli_reply_check(&c, &p))) {
            json_array_extend(json_object_get(r.json, "jobs"), json_object_get(p.json, "jobs"));
            json_object_set(r.json, "next_after", json_object_get(p.json, "next_after"));
        }
        cli_reply_free(&p);
    }
    if (!rc) {
        const json_t *tot = json_object_get(r.json, "totals");
        if (a.json) {
            char *s = json_dumps(r.json, JSON_INDENT(2));
            printf("%s\n", s ? s : "{}");
            free(s);
        } else if (a.csv && a.totals) {
            printf("by,name,jobs,gpu_hours,run_hours,avg_wait_s\n");
            print_group("user", json_object_get(tot, "by_user"), 1);
            print_group("queue", json_object_get(tot, "by_queue"), 1);
            print_group("gpu_type", json_object_get(tot, "by_gpu_type"), 1);
        } else if (a.csv) {
            print_jobs(json_object_get(r.json, "jobs"), 1);
        } else {
            if (!a.totals)
                print_jobs(json_object_get(r.json, "jobs"), 0);
            printf("%s%lld jobs, %.2f GPU-hours", a.totals ? "" : "\n",
                   (long long)json_integer_value(json_object_get(tot, "jobs")),
                   json_number_value(json_object_get(tot, "gpu_hours")));
            if (a.since)
                printf(" of %.2f available (%.1f %% utilisation)",
                       json_number_value(json_object_get(tot, "gpu_hours_available")),
                       100 * json_number_value(json_object_get(tot, "utilisation")));
            printf("\n");
            print_group("USER", json_object_get(tot, "by_user"), 0);
            print_group("QUEUE", json_object_get(tot, "by_queue"), 0);
            print_group("GPU TYPE", json_object_get(tot, "by_gpu_type"), 0);
        }
    }
    cli_reply_free(&r);
    return rc;
}
