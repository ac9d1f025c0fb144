/* Tests for the berth command's flag tables (src/cli/flags.c): every form a flag is written
 * in (--name VALUE, --name=VALUE, prefixes, -x VALUE, -xVALUE, letters together, --, operands
 * between flags or, for submit, ending them), every kind of bad flag and its one message, the
 * typed values at their bounds, repeated flags, the variants of a shared table, a section
 * elsewhere in the options, and the help written from the tables, byte for byte. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli/flags.h"

struct inner {
    const char *server;
};

struct opts {
    const char *name, *once;
    int on, quiet, round, round_up, only_b;
    uint64_t count, seed;
    berth_us wait;
    double ratio;
    char log[128]; /* what --add saw, comma-separated */
    struct inner in;
};

static int add(const struct cli_flag *f, void *base, const char *v, struct berth_err *err)
{
    struct opts *o = base;
    (void)f;
    if (!strcmp(v, "nomem"))
        return berth_err_set(err, BERTH_ENOMEM, "out of memory");
    if (!strcmp(v, "bad"))
        return berth_err_set(err, BERTH_EINPUT, "expected anything but bad, found '%s'", v);
    size_t n = strlen(o->log);
    snprintf(o->log + n, sizeof o->log - n, "%s%s", n ? "," : "", v);
    return 0;
}

#define O struct opts
static const struct cli_flag flags[] = {
    {"name", 'n', "NAME", "a name", CLI_STR_AT(O, name)},
    {"on", 'o', NULL, "a switch", CLI_ON_AT(O, on)},
    {"count", 'c', "N", "a whole number from 1 to 10", CLI_U64_AT(O, count), .lo = 1, .hi = 10},
    {"seed", 0, "N", "any whole number", CLI_U64_AT(O, seed)},
    {"wait", 'w', "S", "seconds", CLI_SECS_AT(O, wait)},
    {"ratio", 0, "R", "a number from 0 to 1", CLI_NUM_AT(O, ratio), .lo = 0, .hi = 1},
    {"once", 'O', "V", "at most once", CLI_STR_AT(O, once), .bits = CLI_ONCE},
    {"add", 'a', "X", "repeatable", CLI_SET(add)},
    {"round", 0, NULL, "a name that prefixes another", CLI_ON_AT(O, round)},
    {"round-up", 0, NULL, "the other", CLI_ON_AT(O, round_up)},
    {"quiet", 'q', NULL, "its letter is not shown", CLI_ON_AT(O, quiet), .bits = CLI_QUIET_LETTER},
    {"only-b", 0, NULL, "variant b only", CLI_ON_AT(O, only_b), .only = 2},
    {0},
};
#undef O

static const struct cli_flag inner_flags[] = {
    {"server", 0, "URL", "a flag of another struct", CLI_STR_AT(struct inner, server)},
    {0},
};

static const struct cli_section sections[] = {
    {NULL, flags, 0},
    {NULL, inner_flags, offsetof(struct opts, in)},
    {0},
};

static const struct cli_spec spec = {
    .cmd = "t", .usage = "t [FLAGS] ARG...", .sections = sections, .variant = 1};
static const struct cli_spec spec_b = {
    .cmd = "t b", .help_cmd = "t", .usage = "t b", .sections = sections, .variant = 2};
static const struct cli_spec spec_stop = {
    .cmd = "t", .usage = "t", .sections = sections, .variant = 1, .stop_at_operand = 1};

/* A command line (NULL-terminated words after the command's name), read by s into o. */
struct line {
    char *argv[32];
    int argc, nargs, rc;
    struct berth_err err;
};

static void run_spec(struct line *l, const struct cli_spec *s, struct opts *o,
                     const char *const *words)
{
    memset(l, 0, sizeof *l);
    memset(o, 0, sizeof *o);
    l->argv[l->argc++] = "t";
    for (; *words && l->argc < 31; words++)
        l->argv[l->argc++] = (char *)*words;
    l->rc = cli_flags_read(s, l->argc, l->argv, o, &l->nargs, &l->err);
}

