/* How long work tells its caller how far it is (a progress bar's feed): one callback that
 * sim, pack, trace loading and the sweep runner call now and then with work done of the
 * work in all and what the work is counted in ("jobs", "bytes", "cells"). It never changes
 * what the work computes; pacing the display is the caller's. */
#ifndef BERTH_PROGRESS_H
#define BERTH_PROGRESS_H

typedef void (*berth_progress_fn)(void *ctx, double done, double total, const char *unit);

#endif
