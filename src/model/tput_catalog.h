/* The built-in catalog's figures for code that needs a measured rate itself rather than a
 * model built from them: the Gavel trace loader derives run times from Gavel's V100 rates
 * with Gavel's own rule, which differs from the model's interpolation (tput.h). */
#ifndef BERTH_MODEL_TPUT_CATALOG_H
#define BERTH_MODEL_TPUT_CATALOG_H

#include <stdint.h>

/* The catalog's rate (steps/s) of class cls alone on gpu_type (exact names, types as the
 * catalog spells them: "k80", "p100", "v100"), on one server (spread 0) or across servers
 * (spread 1), at the largest measured gang size <= gpus. Returns that gang size and sets
 * *rate (0 where the source measured that the gang does not run), or returns 0 when the
 * catalog measured no such size. O(log classes). */
int32_t berth__tput_catalog_floor(const char *cls, const char *gpu_type, int spread, int32_t gpus,
                                  double *rate);

#endif
