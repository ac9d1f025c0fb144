/* This machine's GPUs from NVML, loaded with dlopen("libnvidia-ml.so.1") at run time (no
 * build-time CUDA dependency). */
#ifndef BERTH_LIVE_NVML_H
#define BERTH_LIVE_NVML_H

#include <stddef.h>

#include "berth/err.h"

/* Writes the GPUs as a cluster shorthand ("1x8:a100"; one part per run of the same model)
 * into spec. BERTH_EIO when NVML is absent or finds no GPU (err says which). lib = NULL
 * loads libnvidia-ml.so.1 (tests pass a path that does not exist). */
int berth__nvml_inventory(const char *lib, char *spec, size_t len, struct berth_err *err);

/* "NVIDIA A100-SXM4-80GB" -> "a100": the first word with a digit, lower case, up to the
 * first character that is not a letter or digit. */
void berth__nvml_type_name(const char *model, char *out, size_t len);

#endif
