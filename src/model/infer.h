/* The inference demand series' insides, shared by the model (evaluation, the diurnal
 * curve) and the io layer (the CSV loader). */
#ifndef BERTH_MODEL_INFER_H
#define BERTH_MODEL_INFER_H

#include <stddef.h>

#include "berth/infer.h"

#define MAX_US (INT64_C(1000000000000) * BERTH_US_PER_S) /* 10^12 s, as trace times */

struct berth_infer {
    berth_us *at; /* table: step times, non-decreasing */
    int32_t *servers;
    size_t n, cap, cap2;
    int diurnal;
    double peak, trough; /* fractions of the pool */
    berth_us period, step;
};

#endif
