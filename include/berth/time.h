/* berth's clock unit: signed 64-bit microseconds everywhere, never floating point.
 * Seconds appear only at the edges (parsing input, printing output). */
#ifndef BERTH_TIME_H
#define BERTH_TIME_H

#include <stdint.h>

typedef int64_t berth_us;

#define BERTH_US_PER_S  INT64_C(1000000)
#define BERTH_TIME_NONE INT64_MIN

#endif
