/* Tests for the job specs' shared extra fields (src/model/trace.c): every field a job sets
 * reads back through berth_jobspec_extra, equal extras share one copy, a job with every
 * extra at its default points to none, and the records stay at their sizes. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model/job.h"
#include "model/trace.h"

_Static_assert(sizeof(void *) != 8 || sizeof(struct berth_jobspec) <= 72,
               "one job spec per job: keep rare fields in its extra");
_Static_assert(sizeof(void *) != 8 || sizeof(struct berth__job) <= 152,
               "one engine record per job: keep it packed");

static struct berth_jobdesc desc(struct berth_trace *t, const char *id)
{
    struct berth_jobdesc d;
    berth__jobspec_defaults(&d);
    d.spec.id = berth__trace_str(t, id, strlen(id));
    return d;
}

static const char *in(struct berth_trace *t, const char *s)
{
    return berth__trace_intern(t, s, strlen(s));
}

static void check_extra(const struct berth_jobspec_extra *x, const struct berth_jobspec_extra *w)
{
    CHECK_I64(x->gpu_mem_mib, w->gpu_mem_mib);
    CHECK_I64(x->cpu_milli, w->cpu_milli);
    CHECK_I64(x->mem_mib, w->mem_mib);
    CHECK_I64(x->restart_us, w->restart_us);
    CHECK_I64(x->time_limit_us, w->time_limit_us);
    CHECK_I64(x->persist_mib, w->persist_mib);
    CHECK_I64(x->ephem_mib, w->ephem_mib);
    CHECK(!strcmp(x->job_type, w->job_type));
    CHECK(!strcmp(x->user, w->user));
    CHECK(!strcmp(x->status, w->status));
    CHECK(!strcmp(x->gpu_type, w->gpu_type));
}

/* Each job sets one field (job k field k), then one sets them all: each reads back. */
static void test_every_field_reads_back(void)
{
    struct berth_trace *t = berth__trace_new("x");
    CHECK(t != NULL);
    struct berth_jobspec_extra want[12];
    for (int k = 0; k < 12; k++) {
        char id[8];
        snprintf(id, sizeof id, "j%d", k);
        struct berth_jobdesc d = desc(t, id);
        d.spec.num_gpus = k + 1;
        struct berth_jobspec_extra *x = &d.x;
        switch (k) {
        case 0:
            x->gpu_mem_mib = 16384;
            break;
        case 1:
            x->cpu_milli = 2500;
            break;
        case 2:
            x->mem_mib = INT64_C(1) << 40;
            break;
        case 3:
            x->restart_us = 7 * BERTH_US_PER_S;
            break;
        case 4:
            x->time_limit_us = 3600 * BERTH_US_PER_S;
            break;
        case 5:
            x->persist_mib = 700;
            break;
        case 6:
            x->ephem_mib = 300;
            break;
        case 7:
            x->job_type = in(t, "resnet50");
            break;
        case 8:
            x->user = in(t, "alice");
            break;
        case 9:
            x->status = in(t, "Failed");
            break;
        case 10:
            x->gpu_type = in(t, "v100|a100");
            break;
        default:
            *x = (struct berth_jobspec_extra){
                1, 2, 3, 4, 5, 6, 7, in(t, "t"), in(t, "u"), in(t, "s"), in(t, "g"), 3, 2, 4};
        }
        want[k] = *x;
        CHECK_I64(berth__trace_push(t, &d), 0);
    }
    CHECK_I64(berth_trace_count(t), 12);
    const struct berth_jobspec *js = berth_trace_jobs(t);
    for (int k = 0; k < 12; k++) {
        CHECK(js[k].extra != NULL);
        CHECK_I64(js[k].num_gpus, k + 1);
        check_extra(berth_jobspec_extra(&js[k]), &want[k]);
        struct berth_jobdesc back;
        berth__jobdesc_of(&js[k], &back);
        CHECK(back.spec.extra == NULL);
        check_extra(&back.x, &want[k]);
    }
    berth_trace_free(t);
}

/* Defaults point to no extra; equal extras share one copy, whatever copy of a string they
 * hold; a different value gets its own. */
static void test_shared_copies(void)
{
    struct berth_trace *t = berth__trace_new("x");
    CHECK(t != NULL);
    struct berth_jobdesc d = desc(t, "a");
    CHECK_I64(berth__trace_push(t, &d), 0);
    d.x.user = berth__trace_str(t, "bob", 3); /* not interned: the same text all the same */
    CHECK_I64(berth__trace_push(t, &d), 0);
    d.x.user = berth__trace_str(t, "bob", 3);
    CHECK_I64(berth__trace_push(t, &d), 0);
    d.x.cpu_milli = 1000;
    CHECK_I64(berth__trace_push(t, &d), 0);
    for (int i = 0; i < 1000; i++) { /* many distinct values: the table grows */
        d.x.cpu_milli = 2000 + i;
        CHECK_I64(berth__trace_push(t, &d), 0);
    }
    const struct berth_jobspec *js = berth_trace_jobs(t);
    CHECK(js[0].extra == NULL);
    CHECK(berth_jobspec_extra(&js[0]) == &berth_jobspec_extra_none);
    CHECK(!strcmp(berth_jobspec_extra(&js[0])->user, ""));
    CHECK(js[1].extra != NULL && js[1].extra == js[2].extra);
    CHECK(js[3].extra != js[1].extra);
    CHECK_I64(js[3].extra->cpu_milli, 1000);
    CHECK(!strcmp(js[3].extra->user, "bob"));
    for (int i = 0; i < 1000; i++)
        CHECK_I64(berth_jobspec_extra(&js[4 + i])->cpu_milli, 2000 + i);
    berth_trace_free(t);
}

/* A spec built by hand (no trace) has every extra at its default. */
static void test_zero_spec(void)
{
    struct berth_jobspec s = {.id = "z"};
    const struct berth_jobspec_extra *x = berth_jobspec_extra(&s);
    CHECK_I64(x->gpu_mem_mib + x->cpu_milli + x->mem_mib + x->restart_us + x->time_limit_us +
                  x->persist_mib + x->ephem_mib,
              0);
    CHECK(!strcmp(x->job_type, "") && !strcmp(x->user, "") && !strcmp(x->status, "") &&
          !strcmp(x->gpu_type, ""));
}

static const struct check_test tests[] = {
    {"every_field_reads_back", test_every_field_reads_back},
    {"shared_copies", test_shared_copies},
    {"zero_spec", test_zero_spec},
};

CHECK_MAIN(tests)
