/* The live job record as JSON: the API's view of a job and the journal's document, and
 * reading a journal document back after a restart (and a copy made through both). */
#include <stdlib.h>
#include <string.h>

#include "live/jobs/ljob.h"
#include "model/topo.h"

/* The arrays below are NULL when out of memory (an append that fails: a value could not be
 * made, or the append itself), never short. */
static json_t *whole(json_t *a, int bad)
{
    if (bad) {
        json_decref(a);
        return NULL;
    }
    return a;
}

static json_t *strv_json(char **v)
{
    json_t *a = json_array();
    int bad = !a;
    for (size_t i = 0; !bad && v && v[i]; i++)
        bad |= json_array_append_new(a, json_string(v[i]));
    return whole(a, bad);
}

static json_t *slots_json(const struct berth__slot *s, int32_t n)
{
    json_t *a = json_array();
    int bad = !a;
    for (int32_t i = 0; !bad && i < n; i++)
        bad |= json_array_append_new(
            a, json_pack("[I,I]", (json_int_t)s[i].server,
                         s[i].gpu == BERTH_NO_GPU ? (json_int_t)-1 : (json_int_t)s[i].gpu));
    return whole(a, bad);
}

static json_t *opt_time(berth_us t)
{
    return t ? json_integer(t) : json_null();
}

/* A topology level as the API names it (a level + 1; 0: null, none). */
static json_t *level_json(int8_t v)
{
    return v > 0 ? json_string(berth__topo_level_name(v - 1)) : json_null();
}

/* Back: a level + 1, 0 for null or a name this berthd does not know. */
static int8_t level_from(const json_t *v)
{
    int l = json_is_string(v) ? berth__topo_level_find(json_string_value(v)) : -1;
    return (int8_t)(l + 1);
}

static const char *const dep_names[] = {"after", "afterok", "afternotok", "afterany"};

const char *berth__dep_name(int t)
{
    return t >= 0 && t < 4 ? dep_names[t] : "after";
}

static json_t *deps_json(const struct berth__ljob *j)
{
    json_t *a = json_array();
    int bad = !a;
    for (size_t i = 0; !bad && i < j->ndeps; i++)
        bad |= json_array_append_new(a, json_pack("{s:s,s:I}", "type",
                                                  berth__dep_name(j->deps[i].type), "job",
                                                  (json_int_t)j->deps[i].job));
    return whole(a, bad);
}

