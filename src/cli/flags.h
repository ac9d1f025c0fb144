/* The berth command's flags as tables: each command describes its flags once (name, letter,
 * value, help, where the value goes) and one parser reads argv by that table while one writer
 * prints --help from it, so a command's flags, its errors and its help cannot drift apart. */
#ifndef BERTH_CLI_FLAGS_H
#define BERTH_CLI_FLAGS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "berth/berth.h"

/* How a flag's value is stored. The typed kinds write at the entry's offset (CLI_AT); the
 * setter kind calls set. */
enum cli_kind {
    CLI_CALL, /* set(f, base, value, err) does it (value NULL for a flag without one) */
    CLI_ON,   /* int = 1; the flag takes no value */
    CLI_STR,  /* const char * = the value itself (it points into argv) */
    CLI_U64,  /* uint64_t, a whole number from lo to hi (hi 0: no upper bound) */
    CLI_SECS, /* berth_us, a number of seconds > 0 (at least 1 microsecond) */
    CLI_NUM,  /* double, a number from lo to hi */
    CLI_HELP, /* prints the help and ends the command (exit 0) */
};

enum {
    CLI_ONCE = 1 << 0,        /* given twice is an error (the second would be lost) */
    CLI_QUIET_LETTER = 1 << 1 /* the letter is taken but the help does not show it */
};

struct cli_flag {
    const char *name; /* long name, without "--" */
    char letter;      /* short letter (-g), or 0 */
    const char *arg;  /* the value's name in the help (N, FILE); NULL: takes no value */
    const char *help; /* the description ('\n' breaks a line); NULL: taken, not listed */
    enum cli_kind kind;
    size_t at; /* typed kinds: the target's offset in the section's struct (CLI_AT) */
    int (*set)(const struct cli_flag *f, void *base, const char *value, struct berth_err *err);
    const void *data; /* what a shared setter needs (submit: the JSON field's name) */
    double lo, hi;    /* CLI_U64, CLI_NUM: the range, both ends allowed */
    unsigned bits;    /* CLI_ONCE, CLI_QUIET_LETTER */
    unsigned only;    /* the variants that take it (trace's subcommands); 0: every one */
};

/* The offset of member m of struct type T, which must have type `type`: the flag's target.
 * A member of another type does not compile. */
#define CLI_AT(T, m, type) _Generic(&((T *)0)->m, type * : offsetof(T, m))

/* The rest of a typed entry, after its name, letter, value and help:
 * {"seed", 0, "N", "random seed", CLI_U64_AT(struct gen_args, o.seed)}. */
#define CLI_ON_AT(T, m)   .kind = CLI_ON, .at = CLI_AT(T, m, int)
#define CLI_STR_AT(T, m)  .kind = CLI_STR, .at = CLI_AT(T, m, const char *)
#define CLI_U64_AT(T, m)  .kind = CLI_U64, .at = CLI_AT(T, m, uint64_t)
#define CLI_SECS_AT(T, m) .kind = CLI_SECS, .at = CLI_AT(T, m, berth_us)
#define CLI_NUM_AT(T, m)  .kind = CLI_NUM, .at = CLI_AT(T, m, double)
/* ... or of an entry whose setter does the work. */
#define CLI_SET(fn) .kind = CLI_CALL, .set = (fn)

/* The flag every command takes, listed: a table that includes it shows it in the help. A
 * command whose tables do not have it takes --help and -h all the same, unlisted. */
#define CLI_HELP_FLAG                                                                              \
    {                                                                                              \
        "help", 'h', NULL, "show this help and exit", .kind = CLI_HELP, .bits = CLI_QUIET_LETTER   \
    }

/* A run of flags under an optional title. Its entries' targets are offsets in the struct at
 * offset `at` of the command's options (0: the options themselves), so a table can be shared
 * by commands (the client flags). A section without a title continues the one before it in
 * the help: the same column. The table ends with an entry whose name and letter are 0. */
struct cli_section {
    const char *title;
    const struct cli_flag *flags;
    size_t at;
};

/* A command's flags and help. */
struct cli_spec {
    const char *cmd;      /* in messages: "berth CMD: ..." ("trace stats") */
    const char *help_cmd; /* the command whose --help a message points at; NULL: cmd */
    const char *usage;    /* synopsis lines after "berth " ("sim --cluster SPEC ..."), '\n'
                             between lines; each is wrapped under its command words */
    const char *about;    /* text between the usage and the flags; NULL: none */
    const struct cli_section *sections; /* ends with a NULL table; NULL: no flags */
    const char *epilogue;               /* text after the flags (the exit status); NULL: none */
    unsigned variant;                   /* this spec's bit in the entries' `only` */
    int stop_at_operand; /* the first operand ends the flags (submit: the job's argv) */
};

/* Help lines are wrapped to this many columns. */
#define CLI_HELP_WIDTH 80

enum { CLI_FLAGS_GO = -1 };

/* Reads the flags of argv[1..argc-1] (argv[0] is the command's name) into opts, in order:
 * --name VALUE, --name=VALUE, an unambiguous prefix of a name, -x VALUE, -xVALUE, letters
 * together (-Hg 2), `--` ends the flags, `-` is an operand; operands may come between flags
 * unless spec->stop_at_operand. The operands, in their order, are then argv[1..*nargs].
 * Returns 0 (go on), 1 (--help was asked: nothing else was read after it), or on bad input
 * BERTH_EINPUT with err->msg naming the flag and what is wrong (BERTH_ENOMEM from a setter).
 * Flags read before a bad one are set in opts: the caller acts on none of them. */
int cli_flags_read(const struct cli_spec *spec, int argc, char **argv, void *opts, int *nargs,
                   struct berth_err *err);

/* cli_flags_read, then what the command line says: --help prints the help on stdout and
 * returns 0; bad input prints "berth CMD: MESSAGE (see berth CMD --help)" on stderr and
 * returns 2 (1 when out of memory). Returns CLI_FLAGS_GO when the command goes on. */
int cli_flags_parse(const struct cli_spec *spec, int argc, char **argv, void *opts, int *nargs);

/* Writes spec's help: the usage lines, the about text, each section's flags in an aligned
 * column with wrapped descriptions, then the epilogue. */
void cli_flags_help(const struct cli_spec *spec, FILE *f);

/* The value parsers of the typed kinds, for setters that need them. Each returns 0, or
 * BERTH_EINPUT with err->msg "expected ..., found 'S'" (no flag name: the parser adds it). */
int cli_flags_u64(const char *s, double lo, double hi, uint64_t *out, struct berth_err *err);
int cli_flags_seconds(const char *s, berth_us *out, struct berth_err *err);
int cli_flags_num(const char *s, double lo, double hi, double *out, struct berth_err *err);

#endif
