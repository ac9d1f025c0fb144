/* Tests for berth_gen (src/io/gen.c): determinism, the gavel and philly profiles' statistics
 * against their definitions and the real Philly figures, arrival rates, option errors, and a
 * native-CSV round trip. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "berth/berth.h"
#include "check.h"

static struct berth_trace *gen(const char *profile, size_t jobs, double rate, uint64_t seed)
{
    struct berth_gen_opts o;
    berth_gen_opts_init(&o);
    o.profile = profile;
    o.jobs = jobs;
    o.rate_per_hour = rate;
    o.seed = seed;
    struct berth_err err = {0};
    struct berth_trace *t = NULL;
    int rc = berth_gen(&o, &t, &err);
    if (rc)
        fprintf(stderr, "berth_gen: %s\n", err.msg);
    CHECK_I64(rc, 0);
    return t;
}

/* The native CSV of a trace, in a malloc'd string. */
static char *csv_of(const struct berth_trace *t, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    struct berth_err err = {0};
    CHECK_I64(berth_trace_write_native(f, berth_trace_jobs(t), berth_trace_count(t), &err), 0);
    fclose(f);
    return buf;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* numpy's default (linear-interpolated) percentile of sorted xs, q in [0, 1]. */
static double pct(const int64_t *xs, size_t n, double q)
{
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)floor(h), hi = (size_t)ceil(h);
    return (double)xs[lo] + (double)(xs[hi] - xs[lo]) * (h - (double)lo);
}

/* Duration percentiles (seconds) of a trace. */
struct dstats {
    double median, p90, p99, mean, mean_gap_s;
};

static struct dstats duration_stats(const struct berth_trace *t)
{
    size_t n = berth_trace_count(t);
    const struct berth_jobspec *j = berth_trace_jobs(t);
    int64_t *d = malloc(n * sizeof *d);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        d[i] = j[i].duration_us / BERTH_US_PER_S;
        sum += (double)d[i];
    }
    qsort(d, n, sizeof *d, cmp_i64);
    struct dstats s = {pct(d, n, 0.5), pct(d, n, 0.9), pct(d, n, 0.99), sum / (double)n,
                       (double)(j[n - 1].arrival_us - j[0].arrival_us) / 1e6 / (double)(n - 1)};
    free(d);
    return s;
}

/* What every generated trace satisfies: ids 1..N, lines i+2, whole seconds, arrivals from 0
 * and non-decreasing, durations >= 1 s. */
static void check_shape(const struct berth_trace *t, size_t n)
{
    CHECK_I64(berth_trace_count(t), n);
    CHECK_STR(berth_trace_path(t), "<generated>");
    const struct berth_jobspec *j = berth_trace_jobs(t);
    CHECK_I64(j[0].arrival_us, 0);
    size_t bad_id = 0, bad_line = 0, bad_order = 0, bad_round = 0, bad_dur = 0, bad_gpus = 0;
    for (size_t i = 0; i < n; i++) {
        char id[24];
        snprintf(id, sizeof id, "%zu", i + 1);
        bad_id += strcmp(j[i].id, id) != 0;
        bad_line += j[i].line != i + 2;
        bad_order += i > 0 && j[i].arrival_us < j[i - 1].arrival_us;
        bad_round += j[i].arrival_us % BERTH_US_PER_S != 0 || j[i].duration_us % BERTH_US_PER_S;
        bad_dur += j[i].duration_us < BERTH_US_PER_S;
        bad_gpus += j[i].num_gpus < 1 || j[i].min_gpus != j[i].num_gpus ||
                    j[i].max_gpus != j[i].num_gpus || j[i].gpu_share_milli != 1000;
    }
    CHECK_I64(bad_id, 0);
    CHECK_I64(bad_line, 0);
    CHECK_I64(bad_order, 0);
    CHECK_I64(bad_round, 0);
    CHECK_I64(bad_dur, 0);
    CHECK_I64(bad_gpus, 0);
}