json_t *berth__ljob_json(const struct berth__ljob *j, int full)
{
    const struct berth_jobspec *s = &j->spec;
    json_t *o = json_object();
    if (!o)
        return NULL;
    int bad = 0; /* a set that fails: the document would lack that field */
    bad |= json_object_set_new(o, "id", json_integer((json_int_t)j->id));
    bad |= json_object_set_new(o, "name", json_string(j->name));
    bad |= json_object_set_new(o, "user", json_string(j->user));
    bad |= json_object_set_new(o, "state", json_string(berth__lstate_name(j->state)));
    bad |= json_object_set_new(o, "argv", strv_json(j->argv));
    bad |= json_object_set_new(o, "cwd", json_string(j->cwd));
    bad |= json_object_set_new(o, "gpus", json_integer(s->num_gpus));
    bad |= json_object_set_new(o, "min_gpus", json_integer(s->min_gpus));
    bad |= json_object_set_new(o, "max_gpus", json_integer(s->max_gpus));
    bad |= json_object_set_new(o, "gpu_type", json_string(berth_jobspec_extra(s)->gpu_type));
    bad |= json_object_set_new(o, "job_type", json_string(berth_jobspec_extra(s)->job_type));
    bad |= json_object_set_new(o, "gpu_share", json_real(s->gpu_share_milli / 1000.0));
    bad |= json_object_set_new(o, "gpu_mem_mib", json_integer(berth_jobspec_extra(s)->gpu_mem_mib));
    bad |= json_object_set_new(o, "persist_mib", json_integer(berth_jobspec_extra(s)->persist_mib));
    bad |= json_object_set_new(o, "ephem_mib", json_integer(berth_jobspec_extra(s)->ephem_mib));
    bad |= json_object_set_new(o, "topology", level_json(berth_jobspec_extra(s)->topo_required));
    bad |= json_object_set_new(o, "topology_preferred",
                               level_json(berth_jobspec_extra(s)->topo_preferred));
    bad |= json_object_set_new(
        o, "tp", json_integer(berth_jobspec_extra(s)->tp > 1 ? berth_jobspec_extra(s)->tp : 1));
    bad |= json_object_set_new(o, "queue", json_string(s->queue));
    bad |= json_object_set_new(o, "priority", json_integer(s->priority));
    bad |=
        json_object_set_new(o, "checkpoint_signal", json_string(berth__signal_name(j->ckpt_sig)));
    bad |= json_object_set_new(o, "grace_s", json_real((double)j->grace_us / 1e6));
    bad |= json_object_set_new(o, "est_s", json_real((double)s->duration_us / 1e6));
    bad |= json_object_set_new(o, "time_limit_s",
                               berth_jobspec_extra(s)->time_limit_us
                                   ? json_real((double)berth_jobspec_extra(s)->time_limit_us / 1e6)
                                   : json_null());
    bad |= json_object_set_new(o, "ran_s", json_real((double)j->ran_us / 1e6));
    bad |= json_object_set_new(o, "ran_type", json_string(j->ran_type));
    bad |= json_object_set_new(o, "total_steps", json_integer(s->total_steps));
    bad |= json_object_set_new(o, "cpus",
                               json_real((double)berth_jobspec_extra(s)->cpu_milli / 1000.0));
    bad |= json_object_set_new(o, "mem_mib", json_integer(berth_jobspec_extra(s)->mem_mib));
    bad |= json_object_set_new(o, "single_server", json_boolean(s->single_server));
    bad |= json_object_set_new(o, "submit_us", opt_time(j->submit_us));
    bad |= json_object_set_new(o, "start_us", opt_time(j->start_us));
    bad |= json_object_set_new(o, "end_us", opt_time(j->end_us));
    bad |= json_object_set_new(o, "exit_code",
                               j->exit_code >= 0 ? json_integer(j->exit_code) : json_null());
    bad |= json_object_set_new(o, "exit_signal",
                               j->exit_signal >= 0 ? json_integer(j->exit_signal) : json_null());
    bad |= json_object_set_new(o, "attempt", json_integer(j->attempt));
    bad |= json_object_set_new(o, "resume", json_boolean(j->resume));
    if (j->array_id) { /* a task of an array */
        bad |= json_object_set_new(o, "array_id", json_integer((json_int_t)j->array_id));
        bad |= json_object_set_new(o, "array_task", json_integer(j->array_task));
        bad |= json_object_set_new(o, "array_n", json_integer(j->array_n));
        bad |= json_object_set_new(o, "array_max", json_integer(j->array_max));
    }
    if (j->svc) { /* a service's replica */
        bad |= json_object_set_new(o, "service", json_integer((json_int_t)j->svc));
        bad |= json_object_set_new(o, "replica", json_integer(j->replica));
        bad |= json_object_set_new(o, "port", json_integer(j->port));
        bad |= json_object_set_new(o, "restarts", json_integer(j->restarts));
        bad |= json_object_set_new(o, "quick_fails", json_integer(j->quick_fails));
        bad |= json_object_set_new(o, "load", j->load_at ? json_real(j->load) : json_null());
    }
    bad |= json_object_set_new(o, "dependencies", deps_json(j));
    if (j->slurm_id)
        bad |= json_object_set_new(o, "slurm_job", json_integer(j->slurm_id));
    if (j->foreign)
        bad |= json_object_set_new(o, "foreign", json_true());
    bad |= json_object_set_new(o, "slots",
                               slots_json(j->slots, j->state == BERTH_L_RUNNING ? j->nslots : 0));
    json_t *p = json_object();
    bad |= json_object_set_new(p, "step", j->step_at ? json_integer(j->step) : json_null());
    bad |= json_object_set_new(p, "metric", j->has_metric ? json_real(j->metric) : json_null());
    bad |= json_object_set_new(p, "time_us", opt_time(j->step_at));
    bad |= json_object_set_new(o, "progress", p);
    json_t *h = json_array();
    for (size_t i = 0; i < j->nhist; i++)
        bad |= json_array_append_new(
            h, json_pack("{s:I,s:s,s:s}", "time_us", (json_int_t)j->hist[i].t, "state",
                         berth__lstate_name(j->hist[i].state), "note", j->hist[i].note));
    bad |= json_object_set_new(o, "history", h);
    if (!full)
        return whole(o, bad);
    bad |= json_object_set_new(o, "env", strv_json(j->env));
    bad |= json_object_set_new(o, "uid", json_integer(j->uid));
    bad |= json_object_set_new(o, "gid", json_integer(j->gid));
    bad |= json_object_set_new(o, "token", json_string(j->token));
    bad |= json_object_set_new(o, "launched", json_integer(j->launched));
    bad |= json_object_set_new(o, "attempt_us", json_integer(j->attempt_us));
    bad |= json_object_set_new(o, "est_given", json_boolean(j->est_given));
    bad |= json_object_set_new(o, "then", json_integer(j->then));
    bad |= json_object_set_new(o, "proc", json_boolean(j->proc));
    bad |= json_object_set_new(o, "pslots", slots_json(j->pslots, j->proc ? j->npslots : 0));
    bad |= json_object_set_new(o, "shim_pid", json_integer(j->shim_pid));
    bad |= json_object_set_new(o, "shim_start", json_integer((json_int_t)j->shim_start));
    bad |= json_object_set_new(o, "all_slots", slots_json(j->slots, j->nslots));
    bad |= json_object_set_new(o, "run_share", json_integer(j->run_share_milli));
    return whole(o, bad);
}

