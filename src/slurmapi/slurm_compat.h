/* What differs between the libslurm generations slurm_api.c builds against: 22.05 (Debian
 * 12, libslurm.so.38) and 24.11 (Debian 13, libslurm.so.42), chosen at build time from
 * slurm_version.h. libslurm's ABI changes with each major release, so a build holds one
 * generation; the differences berth meets are named here, and slurm_api.c uses these names
 * only. Included by slurm_api.c alone, after <slurm/slurm.h>. */
#ifndef BERTH_SLURMAPI_SLURM_COMPAT_H
#define BERTH_SLURMAPI_SLURM_COMPAT_H

#include <errno.h>

#define BERTH_SLURM_22_05                                                                          \
    (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(22, 5, 0) &&                                        \
     SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(22, 6, 0))
#define BERTH_SLURM_24_11                                                                          \
    (SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0) &&                                       \
     SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(24, 12, 0))

#if !BERTH_SLURM_22_05 && !BERTH_SLURM_24_11
#error "src/slurmapi is written against Slurm 22.05 and 24.11; see docs/slurm.md"
#endif

#if BERTH_SLURM_24_11
/* 24.11: hostlist_t is the (incomplete) struct, handles are pointers to it; libslurm sets
 * errno itself (slurm_get_errno is gone) */
typedef hostlist_t *berth_hostlist;
#define berth_slurm_errno()       errno
#define berth_slurm_reason_string slurm_job_state_reason_string /* renamed */
#else
typedef hostlist_t berth_hostlist; /* 22.05: hostlist_t is already a pointer */
#define berth_slurm_errno()       slurm_get_errno()
#define berth_slurm_reason_string slurm_job_reason_string
#endif

#endif
