/* --topology-model FILE: per-level bandwidths and per job type communication shares for the
 * rate by distance (model/topo_rate.h), as JSON:
 *   {"bandwidth_gbps": {"nvlink": 450, "node": 64, "rack": 50, "block": 25, "cluster": 12.5},
 *    "comm_share": {"default": 0.02, "llm-pretrain": 0.03}}
 * Both objects and each of their keys are optional: what the file leaves out keeps the
 * default. */
#ifndef BERTH_IO_TOPO_MODEL_H
#define BERTH_IO_TOPO_MODEL_H

#include "berth/err.h"
#include "model/topo_rate.h"

/* Reads path over r (which holds the defaults). Errors name the file and the field. */
int berth__topo_rate_load(const char *path, struct berth_topo_model *r, struct berth_err *err);

#endif