#define RUN(l, o, ...)         run_spec(l, &spec, o, (const char *const[]){__VA_ARGS__, NULL})
#define RUN_SPEC(l, s, o, ...) run_spec(l, s, o, (const char *const[]){__VA_ARGS__, NULL})

/* The bad command line's message is exactly want. */
#define CHECK_BAD(want, ...)                                                                       \
    do {                                                                                           \
        struct line l_;                                                                            \
        struct opts o_;                                                                            \
        RUN(&l_, &o_, __VA_ARGS__);                                                                \
        CHECK_I64(l_.rc, BERTH_EINPUT);                                                            \
        CHECK_STR(l_.err.msg, want);                                                               \
    } while (0)

static void test_long_forms(void)
{
    struct line l;
    struct opts o;
    RUN(&l, &o, "--name", "a", "--on");
    CHECK_I64(l.rc, 0);
    CHECK_STR(o.name, "a");
    CHECK_I64(o.on, 1);
    RUN(&l, &o, "--name=a=b");
    CHECK_STR(o.name, "a=b");
    RUN(&l, &o, "--name=");
    CHECK_I64(l.rc, 0);
    CHECK_STR(o.name, "");
    RUN(&l, &o, "--name", "--on"); /* a value is the next word, whatever it looks like */
    CHECK_STR(o.name, "--on");
    CHECK_I64(o.on, 0);
    RUN(&l, &o, "--na", "x", "--cou=3"); /* unambiguous prefixes */
    CHECK_I64(l.rc, 0);
    CHECK_STR(o.name, "x");
    CHECK_I64(o.count, 3);
    RUN(&l, &o, "--round"); /* a whole name wins over the longer one it prefixes */
    CHECK_I64(l.rc, 0);
    CHECK_I64(o.round, 1);
    CHECK_I64(o.round_up, 0);
    RUN(&l, &o, "--round-");
    CHECK_I64(o.round_up, 1);
    RUN(&l, &o, "--server", "http://x"); /* a section whose struct is elsewhere in opts */
    CHECK_I64(l.rc, 0);
    CHECK_STR(o.in.server, "http://x");
}

static void test_short_forms(void)
{
    struct line l;
    struct opts o;
    RUN(&l, &o, "-n", "a", "-c3", "-w", "1.5");
    CHECK_I64(l.rc, 0);
    CHECK_STR(o.name, "a");
    CHECK_I64(o.count, 3);
    CHECK_I64(o.wait, 1500000);
    RUN(&l, &o, "-on", "x"); /* letters together: the last takes the next word */
    CHECK_I64(l.rc, 0);
    CHECK_I64(o.on, 1);
    CHECK_STR(o.name, "x");
    RUN(&l, &o, "-oqnfoo"); /* ... or the rest of this one */
    CHECK_I64(o.on, 1);
    CHECK_I64(o.quiet, 1);
    CHECK_STR(o.name, "foo");
    RUN(&l, &o, "-q"); /* a quiet letter is taken all the same */
    CHECK_I64(l.rc, 0);
    CHECK_I64(o.quiet, 1);
}

static void test_operands(void)
{
    struct line l;
    struct opts o;
    RUN(&l, &o, "a", "--on", "-", "b", "--", "--name", "c");
    CHECK_I64(l.rc, 0);
    CHECK_I64(o.on, 1);
    CHECK(!o.name);
    CHECK_I64(l.nargs, 5);
    const char *want[] = {"a", "-", "b", "--name", "c"};
    for (int i = 0; i < 5 && i < l.nargs; i++)
        CHECK_STR(l.argv[1 + i], want[i]);
    RUN(&l, &o, "--", "--");
    CHECK_I64(l.nargs, 1);
    CHECK_STR(l.argv[1], "--");
    /* submit: the first operand ends the flags (the job's own argv follows) */
    RUN_SPEC(&l, &spec_stop, &o, "-o", "python", "-n", "x", "--", "y");
    CHECK_I64(l.rc, 0);
    CHECK_I64(o.on, 1);
    CHECK(!o.name);
    CHECK_I64(l.nargs, 5);
    const char *job[] = {"python", "-n", "x", "--", "y"};
    for (int i = 0; i < 5 && i < l.nargs; i++)
        CHECK_STR(l.argv[1 + i], job[i]);
    RUN_SPEC(&l, &spec_stop, &o, "--name", "n", "--", "--on");
    CHECK_STR(o.name, "n");
    CHECK_I64(o.on, 0);
    CHECK_I64(l.nargs, 1);
    CHECK_STR(l.argv[1], "--on");
}