static void test_profiles_list(void)
{
    const char *const *p = berth_gen_profiles();
    CHECK_STR(p[0], "gavel");
    CHECK_STR(p[1], "philly");
    CHECK_STR(p[2], "llm");
    CHECK(p[3] == NULL);
    struct berth_gen_opts o;
    berth_gen_opts_init(&o);
    CHECK_STR(o.profile, "philly");
    CHECK_I64(o.jobs, 1000);
    CHECK_I64(o.seed, 1);
    CHECK(o.rate_per_hour <= 0);
}

static void test_determinism(void)
{
    const char *profiles[] = {"gavel", "philly", "llm"};
    for (int k = 0; k < 3; k++) {
        struct berth_trace *a = gen(profiles[k], 20000, 0, 7);
        struct berth_trace *b = gen(profiles[k], 20000, 0, 7);
        struct berth_trace *c = gen(profiles[k], 20000, 0, 8);
        if (!a || !b || !c)
            goto out;
        size_t la, lb, lc;
        char *sa = csv_of(a, &la), *sb = csv_of(b, &lb), *sc = csv_of(c, &lc);
        CHECK(la == lb && memcmp(sa, sb, la) == 0);
        CHECK(la != lc || memcmp(sa, sc, la) != 0);
        /* a prefix of a longer run is the shorter run: one stream, drawn job by job */
        struct berth_trace *d = gen(profiles[k], 100, 0, 7);
        if (d) {
            size_t ld;
            char *sd = csv_of(d, &ld);
            CHECK(ld < la && memcmp(sa, sd, ld) == 0);
            free(sd);
        }
        berth_trace_free(d);
        free(sa);
        free(sb);
        free(sc);
    out:
        berth_trace_free(a);
        berth_trace_free(b);
        berth_trace_free(c);
    }
}

/* Tolerances below are about 4 standard deviations of the statistic over 100,000 jobs. */
static void test_gavel(void)
{
    const size_t n = 100000;
    struct berth_trace *t = gen("gavel", n, 0, 42);
    if (!t)
        return;
    check_shape(t, n);
    const struct berth_jobspec *j = berth_trace_jobs(t);
    size_t gpus[9] = {0}, other = 0, short_ = 0, out_of_range = 0, queued = 0, untyped = 0;
    size_t cyclegan = 0, multi_cyclegan = 0;
    for (size_t i = 0; i < n; i++) {
        int g = j[i].num_gpus;
        untyped += !berth_jobspec_extra(&j[i])->job_type[0] || j[i].total_steps < 1;
        /* CycleGAN is measured on 1 GPU only: Gavel never makes it a multi-GPU job */
        cyclegan += !strcmp(berth_jobspec_extra(&j[i])->job_type, "CycleGAN");
        multi_cyclegan += !strcmp(berth_jobspec_extra(&j[i])->job_type, "CycleGAN") && g > 1;
        if (g == 1 || g == 2 || g == 4 || g == 8)
            gpus[g]++;
        else
            other++;
        int64_t d = j[i].duration_us / BERTH_US_PER_S;
        /* 60 * 10^1.5 = 1897.4 and 60 * 10^4 = 600000, rounded to whole seconds */
        out_of_range += d < 1897 || d > 600000;
        short_ += d < 60000;
        queued += j[i].queue[0] != 0;
    }
    CHECK_I64(other, 0);
    CHECK_I64(out_of_range, 0);
    CHECK_I64(queued, 0);
    CHECK_I64(untyped, 0);
    CHECK(cyclegan > 0);
    CHECK_I64(multi_cyclegan, 0);
    CHECK_DBL((double)gpus[1] / (double)n, 0.70, 0.006);
    CHECK_DBL((double)gpus[2] / (double)n, 0.10, 0.004);
    CHECK_DBL((double)gpus[4] / (double)n, 0.15, 0.005);
    CHECK_DBL((double)gpus[8] / (double)n, 0.05, 0.003);
    CHECK_DBL((double)short_ / (double)n, 0.80, 0.006);
    struct dstats s = duration_stats(t);
    CHECK_DBL(s.mean_gap_s, 1200.0, 1200.0 * 0.02); /* default rate: 3 jobs per hour */
    /* log10(d/60) is uniform on [1.5, 3] for 80 %: median at 1.5 + 1.5 * 0.625 */
    CHECK_DBL(s.median, 60.0 * pow(10.0, 1.5 + 1.5 * 0.625), 60.0 * pow(10.0, 2.4375) * 0.03);
    berth_trace_free(t);
}

