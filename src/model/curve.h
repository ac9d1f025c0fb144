/* Progress curves: a job's quality metric (accuracy, in percent) against the epochs it has
 * trained, one documented family with parameters per job class. The simulator turns a job's
 * work done into a metric through these (berthd will take the metric jobs report instead);
 * SpeCon measures growth on it.
 *
 * Family: acc(e) = a_max * (1 - exp(-e / tau)), e = epochs done (fractional), for a class
 * trained for `epochs` epochs. Parameters are berth's estimates for the small TensorFlow
 * models of SpeCon's evaluation (docs/design.md, "SpeCon"), not measured values. */
#ifndef BERTH_MODEL_CURVE_H
#define BERTH_MODEL_CURVE_H

#include "model/job.h"

struct berth_curve {
    const char *name; /* job_type it stands for */
    double a_max;     /* plateau, percent */
    double tau;       /* epochs to reach 1 - 1/e of the plateau */
    double epochs;    /* epochs a job of the class trains for */
};

/* The class for job_type (exact name), or the default class ("default") for any other. */
const struct berth_curve *berth__curve_find(const char *job_type);
/* acc(e) of curve c after e epochs (e < 0 counts as 0). */
double berth__curve_acc(const struct berth_curve *c, double epochs);
/* Epochs job j has done by now: its class's epochs times its share of work done. */
double berth__curve_epochs(const struct berth__job *j, berth_us now);
/* Job j's metric now from its class's curve (the simulator's metric source; ctx unused). */
double berth__curve_job_metric(void *ctx, const struct berth__job *j, berth_us now);

#endif