static void test_missing_values(void)
{
    CHECK_BAD("--name: expected a value", "--name");
    CHECK_BAD("--name: expected a value", "--na");
    CHECK_BAD("-n: expected a value", "-n");
    CHECK_BAD("-n: expected a value", "-on");
    CHECK_BAD("--count: expected a value", "x", "--count");
}

static void test_unknown_flags(void)
{
    CHECK_BAD("unknown flag '--bogus'", "--bogus");
    CHECK_BAD("unknown flag '--bogus'", "--bogus=1");
    CHECK_BAD("unknown flag '-x'", "-x");
    CHECK_BAD("unknown flag '-x'", "-ox");
    CHECK_BAD("unknown flag '--'", "--=1");
    CHECK_BAD("ambiguous flag '--r': --ratio, --round or --round-up", "--r");
    CHECK_BAD("ambiguous flag '--rou': --round or --round-up", "--rou");
    CHECK_BAD("--on: expected no value, found '1'", "--on=1");
    CHECK_BAD("--on: expected no value, found ''", "--on=");
    CHECK_BAD("--only-b is not a flag of this command", "--only-b");
    struct line l;
    struct opts o;
    RUN_SPEC(&l, &spec_b, &o, "--only-b");
    CHECK_I64(l.rc, 0);
    CHECK_I64(o.only_b, 1);
}

static void test_numbers(void)
{
    struct line l;
    struct opts o;
    RUN(&l, &o, "--count", "1", "--seed", "0", "--ratio", "0");
    CHECK_I64(l.rc, 0);
    CHECK_I64(o.count, 1);
    RUN(&l, &o, "--count", "10", "--seed", "18446744073709551615", "--ratio", "1");
    CHECK_I64(l.rc, 0);
    CHECK_I64(o.count, 10);
    CHECK(o.seed == UINT64_MAX);
    CHECK_DBL(o.ratio, 1, 0);
    CHECK_BAD("--count: expected a whole number from 1 to 10, found '0'", "--count", "0");
    CHECK_BAD("--count: expected a whole number from 1 to 10, found '11'", "--count", "11");
    CHECK_BAD("-c: expected a whole number from 1 to 10, found '-1'", "-c", "-1");
    CHECK_BAD("-c: expected a whole number from 1 to 10, found ' 5'", "-c", " 5");
    CHECK_BAD("-c: expected a whole number from 1 to 10, found '5x'", "-c5x");
    CHECK_BAD("--seed: expected a whole number >= 0, found '18446744073709551616'", "--seed",
              "18446744073709551616");
    CHECK_BAD("--seed: expected a whole number >= 0, found '1.5'", "--seed", "1.5");
    CHECK_BAD("--seed: expected a whole number >= 0, found ''", "--seed=");
    CHECK_BAD("--wait: expected a number of seconds > 0, found '0'", "--wait", "0");
    CHECK_BAD("--wait: expected a number of seconds > 0, found 'inf'", "--wait", "inf");
    CHECK_BAD("--wait: expected at least 1 microsecond, found '1e-7'", "--wait", "1e-7");
    CHECK_BAD("--ratio: expected a number from 0 to 1, found '1.5'", "--ratio", "1.5");
    CHECK_BAD("--ratio: expected a number from 0 to 1, found 'nan'", "--ratio", "nan");
    CHECK_BAD("--ratio: expected a number from 0 to 1, found '-0.1'", "--ratio=-0.1");
    RUN(&l, &o, "--wait", "0.0000005");
    CHECK_I64(o.wait, 1);
}

