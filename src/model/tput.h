/* The throughput model inside: classes (job types) x GPU types x gang sizes -> steps/s,
 * rates across servers, and co-location pairs. Filled by the loaders in io/ and by the
 * built-in catalog through the builder below; queried by the simulator and by policies.
 *
 * Rules (docs/design.md, "Throughput model"):
 * - rates are measured at some gang sizes (Gavel: 1, 2, 4, 8). Between two measured sizes
 *   the rate is interpolated linearly; above the largest it grows in proportion to the
 *   gang (rate(max) * gpus / max); below the smallest it shrinks in proportion.
 * - a gang spread over servers runs, in this order of precedence: at the consolidated rate
 *   times its class's spread factor when one was set (berth_tput_set_spread: --spread-penalty
 *   TYPE=F), times the run's factor when one was given (struct berth__spread: --spread-penalty
 *   F), at the class's measured "spread" points where the source has them and the run uses
 *   them (Gavel's *_unconsolidated; --spread-rates measured), else at the consolidated rate.
 *   Explicit factors win over measurements. A gang of one GPU is never spread: its spread
 *   rate is its rate, and spread points of one GPU are not used (extrapolating from one would
 *   make a spread gang faster than a consolidated one).
 * - a class with no point on a GPU type cannot run there (rate 0); a point of rate 0 is a
 *   measured "does not run" (Gavel's 0.0: the gang does not fit), so the rate is 0 there and
 *   is interpolated towards 0 around it; a gang that cannot run on one server cannot run
 *   across servers either, whatever the spread points say.
 * - a pair (a, b, type) gives a's normalised speed (1.0 = alone) while it shares one GPU
 *   with b; type -1 = measured on an unnamed type, valid on every type. */
#ifndef BERTH_MODEL_TPUT_H
#define BERTH_MODEL_TPUT_H

#include <stdint.h>

#include "berth/tput.h"

/* Queries. Classes and types are looked up by exact name (types case-insensitively). */
int berth__tput_class_find(const struct berth_tput *m, const char *name);    /* -1 if absent */
int berth__tput_type_find(const struct berth_tput *m, const char *gpu_type); /* -1 if absent */
/* How a run says gangs across servers go (the rule above): factor > 0 is --spread-penalty F
 * for every class without a factor of its own; measured 1 uses the measured spread points,
 * 0 ignores them (Gavel, whose simulator never reads them). NULL means {0, 1}. */
struct berth__spread {
    double factor;
    int measured;
};

/* Steps per second of class c on `gpus` GPUs of model type t, on one server (spread 0) or
 * across servers (spread 1, under sp); 0 when the class cannot run on t. */
double berth__tput_rate_sp(const struct berth_tput *m, const struct berth__spread *sp, int c, int t,
                           int32_t gpus, int spread);
/* The same with sp NULL (measured points, no run factor). */
double berth__tput_rate(const struct berth_tput *m, int c, int t, int32_t gpus, int spread);
/* The speed across servers relative to one server of a gang of `gpus` of class c (-1: none)
 * on model type t (-1: unknown), under sp: what a job at fixed speed (by its duration) is
 * slowed by when it spans servers. 1.0 when nothing slows it; m may be NULL (no classes). */
double berth__tput_spread_ratio(const struct berth_tput *m, const struct berth__spread *sp, int c,
                                int t, int32_t gpus);
/* a's normalised speed sharing a GPU of type t with b (Gavel pairs give own / alone;
 * Lucid pairs give it directly); 0 when nothing is known. */
double berth__tput_pair(const struct berth_tput *m, int a, int b, int t);
/* Class c's configured spread factor, 0 when none was set. */
double berth__tput_spread_factor(const struct berth_tput *m, int c);
/* Whether class c has measured rates across servers on type t. */
int berth__tput_has_spread_points(const struct berth_tput *m, int c, int t);
/* Sets class c's spread factor (a rate multiplier for gangs across servers, which wins over
 * spread points); c = -1 sets every class's. */
void berth__tput_set_spread(struct berth_tput *m, int c, double factor);

/* Builder (loaders and the catalog). Each returns 0, or -1 when out of memory (or, for a
 * pair, a class number above 2^23); names are copied. add_type and add_class return
 * BERTH_TPUT_FULL when the table already holds BERTH_TPUT_MAX names (a job's class and type
 * are 16 bits in its engine record): the input has too many, which loaders say as such. */
#define BERTH_TPUT_FULL (-2)
#define BERTH_TPUT_MAX  32767
struct berth_tput *berth__tput_new(void);
int berth__tput_add_type(struct berth_tput *m, const char *name, int *t);
int berth__tput_add_class(struct berth_tput *m, const char *name, int *c);
/* A measured rate (steps/s >= 0; 0 = does not run) of class c on gpus GPUs of type t;
 * spread = across servers.
 * The same point twice keeps the last. */
int berth__tput_add_point(struct berth_tput *m, int c, int t, int32_t gpus, int spread,
                          double rate);
int berth__tput_add_pair(struct berth_tput *m, int a, int b, int t, double speed);

#endif