/* NULL when out of memory (never a vector cut short at a failed copy). */
static char **strv_from(const json_t *a, size_t *n)
{
    size_t k = json_array_size(a);
    char **v = calloc(k + 1, sizeof *v);
    for (size_t i = 0; v && i < k; i++)
        if (!(v[i] = strdup(json_string_value(json_array_get(a, i))
                                ? json_string_value(json_array_get(a, i))
                                : ""))) {
            berth__strv_free(v);
            v = NULL;
        }
    *n = k;
    return v;
}

static int32_t slots_from(const json_t *a, struct berth__slot *s)
{
    int32_t n = 0;
    for (size_t i = 0; i < json_array_size(a) && n < BERTH_L_MAX_SLOTS; i++) {
        const json_t *e = json_array_get(a, i);
        json_int_t g = json_integer_value(json_array_get(e, 1));
        s[n++] = (struct berth__slot){(uint32_t)json_integer_value(json_array_get(e, 0)),
                                      g < 0 ? BERTH_NO_GPU : (uint32_t)g};
    }
    return n;
}

static int64_t geti(const json_t *o, const char *k)
{
    return (int64_t)json_integer_value(json_object_get(o, k));
}

static const char *gets_(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

int berth__ljob_from_journal(const json_t *d, struct berth__ljob **out, struct berth_err *err)
{
    struct berth__ljob *j = calloc(1, sizeof *j);
    if (!j)
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    j->spec.extra = &j->extra; /* the record holds its extra fields */
    j->user = strdup(gets_(d, "user"));
    j->name = strdup(gets_(d, "name"));
    j->cwd = strdup(gets_(d, "cwd"));
    j->argv = strv_from(json_object_get(d, "argv"), &j->argc);
    j->env = strv_from(json_object_get(d, "env"), &j->nenv);
    j->spec.queue = strdup(gets_(d, "queue"));
    j->extra.gpu_type = strdup(gets_(d, "gpu_type"));
    j->extra.job_type = strdup(gets_(d, "job_type"));
    int st = berth__lstate_find(gets_(d, "state"));
    if (!j->user || !j->name || !j->cwd || !j->argv || !j->env || !j->spec.queue ||
        !berth_jobspec_extra(&j->spec)->gpu_type ||
        !berth_jobspec_extra(&j->spec)->job_type) { /* not damage: a copy failed */
        berth__ljob_free(j);
        return berth_err_set(err, BERTH_ENOMEM, "journal: job %lld: out of memory",
                             (long long)geti(d, "id"));
    }
    if (st < 0 || !j->argc) {
        berth__ljob_free(j);
        return berth_err_set(err, BERTH_EINPUT, "journal: job %lld: a damaged record",
                             (long long)geti(d, "id"));
    }
    berth__ljob_set_id(j, (uint64_t)geti(d, "id"));
    struct berth_jobspec *s = &j->spec;
    j->extra.status = "";
    s->num_gpus = (int32_t)geti(d, "gpus");
    s->min_gpus = (int32_t)geti(d, "min_gpus");
    s->max_gpus = (int32_t)geti(d, "max_gpus");
    double share = json_number_value(json_object_get(d, "gpu_share")) * 1000 + 0.5;
    s->gpu_share_milli = (int16_t)(share < INT16_MAX ? share : INT16_MAX); /* 16 bits: no wrap */
    j->extra.gpu_mem_mib = geti(d, "gpu_mem_mib");
    j->extra.persist_mib = geti(d, "persist_mib"); /* absent in older journals: 0, unknown */
    j->extra.ephem_mib = geti(d, "ephem_mib");
    /* older journals lack them: no topology, tp 1 */
    j->extra.topo_required = level_from(json_object_get(d, "topology"));
    j->extra.topo_preferred = level_from(json_object_get(d, "topology_preferred"));
    int64_t tp = geti(d, "tp");
    j->extra.tp = (int32_t)(tp > 1 && tp <= BERTH_L_MAX_SLOTS ? tp : 0);
    s->priority = (int32_t)geti(d, "priority");
    s->duration_us = (berth_us)(json_number_value(json_object_get(d, "est_s")) * 1e6 + 0.5);
    s->total_steps = geti(d, "total_steps");
    j->extra.cpu_milli = (int64_t)(json_number_value(json_object_get(d, "cpus")) * 1000 + 0.5);
    j->extra.mem_mib = geti(d, "mem_mib");
    s->single_server = json_is_true(json_object_get(d, "single_server"));
    /* fields a journal of an older berthd lacks read as their defaults: no limit, no run */
    j->extra.time_limit_us =
        (berth_us)(json_number_value(json_object_get(d, "time_limit_s")) * 1e6 + 0.5);
    j->ran_us = (berth_us)(json_number_value(json_object_get(d, "ran_s")) * 1e6 + 0.5);
    j->attempt_us = geti(d, "attempt_us");
    /* an older berthd's journal lacks it: its est_s was the estimate, as it read it */
    const json_t *eg = json_object_get(d, "est_given");
    j->est_given = (uint8_t)(eg ? json_is_true(eg) : 1);
    snprintf(j->ran_type, sizeof j->ran_type, "%s", gets_(d, "ran_type"));
    j->array_id = (uint64_t)geti(d, "array_id");
    j->array_task = (uint32_t)geti(d, "array_task");
    j->array_n = (uint32_t)geti(d, "array_n");
    j->array_max = (uint32_t)geti(d, "array_max");
    j->svc = (uint64_t)geti(d, "service");
    j->replica = (int32_t)geti(d, "replica");
    j->port = (int32_t)geti(d, "port");
    j->restarts = (uint32_t)geti(d, "restarts");
    j->quick_fails = (uint32_t)geti(d, "quick_fails");
    const json_t *deps = json_object_get(d, "dependencies"), *dv;
    size_t di;
    if (json_array_size(deps) > BERTH_L_MAX_DEPS ||
        (json_array_size(deps) && !(j->deps = calloc(json_array_size(deps), sizeof *j->deps)))) {
        berth__ljob_free(j);
        return berth_err_set(
            err, json_array_size(deps) > BERTH_L_MAX_DEPS ? BERTH_EINPUT : BERTH_ENOMEM,
            "journal: job %lld: %s", (long long)geti(d, "id"),
            json_array_size(deps) > BERTH_L_MAX_DEPS ? "a damaged record" : "out of memory");
    }
    json_array_foreach(deps, di, dv)
    {
        int t = 0;
        while (t < 4 && strcmp(gets_(dv, "type"), dep_names[t]))
            t++;
        j->deps[j->ndeps++] = (struct berth__ldep){(uint64_t)geti(dv, "job"), (uint8_t)(t & 3)};
    }
    j->ckpt_sig = berth__signal_find(gets_(d, "checkpoint_signal"));
    j->grace_us = (berth_us)(json_number_value(json_object_get(d, "grace_s")) * 1e6 + 0.5);
    j->state = (uint8_t)st;
    j->submit_us = geti(d, "submit_us");
    j->start_us = geti(d, "start_us");
    j->end_us = geti(d, "end_us");
    const json_t *ec = json_object_get(d, "exit_code"), *es = json_object_get(d, "exit_signal");
    j->exit_code = json_is_integer(ec) ? (int)json_integer_value(ec) : -1;
    j->exit_signal = json_is_integer(es) ? (int)json_integer_value(es) : -1;
    j->attempt = (int)geti(d, "attempt");
    j->resume = json_is_true(json_object_get(d, "resume"));
    j->slurm_id = (uint32_t)geti(d, "slurm_job");
    j->foreign = json_is_true(json_object_get(d, "foreign"));
    j->launched = (int)geti(d, "launched");
    j->then = (uint8_t)geti(d, "then");
    j->proc = json_is_true(json_object_get(d, "proc"));
    if ((json_array_size(json_object_get(d, "all_slots")) ||
         json_array_size(json_object_get(d, "pslots"))) &&
        berth__ljob_slots(j)) {
        berth__ljob_free(j);
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    }
    j->nslots = j->slots ? slots_from(json_object_get(d, "all_slots"), j->slots) : 0;
    j->run_share_milli = (int32_t)geti(d, "run_share"); /* older journals: 0, the spec's */
    j->npslots = j->slots ? slots_from(json_object_get(d, "pslots"), j->pslots) : 0;
    j->shim_pid = (int32_t)geti(d, "shim_pid");
    j->shim_start = (uint64_t)geti(d, "shim_start");
    j->uid = (uint32_t)geti(d, "uid");
    j->gid = (uint32_t)geti(d, "gid");
    snprintf(j->token, sizeof j->token, "%s", gets_(d, "token"));
    const json_t *h = json_object_get(d, "history"), *e;
    size_t i;
    json_array_foreach(h, i, e)
    {
        int hs = berth__lstate_find(gets_(e, "state"));
        if (berth__ljob_note(j, geti(e, "time_us"), hs < 0 ? st : hs, "%s", gets_(e, "note"))) {
            berth__ljob_free(j);
            return berth_err_set(err, BERTH_ENOMEM, "out of memory");
        }
    }
    j->state = (uint8_t)st;
    *out = j;
    return 0;
}

int berth__ljob_clone(const struct berth__ljob *j, struct berth__ljob **out, struct berth_err *err)
{
    json_t *o = berth__ljob_json(j, 1);
    int rc = o ? berth__ljob_from_journal(o, out, err)
               : berth_err_set(err, BERTH_ENOMEM, "out of memory");
    json_decref(o);
    return rc;
}