static void test_philly(void)
{
    const size_t n = 100000;
    struct berth_trace *t = gen("philly", n, 0, 42);
    if (!t)
        return;
    check_shape(t, n);
    const struct berth_jobspec *j = berth_trace_jobs(t);
    /* Real figures of philly.csv: 82,247 jobs, median 1,144 s, p90 11,265, p99 254,758,
     * mean 13,136; 1 GPU 76,627, 2 1,818, 4 1,870, 8 1,643, 16+ 282 jobs; VC 6214e9 41,226. */
    struct dstats s = duration_stats(t);
    CHECK_DBL(s.median, 1144.0, 1144.0 * 0.05);
    CHECK_DBL(s.p90, 11264.8, 11264.8 * 0.05);
    CHECK_DBL(s.p99, 254758.4, 254758.4 * 0.12);
    CHECK_DBL(s.mean, 13135.9, 13135.9 * 0.10);
    /* default rate: 82,247 jobs over 9,408,690 s, a mean gap of 114.4 s */
    CHECK_DBL(s.mean_gap_s, 9408690.0 / 82247.0, 9408690.0 / 82247.0 * 0.02);

    size_t g1 = 0, g2 = 0, g4 = 0, g8 = 0, big = 0, bad = 0, vc0 = 0, noqueue = 0;
    double dur1 = 0, durm = 0, gpu_s = 0;
    const char *vcs[32];
    size_t nvc = 0;
    for (size_t i = 0; i < n; i++) {
        int g = j[i].num_gpus;
        g1 += g == 1;
        g2 += g == 2;
        g4 += g == 4;
        g8 += g == 8;
        big += g >= 12;
        bad += !(g == 1 || g == 2 || g == 4 || g == 8 || g == 12 || g == 16 || g == 24 || g == 32 ||
                 g == 64 || g == 128);
        double d = (double)(j[i].duration_us / BERTH_US_PER_S);
        if (g == 1)
            dur1 += d;
        else
            durm += d;
        gpu_s += d * g;
        noqueue += strlen(j[i].queue) != 6;
        vc0 += !strcmp(j[i].queue, "6214e9");
        size_t k = 0;
        while (k < nvc && strcmp(vcs[k], j[i].queue))
            k++;
        if (k == nvc && nvc < 32)
            vcs[nvc++] = j[i].queue;
    }
    CHECK_I64(bad, 0);
    CHECK_I64(noqueue, 0);
    CHECK_DBL((double)g1 / (double)n, 76627.0 / 82247, 0.005);
    CHECK_DBL((double)g2 / (double)n, 1818.0 / 82247, 0.002);
    CHECK_DBL((double)g4 / (double)n, 1870.0 / 82247, 0.002);
    CHECK_DBL((double)g8 / (double)n, 1643.0 / 82247, 0.002);
    CHECK_DBL((double)big / (double)n, 289.0 / 82247, 0.0008);
    CHECK_DBL((double)vc0 / (double)n, 41226.0 / 82247, 0.008);
    CHECK(nvc >= 13 && nvc <= 15); /* 15 VCs, two of them with only 3 jobs in 82,247 */
    /* Durations follow gang size as in the real trace (mean 8,301 s on 1 GPU, 79,058 s on
     * more), and so does GPU time (real 978,078 GPU-h over 82,247 jobs = 11.89 per job). */
    double mean1 = dur1 / (double)g1, meanm = durm / (double)(n - g1);
    CHECK_DBL(mean1, 8301.0, 8301.0 * 0.12);
    CHECK_DBL(meanm, 79058.0, 79058.0 * 0.15);
    CHECK_DBL(gpu_s / 3600.0 / (double)n, 11.89, 11.89 * 0.15);
    berth_trace_free(t);
}

