/* Slurm job arrays for programs that use libberth (berth sweep --slurm): submit one array,
 * watch it until its tasks are over, cancel it. Each call opens its own connection to
 * slurmctld. Built as stubs answering BERTH_EUNSUPPORTED where berth was built without
 * libslurm (Slurm 22.05). */
#ifndef BERTH_SLURM_H
#define BERTH_SLURM_H

#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "time.h"

struct berth_slurm_array {
    const char *name;      /* the array's job name (NULL: berth-sweep) */
    const char *script;    /* the batch script every task runs; it reads $SLURM_ARRAY_TASK_ID */
    const char *workdir;   /* required */
    const char *output;    /* each task's stdout and stderr, with %A (array id) and %a (index) */
    const size_t *indices; /* the tasks' indices, sorted and distinct */
    size_t nindices;
    const char *partition;  /* NULL: the cluster's default */
    uint32_t cpus;          /* per task (0: 1) */
    berth_us time_limit_us; /* per task (0: the partition's) */
    const char *slurm_conf; /* NULL: $SLURM_CONF, then /etc/slurm/slurm.conf */
};

/* Whether this build has libslurm. */
int berth_slurm_available(void);
/* Submits the array (the caller's environment goes with it); *job_id is its id. */
int berth_slurm_array_submit(const struct berth_slurm_array *a, uint32_t *job_id,
                             struct berth_err *err);
/* The array's tasks that are not over yet (0 once all ended, or Slurm forgot it). */
int berth_slurm_array_active(const char *slurm_conf, uint32_t job_id, size_t *active,
                             struct berth_err *err);
/* Cancels every task of the array that is not over. */
int berth_slurm_array_cancel(const char *slurm_conf, uint32_t job_id, struct berth_err *err);

#endif
