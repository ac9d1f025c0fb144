/* Progress curves (curve.h): the class catalog and acc(e). */
#include <math.h>
#include <string.h>

#include "model/curve.h"

/* Estimates for SpeCon's workload (MNIST-sized CNN/RNN jobs in TensorFlow): plateaus as
 * such models commonly reach, and time constants that put most of the growth in the first
 * few of 20 epochs — the shape SpeCon's paper describes (fast early growth, a long
 * plateau). The last entry is the default for any other job type. */
static const struct berth_curve catalog[] = {
    {"lenet", 99.0, 1.5, 20}, {"cnn", 98.5, 2.0, 20},     {"rnn", 97.0, 3.0, 20},
    {"birnn", 98.0, 2.5, 20}, {"default", 95.0, 3.0, 20},
};

#define NCURVES (sizeof catalog / sizeof *catalog)

const struct berth_curve *berth__curve_find(const char *job_type)
{
    for (size_t i = 0; job_type && i + 1 < NCURVES; i++) /* first letters first: cheap */
        if (job_type[0] == catalog[i].name[0] && !strcmp(job_type, catalog[i].name))
            return &catalog[i];
    return &catalog[NCURVES - 1];
}

double berth__curve_acc(const struct berth_curve *c, double epochs)
{
    return epochs > 0 ? c->a_max * (1.0 - exp(-epochs / c->tau)) : 0.0;
}

double berth__curve_epochs(const struct berth__job *j, berth_us now)
{
    const struct berth_curve *c = berth__curve_find(berth_jobspec_extra(j->spec)->job_type);
    return j->work > 0 ? c->epochs * berth__job_done(j, now) / j->work : c->epochs;
}

double berth__curve_job_metric(void *ctx, const struct berth__job *j, berth_us now)
{
    (void)ctx;
    return berth__curve_acc(berth__curve_find(berth_jobspec_extra(j->spec)->job_type),
                            berth__curve_epochs(j, now));
}
