/* Loaders for three public cluster logs: Microsoft Philly's raw job log (JSON), SenseTime
 * Helios (CSV) and Shanghai AI Lab Acme (CSV). Each fills L->t and L->rep like every loader
 * in trace_int.h (into which these declarations are meant to merge). */
#ifndef BERTH_IO_LOADERS_SENSE_H
#define BERTH_IO_LOADERS_SENSE_H

#include "io/trace_int.h"

/* --format philly: cluster_job_log, a JSON array of job objects, streamed (trace_philly.c). */
int berth__load_philly(struct berth__load *L, struct berth_err *err);
/* --format helios: cluster_log.csv of a Helios cluster (trace_helios.c). */
int berth__load_helios(struct berth__load *L, struct berth_err *err);
/* --format acme: trace_seren.csv or trace_kalos.csv (trace_acme.c). */
int berth__load_acme(struct berth__load *L, struct berth_err *err);

#endif
