/* libberth's umbrella header: everything the berth CLI (and any embedding program) uses. */
#ifndef BERTH_BERTH_H
#define BERTH_BERTH_H

#define BERTH_VERSION "0.1.0"

#include "cluster.h"
#include "err.h"
#include "gen.h"
#include "policy.h"
#include "queues.h"
#include "sim.h"
#include "time.h"
#include "trace.h"
#include "tput.h"

#endif
