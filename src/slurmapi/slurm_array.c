/* berth/slurm.h on the wrapper (slurm_api.h): job arrays for berth sweep --slurm, with a
 * connection of their own per call. Built with and without libslurm (the wrapper's stubs
 * answer BERTH_EUNSUPPORTED). */
#include <stdlib.h>

#include "berth/slurm.h"
#include "slurmapi/slurm_api.h"

extern char **environ;

int berth_slurm_available(void)
{
    return berth__slurm_built();
}

int berth_slurm_array_submit(const struct berth_slurm_array *a, uint32_t *job_id,
                             struct berth_err *err)
{
    *job_id = 0;
    size_t len = a->nindices * 21 + 1;
    char *idx = malloc(len);
    if (!idx)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    int rc = berth__slurm_format_indices(idx, len, a->indices, a->nindices, err);
    struct berth__slurm *s = NULL;
    if (!rc)
        rc = berth__slurm_open(&s, a->slurm_conf, err);
    if (!rc) {
        struct berth__slurm_array x = {
            a->name,      a->script, a->workdir,      (const char *const *)environ, a->output, idx,
            a->partition, a->cpus,   a->time_limit_us};
        rc = berth__slurm_submit_array(s, &x, job_id, err);
    }
    berth__slurm_close(s);
    free(idx);
    return rc;
}

int berth_slurm_array_active(const char *slurm_conf, uint32_t job_id, size_t *active,
                             struct berth_err *err)
{
    *active = 0;
    struct berth__slurm *s = NULL;
    int rc = berth__slurm_open(&s, slurm_conf, err);
    if (!rc)
        rc = berth__slurm_array_active(s, job_id, active, err);
    berth__slurm_close(s);
    return rc;
}

int berth_slurm_array_cancel(const char *slurm_conf, uint32_t job_id, struct berth_err *err)
{
    struct berth__slurm *s = NULL;
    int rc = berth__slurm_open(&s, slurm_conf, err);
    if (!rc)
        rc = berth__slurm_cancel(s, job_id, err);
    berth__slurm_close(s);
    return rc;
}
