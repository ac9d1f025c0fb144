/* `berth report`: the charts and the summary table of one or more berth sim --out folders, as
 * one self-contained HTML file (stdout or --out FILE) or one SVG file per chart
 * (--format svg --out DIR). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "berth/report.h"
#include "cli.h"
#include "flags.h"

#define MAX_LABELS 64

struct report_args {
    const char *out, *format, *title;
    const char *labels[MAX_LABELS];
    int nlabels;
};

static int set_label(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    struct report_args *a = base;
    (void)f;
    if (a->nlabels >= MAX_LABELS)
        return berth_err_set(err, BERTH_EINPUT, "at most %d labels", MAX_LABELS);
    if (!*v)
        return berth_err_set(err, BERTH_EINPUT, "expected a name, found ''");
    a->labels[a->nlabels++] = v;
    return 0;
}

#define A struct report_args
static const struct cli_flag report_flags[] = {
    {"out", 'o', "PATH",
     "html: the file to write (default: standard output); svg: the folder for one ID.svg "
     "per chart (required)",
     CLI_STR_AT(A, out), .bits = CLI_ONCE},
    {"format", 0, "F", "html (default: one page, charts inline) or svg (one file per chart)",
     CLI_STR_AT(A, format), .bits = CLI_ONCE},
    {"title", 0, "TEXT", "the page's title (default: berth report)", CLI_STR_AT(A, title),
     .bits = CLI_ONCE},
    {"label", 0, "NAME",
     "the legend's name of the next folder, in order (repeatable; default: the folder's "
     "name)",
     CLI_SET(set_label)},
    CLI_HELP_FLAG,
    {0},
};
#undef A

static const struct cli_section report_sections[] = {{NULL, report_flags, 0}, {0}};

static const struct cli_spec report_spec = {
    .cmd = "report",
    .usage = "report DIR... [--out PATH] [--format html|svg] [--title TEXT] [--label NAME]... "
             "[--help]",
    .about = "Draws one or more `berth sim --out DIR` runs: JCT and waiting-time CDFs, busy\n"
             "GPUs and pending jobs over time, utilisation per GPU type, JCT by gang size,\n"
             "finish-time fairness, preemptions over time and the summary table, in one\n"
             "HTML file with inline SVG (no script, no network) or as SVG files for papers.",
    .sections = report_sections,
    .epilogue = "Exit status: 0 done, 2 bad input (a folder, a file in it, a flag), 1 a write\n"
                "failure.",
};

/* Writes the report of runs to a->out (or stdout); 0 or an exit code. */
int cli_report_write(const char *cmd, struct berth_run **runs, size_t n, const char *out,
                     const char *format, const char *title)
{
    struct berth_err err = {0};
    int rc;
    if (format && !strcmp(format, "svg")) {
        rc = berth_report_svgs(out, runs, n, &err);
    } else {
        FILE *f = out && strcmp(out, "-") ? fopen(out, "w") : stdout;
        if (!f) {
            fprintf(stderr, "berth %s: %s: cannot write: %s\n", cmd, out, strerror(errno));
            return EXIT_RUNTIME;
        }
        rc = berth_report_html(f, runs, n, title, &err);
        if (f != stdout && fclose(f) && !rc)
            rc = berth_err_set(&err, BERTH_EIO, "%s: cannot write: %s", out, strerror(errno));
    }
    if (rc) {
        fprintf(stderr, "berth %s: %s\n", cmd, err.msg);
        return rc == BERTH_EINPUT ? EXIT_BAD_INPUT : EXIT_RUNTIME;
    }
    return EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
    struct report_args a = {.out = NULL};
    int nargs, rc = cli_flags_parse(&report_spec, argc, argv, &a, &nargs);
    if (rc != CLI_FLAGS_GO)
        return rc;
    if (!nargs)
        return cli_usage_error("report", "expected one or more berth sim --out folders (see "
                                         "berth report --help)");
    if (nargs > 64)
        return cli_usage_error("report", "at most 64 folders, found %d (see berth report --help)",
                               nargs);
    if (a.nlabels > nargs)
        return cli_usage_error("report",
                               "--label: %d labels for %d folders (see berth report --help)",
                               a.nlabels, nargs);
    if (a.format && strcmp(a.format, "html") && strcmp(a.format, "svg"))
        return cli_usage_error(
            "report", "--format: expected html or svg, found '%s' (see berth report --help)",
            a.format);
    if (a.format && !strcmp(a.format, "svg") && !a.out)
        return cli_usage_error("report", "--format svg needs --out DIR, the charts' folder (see "
                                         "berth report --help)");
    struct berth_run *runs[64] = {0};
    struct berth_err err = {0};
    int code = EXIT_OK;
    for (int i = 0; i < nargs && code == EXIT_OK; i++) {
        if (berth_run_load(argv[1 + i], &runs[i], &err) ||
            (i < a.nlabels && berth_run_set_label(runs[i], a.labels[i], &err)))
            code = cli_fail(&err);
    }
    if (code == EXIT_OK)
        code = cli_report_write("report", runs, (size_t)nargs, a.out, a.format, a.title);
    for (int i = 0; i < nargs; i++)
        berth_run_free(runs[i]);
    return code;
}