static void test_repeats(void)
{
    struct line l;
    struct opts o;
    RUN(&l, &o, "--name", "a", "-n", "b"); /* a plain flag: the last one wins */
    CHECK_I64(l.rc, 0);
    CHECK_STR(o.name, "b");
    RUN(&l, &o, "-a", "1", "--add", "2", "-a3"); /* a setter sees every one */
    CHECK_STR(o.log, "1,2,3");
    RUN(&l, &o, "--once", "a");
    CHECK_I64(l.rc, 0);
    CHECK_BAD("--once: given twice; it takes one value", "--once", "a", "--once", "b");
    CHECK_BAD("--once: given twice; it takes one value", "--once=a", "--on", "--onc=a");
    CHECK_BAD("--once: given twice; it takes one value", "--once=a", "-O", "b");
}

static void test_setters_and_help(void)
{
    CHECK_BAD("--add: expected anything but bad, found 'bad'", "--add", "bad");
    CHECK_BAD("-a: expected anything but bad, found 'bad'", "-abad");
    struct line l;
    struct opts o;
    RUN(&l, &o, "-a", "nomem");
    CHECK_I64(l.rc, BERTH_ENOMEM);
    CHECK_STR(l.err.msg, "-a: out of memory");
    const char *const asks[][4] = {
        {"--help"}, {"-h"}, {"--he"}, {"-oh"}, {"x", "--help", "--bogus"}};
    for (size_t i = 0; i < sizeof asks / sizeof *asks; i++) {
        run_spec(&l, &spec, &o, asks[i]);
        CHECK_I64(l.rc, 1);
    }
    CHECK_BAD("unknown flag '--bogus'", "--bogus", "--help");
}

/* What cli_flags_parse writes on stderr for argv (and returns), in buf. */
static int parse_stderr(const struct cli_spec *s, const char *const *words, char *buf, size_t len)
{
    struct line l = {.argc = 0};
    struct opts o = {.name = NULL};
    l.argv[l.argc++] = "t";
    for (; *words; words++)
        l.argv[l.argc++] = (char *)*words;
    FILE *tmp = tmpfile();
    fflush(stderr);
    int saved = dup(2);
    if (!tmp || saved < 0 || dup2(fileno(tmp), 2) < 0) {
        perror("capturing stderr");
        exit(2);
    }
    int rc = cli_flags_parse(s, l.argc, l.argv, &o, &l.nargs);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, len - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
    return rc;
}

static void test_one_message(void)
{
    char buf[512];
    CHECK_I64(parse_stderr(&spec, (const char *const[]){"--bogus", "1", NULL}, buf, sizeof buf), 2);
    CHECK_STR(buf, "berth t: unknown flag '--bogus' (see berth t --help)\n");
    CHECK_I64(parse_stderr(&spec_b, (const char *const[]){"--count", NULL}, buf, sizeof buf), 2);
    CHECK_STR(buf, "berth t b: --count: expected a value (see berth t --help)\n");
    CHECK_I64(parse_stderr(&spec, (const char *const[]){"-a", "nomem", NULL}, buf, sizeof buf), 1);
    CHECK_STR(buf, "berth t: -a: out of memory\n");
    CHECK_I64(parse_stderr(&spec, (const char *const[]){"x", "--on", NULL}, buf, sizeof buf),
              CLI_FLAGS_GO);
    CHECK_STR(buf, "");
}

/* ---- the help ------------------------------------------------------------------------- */

static char *help_of(const struct cli_spec *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        perror("open_memstream");
        exit(2);
    }
    cli_flags_help(s, f);
    fclose(f);
    return text;
}