static void test_rate(void)
{
    const double rates[] = {60.0, 0.5};
    for (int k = 0; k < 2; k++) {
        const size_t n = 50000;
        struct berth_trace *t = gen(k ? "gavel" : "philly", n, rates[k], 3);
        if (!t)
            return;
        check_shape(t, n);
        double want = 3600.0 / rates[k];
        CHECK_DBL(duration_stats(t).mean_gap_s, want, want * 0.02);
        berth_trace_free(t);
    }
    /* negative = the profile's default, like 0 */
    struct berth_trace *a = gen("gavel", 1000, -5, 3), *b = gen("gavel", 1000, 0, 3);
    if (a && b) {
        size_t la, lb;
        char *sa = csv_of(a, &la), *sb = csv_of(b, &lb);
        CHECK(la == lb && memcmp(sa, sb, la) == 0);
        free(sa);
        free(sb);
    }
    berth_trace_free(a);
    berth_trace_free(b);
}

static void expect_bad(const char *profile, size_t jobs, double rate, const char *flag,
                       const char *detail)
{
    struct berth_gen_opts o;
    berth_gen_opts_init(&o);
    o.profile = profile;
    o.jobs = jobs;
    o.rate_per_hour = rate;
    struct berth_err err = {0};
    struct berth_trace *t = (struct berth_trace *)&err; /* must come back NULL */
    CHECK_I64(berth_gen(&o, &t, &err), BERTH_EINPUT);
    CHECK_I64(err.code, BERTH_EINPUT);
    CHECK(t == NULL);
    CHECK(strncmp(err.msg, flag, strlen(flag)) == 0);
    CHECK_HAS(err.msg, detail);
}

static void test_bad_options(void)
{
    expect_bad("x", 10, 0, "--profile:", "unknown profile 'x' (expected gavel, philly or llm)");
    expect_bad("Philly", 10, 0, "--profile:", "(expected gavel, philly or llm)");
    expect_bad(NULL, 10, 0, "--profile:", "gavel, philly or llm");
    expect_bad("philly", 0, 0, "--jobs:", "expected 1 to 100000000 jobs, found 0");
    expect_bad("gavel", 100000001, 0, "--jobs:", "found 100000001");
    expect_bad("gavel", 10, NAN, "--rate:", "found nan");
    expect_bad("gavel", 10, INFINITY, "--rate:", "found inf");
    /* so slow that arrivals would leave the range a native trace can hold */
    expect_bad("gavel", 100, 1e-9, "--rate:", "within 10^12 s");
}

static void test_round_trip(void)
{
    const char *profiles[] = {"gavel", "philly", "llm"};
    for (int k = 0; k < 3; k++) {
        struct berth_trace *t = gen(profiles[k], 3000, 0, 99);
        if (!t)
            return;
        char path[] = "/tmp/berth_test_gen_XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        FILE *f = fdopen(fd, "w");
        struct berth_err err = {0};
        CHECK_I64(berth_trace_write_native(f, berth_trace_jobs(t), berth_trace_count(t), &err), 0);
        CHECK_I64(fclose(f), 0);
        struct berth_trace *b = NULL;
        int rc = berth_trace_load(path, "native", &b, &err);
        if (rc)
            fprintf(stderr, "load: %s\n", err.msg);
        CHECK_I64(rc, 0);
        if (b) {
            CHECK_I64(berth_trace_count(b), berth_trace_count(t));
            const struct berth_jobspec *x = berth_trace_jobs(t), *y = berth_trace_jobs(b);
            size_t diff = 0;
            for (size_t i = 0; i < berth_trace_count(t) && i < berth_trace_count(b); i++)
                diff += strcmp(x[i].id, y[i].id) || x[i].arrival_us != y[i].arrival_us ||
                        x[i].duration_us != y[i].duration_us || x[i].num_gpus != y[i].num_gpus ||
                        x[i].min_gpus != y[i].min_gpus || x[i].max_gpus != y[i].max_gpus ||
                        strcmp(x[i].queue, y[i].queue) ||
                        strcmp(berth_jobspec_extra(&x[i])->job_type,
                               berth_jobspec_extra(&y[i])->job_type) ||
                        berth_jobspec_extra(&x[i])->tp != berth_jobspec_extra(&y[i])->tp ||
                        berth_jobspec_extra(&x[i])->topo_required !=
                            berth_jobspec_extra(&y[i])->topo_required ||
                        berth_jobspec_extra(&x[i])->topo_preferred !=
                            berth_jobspec_extra(&y[i])->topo_preferred ||
                        x[i].line != y[i].line;
            CHECK_I64(diff, 0);
        }
        berth_trace_free(b);
        berth_trace_free(t);
        unlink(path);
    }
}

