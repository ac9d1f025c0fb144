/* Time-weighted fragmentation per topology level over a run (frag_sample.h). */
#include "sim/frag_sample.h"

#include "sched/frag.h"

void berth__frag_sample_init(struct berth__frag_sample *f)
{
    *f = (struct berth__frag_sample){.first = BERTH_TIME_NONE, .last = BERTH_TIME_NONE};
}

static void hold(struct berth__frag_sample *f, berth_us until)
{
    double dt = (double)(until - f->last);
    for (int l = 0; l < BERTH_TOPO_LEVELS; l++) {
        f->stranded_us[l] += f->stranded[l] * dt;
        f->whole_us[l] += f->whole[l] * dt;
    }
}

void berth__frag_sample_step(struct berth__frag_sample *f, const struct berth_cluster *c,
                             berth_us now)
{
    if (f->last != BERTH_TIME_NONE && now - f->last < BERTH__FRAG_STEP)
        return;
    if (f->last == BERTH_TIME_NONE)
        f->first = now;
    else
        hold(f, now);
    f->last = now;
    for (int l = 0; l < BERTH_TOPO_CLUSTER; l++) {
        struct berth__frag_level v;
        f->has[l] = berth__frag_topo(c, l, &v) == 0 && v.domains > 0; /* blocks= not given: none */
        f->stranded[l] = v.stranded;
        f->whole[l] = v.whole;
    }
}

void berth__frag_sample_end(struct berth__frag_sample *f, berth_us end, struct berth_sim_summary *s)
{
    if (f->last == BERTH_TIME_NONE)
        return;
    if (end > f->last)
        hold(f, end);
    double span = (double)(end - f->first);
    for (int l = 0; l < BERTH_TOPO_LEVELS; l++) {
        s->frag_level[l] = f->has[l];
        /* a run of one instant: the one measure */
        s->frag_idle_in_partial[l] = span > 0 ? f->stranded_us[l] / span : f->stranded[l];
        s->frag_whole_idle[l] = span > 0 ? f->whole_us[l] / span : f->whole[l];
    }
}