static const struct cli_flag help_main[] = {
    {"cluster", 'c', "SPEC",
     "where it runs: a shorthand such as 16x4:v100, a JSON cluster file, or a built-in name "
     "(philly, gavel, tiresias)",
     .kind = CLI_STR},
    {"json", 0, NULL, "print one JSON object", .kind = CLI_ON},
    {"all", 'a', NULL, "its letter is quiet", .kind = CLI_ON, .bits = CLI_QUIET_LETTER},
    {"hidden", 'x', NULL, NULL, .kind = CLI_ON},
    {"profile", 0, "NAME",
     "job shapes\n  gavel   Gavel's generator: 1/2/4/8 GPUs with durations from one of two "
     "ranges\n  philly  fitted to the Philly trace",
     .kind = CLI_STR},
    {0},
};

static const struct cli_flag help_more[] = {
    {"server", 0, "URL", "continues the section before", .kind = CLI_STR},
    {0},
};

static const struct cli_flag help_titled[] = {
    {"inference", 0, "FILE | diurnal[:PEAK,TROUGH[,PERIOD_H[,STEP_S]]]",
     "a head too long for the column puts its text on the next line", .kind = CLI_STR},
    {"mode", 0, "M", "short", .kind = CLI_STR},
    CLI_HELP_FLAG,
    {0},
};

static const struct cli_section help_sections[] = {
    {NULL, help_main, 0},
    {NULL, help_more, 0},
    {"Pools (a titled section, its own column):", help_titled, 0},
    {0},
};

static void test_help(void)
{
    static const struct cli_spec s = {
        .cmd = "demo",
        .usage = "demo run --cluster SPEC [--json] [--profile NAME] [--server URL] "
                 "[--inference FILE | diurnal] [--mode M] [--help]\n"
                 "demo list",
        .about = "An about text wraps at 80 columns like every other text of the help, and a "
                 "line break\nis kept.\n\nA paragraph.",
        .sections = help_sections,
        .epilogue = "Exit status: 0 done,\n2 bad input.",
    };
    char *h = help_of(&s);
    CHECK_STR(h,
              "usage: berth demo run --cluster SPEC [--json] [--profile NAME] [--server URL]\n"
              "                      [--inference FILE | diurnal] [--mode M] [--help]\n"
              "       berth demo list\n"
              "\n"
              "An about text wraps at 80 columns like every other text of the help, and a line\n"
              "break\n"
              "is kept.\n"
              "\n"
              "A paragraph.\n"
              "\n"
              "  -c, --cluster SPEC  where it runs: a shorthand such as 16x4:v100, a JSON\n"
              "                      cluster file, or a built-in name (philly, gavel, tiresias)\n"
              "      --json          print one JSON object\n"
              "      --all           its letter is quiet\n"
              "      --profile NAME  job shapes\n"
              "                        gavel   Gavel's generator: 1/2/4/8 GPUs with durations\n"
              "                                from one of two ranges\n"
              "                        philly  fitted to the Philly trace\n"
              "      --server URL    continues the section before\n"
              "\n"
              "Pools (a titled section, its own column):\n"
              "  --inference FILE | diurnal[:PEAK,TROUGH[,PERIOD_H[,STEP_S]]]\n"
              "            a head too long for the column puts its text on the next line\n"
              "  --mode M  short\n"
              "  --help    show this help and exit\n"
              "\n"
              "Exit status: 0 done,\n"
              "2 bad input.\n");
    free(h);
    /* no flags, no about: the usage line alone */
    static const struct cli_spec bare = {.cmd = "bare", .usage = "bare"};
    h = help_of(&bare);
    CHECK_STR(h, "usage: berth bare\n");
    free(h);
    /* every line of a help fits in the width */
    h = help_of(&s);
    for (char *p = h, *nl; (nl = strchr(p, '\n')); p = nl + 1)
        CHECK(nl - p <= CLI_HELP_WIDTH);
    free(h);
}

static const struct check_test tests[] = {
    {"long_forms", test_long_forms},
    {"short_forms", test_short_forms},
    {"operands", test_operands},
    {"missing_values", test_missing_values},
    {"unknown_flags", test_unknown_flags},
    {"numbers", test_numbers},
    {"repeats", test_repeats},
    {"setters_and_help", test_setters_and_help},
    {"one_message", test_one_message},
    {"help", test_help},
};

CHECK_MAIN(tests)