/* The llm profile (gen.c's table): same seed same bytes, another seed other bytes; every
 * pre-training gang is tp 8 x PP x DP with tp | num_gpus, in 16..256, its level as defined;
 * fine-tuning jobs are 1-8 GPUs without tp or level; the mix and the mean GPU-hours near
 * their definitions over 20,000 jobs (90 % +- 1, 115.8 GPU-h per job +- 10 %: the heavy
 * pre-training tail moves the mean most). */
static void test_llm(void)
{
    struct berth_trace *a = gen("llm", 2000, 0, 5), *b = gen("llm", 2000, 0, 5),
                       *c = gen("llm", 2000, 0, 6);
    if (a && b && c) {
        size_t la, lb, lc;
        char *sa = csv_of(a, &la), *sb = csv_of(b, &lb), *sc = csv_of(c, &lc);
        CHECK(la == lb && memcmp(sa, sb, la) == 0);
        CHECK(la != lc || memcmp(sa, sc, la) != 0);
        CHECK(strncmp(sa,
                      "job_id,arrival_s,duration_s,num_gpus,job_type,topology,"
                      "topology_preferred,tp\n",
                      70) == 0);
        free(sa);
        free(sb);
        free(sc);
    }
    berth_trace_free(a);
    berth_trace_free(b);
    berth_trace_free(c);
    struct berth_trace *t = gen("llm", 20000, 0, 1);
    if (!t)
        return;
    const struct berth_jobspec *j = berth_trace_jobs(t);
    size_t n = berth_trace_count(t), ft = 0, badn = 0;
    double gpu_h = 0;
    for (size_t i = 0; i < n; i++) {
        const struct berth_jobspec_extra *x = berth_jobspec_extra(&j[i]);
        gpu_h += (double)j[i].num_gpus * (double)j[i].duration_us / 3.6e9;
        if (!strcmp(x->job_type, "llm-finetune")) {
            ft++;
            badn += j[i].num_gpus < 1 || j[i].num_gpus > 8 || x->tp || x->topo_required ||
                    x->topo_preferred;
            continue;
        }
        int32_t g = j[i].num_gpus;
        int lv_ok = g <= 32 ? (x->topo_required == BERTH_TOPO_RACK + 1) !=
                                  (x->topo_preferred == BERTH_TOPO_RACK + 1)
                    : g == 64 ? !x->topo_required && x->topo_preferred == BERTH_TOPO_RACK + 1
                              : !x->topo_required && x->topo_preferred == BERTH_TOPO_BLOCK + 1;
        badn += strcmp(x->job_type, "llm-pretrain") || x->tp != 8 || g % x->tp || g < 16 ||
                g > 256 || (g & (g - 1)) || !lv_ok ||
                j[i].duration_us < 4 * 3600 * BERTH_US_PER_S ||
                j[i].duration_us > 48 * 3600 * BERTH_US_PER_S;
    }
    CHECK_I64(badn, 0);
    CHECK_DBL((double)ft / (double)n, 0.9, 0.01);
    CHECK_DBL(gpu_h / (double)n, 115.8, 11.6);
    berth_trace_free(t);
}

static const struct check_test tests[] = {
    {"llm", test_llm},
    {"profiles_list", test_profiles_list},
    {"determinism", test_determinism},
    {"gavel", test_gavel},
    {"philly", test_philly},
    {"rate", test_rate},
    {"bad_options", test_bad_options},
    {"round_trip", test_round_trip},
};

CHECK_MAIN(tests)
