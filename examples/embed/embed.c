/* Embedding libberth: load a trace, build a cluster, simulate it under a policy and print the
 * summary — what `berth sim` does, from a program of your own. Build it against an installed
 * berth with pkg-config:
 *
 *   cc embed.c $(pkg-config --cflags --libs berth) -o embed
 *   ./embed examples/tiny.csv 4x4:v100 sjf
 */
#include <berth/berth.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: embed TRACE CLUSTER POLICY\n");
        return 2;
    }
    struct berth_err err = {0};
    struct berth_trace *t = NULL;
    struct berth_cluster *c = NULL;
    struct berth_sim_result r;
    struct berth_sim_opts o;
    if (berth_trace_load(argv[1], NULL, &t, &err) || berth_cluster_parse(argv[2], &c, &err)) {
        fprintf(stderr, "embed: %s\n", err.msg);
        berth_trace_free(t);
        return 2;
    }
    berth_sim_opts_init(&o);
    o.policy = argv[3];
    int rc = berth_sim_run(t, c, &o, &r, &err);
    if (rc) {
        fprintf(stderr, "embed: %s\n", err.msg);
    } else {
        char what[128];
        berth_cluster_describe(c, what, sizeof what);
        printf("libberth %s: %zu jobs on %s under %s: %zu completed, avg JCT %.1f s, makespan "
               "%.1f s\n",
               BERTH_VERSION, r.summary.jobs, what, r.policy, r.summary.completed,
               r.summary.avg_jct_s, r.summary.makespan_s);
        berth_sim_result_free(&r);
    }
    berth_cluster_free(c);
    berth_trace_free(t);
    return rc ? 1 : 0;
}
