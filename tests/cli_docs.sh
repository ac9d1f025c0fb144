#!/usr/bin/env bash
# Keeps the documentation in step with the programs: the man pages docs/man/berth.1 and
# docs/man/berthd.8 and the bash completion contrib/bash-completion/berth must offer exactly
# the flags that `berth CMD --help` and `berthd --help` print, name every command, and the
# pages must render without a groff warning. A flag added to a --help text without its
# documentation (or documented after it left the program) fails here, naming both.
# Usage: bash tests/cli_docs.sh PATH/TO/berth SRC_DIR SHARED_DIR (berthd lies next to berth)
set -u
BERTH=${1:?usage: cli_docs.sh BERTH SRC_DIR SHARED_DIR}
SRC=${2:?usage: cli_docs.sh BERTH SRC_DIR SHARED_DIR}
. "$SRC/tests/cli_lib.sh"
BERTHD=$(dirname "$BERTH")/berthd
MAN1=$SRC/docs/man/berth.1
MAN8=$SRC/docs/man/berthd.8
COMP=$SRC/contrib/bash-completion/berth
for f in "$MAN1" "$MAN8" "$COMP" "$BERTHD"; do
    [ -e "$f" ] || { bad "$f is missing"; finish; exit 1; }
done

# ---- reading help texts and roff -------------------------------------------------------
# long flags (--name) in a text on stdin, one a line, sorted
long_flags() { grep -oE -- '--[a-z][a-z0-9-]*' | sed 's/-*$//' | sort -u; }
# short flags a help text defines: "  -g, --gpus" at a line's start, or "[-f|--follow]"
help_short_flags() {
    grep -oE -- '(^[[:space:]]*|\[)-[A-Za-z]([],|]|[[:space:]]|$)' | grep -oE -- '-[A-Za-z]' | sort -u
}
# short flags in roff tag lines already turned into text (see roff_text)
text_short_flags() {
    grep -oE -- '(^|[^A-Za-z0-9_-])-[A-Za-z]([^A-Za-z0-9_-]|$)' | grep -oE -- '-[A-Za-z]' | sort -u
}
# roff source on stdin as plain text: escapes and font changes removed, comments dropped
roff_text() {
    grep -v '^\.\\"' | sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\f(..//g' \
        -e 's/\\(..//g' -e 's/\\[&:]//g' -e 's/\\e/\\/g'
}
# man_section PAGE NAME: the roff lines of subsection .SS "NAME" under .SH COMMANDS, or of
# the whole .SH NAME when NAME is a section (OPTIONS)
man_section() {
    awk -v want="$2" '
        /^\.SH/ { s = $0; sub(/^\.SH[ \t]+/, "", s); gsub(/"/, "", s)
                  sh = s; ss = ""; if (sh == want) { on = 1; next } on = 0; next }
        /^\.SS/ { s = $0; sub(/^\.SS[ \t]+/, "", s); gsub(/"/, "", s); ss = s; on = 0
                  if (sh == "COMMANDS" && ss == want) on = 1; next }
        on { print }' "$1"
}
# the .SS names under .SH COMMANDS
man_subsections() {
    awk '/^\.SH/ { c = ($0 ~ /^\.SH "?COMMANDS"?[ \t]*$/); next }
         c && /^\.SS/ { s = $0; sub(/^\.SS[ \t]+/, "", s); gsub(/"/, "", s); print s }' "$1"
}
# the tag lines (the line after each .TP) of roff on stdin
tag_lines() { awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }'; }
# in_set WORD LIST: WORD is one of LIST's lines
in_set() { printf '%s\n' "$2" | grep -qxF -- "$1"; }
# compare WHAT NOUN WANT GOT WANT_SRC GOT_SRC: every line of WANT is in GOT and the reverse
compare() {
    local what=$1 noun=$2 want=$3 got=$4 wsrc=$5 gsrc=$6 f n=0 fail=0
    for f in $want; do
        n=$((n + 1))
        in_set "$f" "$got" || { bad "$what: $noun $f is in $wsrc but not in $gsrc"; fail=1; }
    done
    for f in $got; do
        in_set "$f" "$want" || { bad "$what: $noun $f is in $gsrc but not in $wsrc (stale)"; fail=1; }
    done
    [ $fail = 0 ] && ok "$what: the $n ${noun}s of $wsrc, exactly"
}

# ---- the programs' own word --------------------------------------------------------------
"$BERTH" --help >"$W/main.help" 2>&1 || bad "berth --help: exit $?"
COMMANDS=$(awk '/^commands:/ { c = 1; next } c && /^$/ { exit } c && /^  [a-z]/ { print $1 }' "$W/main.help")
[ -n "$COMMANDS" ] || bad "berth --help lists no commands: $(head -c 300 "$W/main.help")"
VERSION=$("$BERTH" version | awk '{ print $2 }')
for cmd in $COMMANDS; do # stdout only: `berth help --help` says on stderr that it has none
    "$BERTH" "$cmd" --help >"$W/$cmd.help" 2>/dev/null
done
"$BERTHD" --help >"$W/berthd.help" 2>&1 || bad "berthd --help: exit $?"
TRACE_SUBS=$(grep -oE 'berth trace [a-z]+' "$W/trace.help" | awk '{ print $3 }' | sort -u)
[ -n "$TRACE_SUBS" ] || bad "berth trace --help names no subcommand"
# every flag either program prints, and what main() takes beyond its help: berth --version
ALL_FLAGS=$( (cat "$W"/*.help; echo --version) | long_flags)

# ---- (d) every command has its section and synopsis line; no section is stale -------------
SUBSECTIONS=$(man_subsections "$MAN1")
SYNOPSIS=$(man_section "$MAN1" SYNOPSIS | roff_text)
for cmd in $COMMANDS; do
    in_set "berth $cmd" "$SUBSECTIONS" && ok "berth.1 has a section for berth $cmd" ||
        bad "berth.1: no .SS \"berth $cmd\" under COMMANDS for the command berth --help lists"
    printf '%s\n' "$SYNOPSIS" | grep -qE "^(\.B )?berth $cmd( |\$)" ||
        bad "berth.1: berth $cmd is missing from SYNOPSIS"
done
for s in $(printf '%s\n' "$SUBSECTIONS" | sed 's/ /_/g'); do
    c=${s#berth_}
    in_set "$c" "$COMMANDS" || bad "berth.1: section \"${s//_/ }\" documents no command of berth --help (stale)"
done
TRACE_SECTION=$(man_section "$MAN1" "berth trace")
for sub in $TRACE_SUBS; do
    printf '%s\n' "$TRACE_SECTION" | tag_lines | roff_text | grep -qE "^(\.B )?$sub( |\$)" &&
        printf '%s\n' "$SYNOPSIS" | grep -qE "^(\.B )?berth trace $sub( |\$)" &&
        ok "berth.1 describes berth trace $sub" ||
        bad "berth.1: berth trace $sub needs a tag in the berth trace section and a SYNOPSIS line"
done

# ---- (a) each command's section documents exactly the flags of its --help -----------------
for cmd in $COMMANDS; do
    want=$(
        long_flags <"$W/$cmd.help"
        help_short_flags <"$W/$cmd.help"
    )
    section=$(man_section "$MAN1" "berth $cmd")
    got=$(
        printf '%s\n' "$section" | roff_text | long_flags
        printf '%s\n' "$section" | tag_lines | roff_text | text_short_flags
    )
    compare "berth.1, berth $cmd" flag "$(printf '%s\n' "$want" | sort -u)" \
        "$(printf '%s\n' "$got" | sort -u)" "'berth $cmd --help'" "its section of berth.1"
done
want=$(long_flags <"$W/berthd.help")
got=$(man_section "$MAN8" OPTIONS | roff_text | long_flags)
compare "berthd.8, OPTIONS" flag "$want" "$got" "'berthd --help'" "OPTIONS of berthd.8"

# everywhere else in the pages: no flag that neither program has. EXAMPLES run other
# programs too (python, sbatch): there only berth and berthd command lines count, up to --.
for page in "$MAN1" "$MAN8"; do
    name=$(basename "$page")
    stray=$(awk '
        /^\.SH/ { ex = ($0 ~ /^\.SH "?EXAMPLES"?/); cont = 0; print; next }
        !ex { print; next }
        { line = $0; keep = cont || line ~ /^berthd? /; cont = keep && line ~ /\\e$/
          if (keep) { sub(/ \\-\\- .*/, "", line); print line } }' "$page" | roff_text | long_flags)
    n=0
    for f in $stray; do
        in_set "$f" "$ALL_FLAGS" || { bad "$name mentions $f, a flag neither berth nor berthd has"; n=1; }
    done
    [ $n = 0 ] && ok "$name names no flag the programs lack"
    # flags are typed \-\-name (a hyphen-minus to copy), never --name (a typographic hyphen)
    raw=$(grep -v '^\.\\"' "$page" | grep -nE -- '(^|[^\\])--[a-z]' | head -3 | tr '\n' ' ')
    [ -z "$raw" ] && ok "$name writes its flags as \\-\\-name" ||
        bad "$name: flags written with plain hyphens (write \\-\\-name): $raw"
    grep -q "^\.TH .*\"berth $VERSION\"" "$page" && ok "$name is the page of berth $VERSION" ||
        bad "$name: .TH does not say \"berth $VERSION\" (berth version)"
done

# ---- (b) the pages render without warnings ------------------------------------------------
if command -v man >/dev/null 2>&1; then
    for page in "$MAN1" "$MAN8"; do
        LC_ALL=C MANWIDTH=80 man --warnings -l -E UTF-8 "$page" >"$W/render" 2>"$W/render.err"
        if [ -s "$W/render.err" ] || [ ! -s "$W/render" ]; then
            bad "man --warnings -l $(basename "$page"): $(head -c 400 "$W/render.err")"
        else
            ok "$(basename "$page") renders without warnings (man)"
        fi
    done
elif command -v groff >/dev/null 2>&1; then
    for page in "$MAN1" "$MAN8"; do
        LC_ALL=C groff -ww -man -Tutf8 "$page" >"$W/render" 2>"$W/render.err"
        if [ -s "$W/render.err" ] || [ ! -s "$W/render" ]; then
            bad "groff -ww -man $(basename "$page"): $(head -c 400 "$W/render.err")"
        else
            ok "$(basename "$page") renders without warnings (groff)"
        fi
    done
else
    echo "SKIP man page rendering: man and groff absent"
fi

# ---- (c) the bash completion, run in bash -------------------------------------------------
# complete WORD...: what _berth offers for the command line WORD... (the last word is the
# one being completed), one a line. NO_BERTH=1: as if berth were not on PATH.
complete_words() {
    "$BASH" --norc --noprofile -c '
        . "$0" || exit 1
        [ -n "${NO_BERTH-}" ] && PATH=/nonexistent
        complete -p berth >/dev/null || { echo "berth: no completion registered" >&2; exit 1; }
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        _berth || exit 1
        printf "%s\n" "${COMPREPLY[@]}"' "$COMP" "$@" 2>"$W/comp.err" | sort -u
    [ -s "$W/comp.err" ] && bad "completing '$*': stderr: $(head -c 200 "$W/comp.err")"
}
lines() { printf '%s\n' "$@" | sort -u; }

compare "completion of 'berth '" command "$(lines $COMMANDS)" "$(complete_words "$BERTH" "")" \
    "berth --help" "the completion"
compare "completion of 'berth help '" command "$(lines $COMMANDS)" \
    "$(complete_words "$BERTH" help "")" "berth --help" "the completion"
compare "completion of 'berth trace '" subcommand "$(lines $TRACE_SUBS)" \
    "$(complete_words "$BERTH" trace "")" "berth trace --help" "the completion"
for cmd in $COMMANDS; do
    [ "$cmd" = trace ] && continue
    compare "completion of 'berth $cmd --'" flag "$(long_flags <"$W/$cmd.help")" \
        "$(complete_words "$BERTH" "$cmd" --)" "'berth $cmd --help'" "the completion"
    want=$( (long_flags <"$W/$cmd.help"; help_short_flags <"$W/$cmd.help") | sort -u)
    got=$(complete_words "$BERTH" "$cmd" - | grep -vxF -- --) # submit's "--" separator
    compare "completion of 'berth $cmd -'" flag "$want" "$got" "'berth $cmd --help'" "the completion"
done
# trace: each subcommand's flags are those of its usage lines, plus --help when it is printed
USAGE=$(awk '/^usage:/ { u = 1 } u && /^$/ { exit } u' "$W/trace.help")
HELPFLAG=$(grep -oE -- '--help' "$W/trace.help" | head -1)
union=$(complete_words "$BERTH" trace --)
for sub in $TRACE_SUBS; do
    want=$(
        printf '%s\n' "$USAGE" | awk -v s="$sub" '$0 ~ "berth trace " { on = ($0 ~ "berth trace " s " ") || ($0 ~ "berth trace " s "$") } on' | long_flags
        [ -n "$HELPFLAG" ] && echo "$HELPFLAG"
    )
    got=$(complete_words "$BERTH" trace "$sub" --)
    union=$(printf '%s\n%s\n' "$union" "$got")
    compare "completion of 'berth trace $sub --'" flag "$(lines $want)" "$got" \
        "its line of 'berth trace --help'" "the completion"
done
compare "completion of 'berth trace'" flag "$(long_flags <"$W/trace.help")" "$(lines $union)" \
    "'berth trace --help'" "the completion of its subcommands"

# values: names asked from berth itself, and fixed ones
policies=$("$BERTH" policies | awk '/^policies/ { p = 1; next } /^$/ { p = 0 } p && /^  [a-z]/ { print $1 }')
placements=$("$BERTH" policies | awk '/^placements/ { p = 1; next } p && /^  [a-z]/ { print $1 }')
compare "completion of 'berth sim --policy '" "policy name" "$(lines $policies)" \
    "$(complete_words "$BERTH" sim --policy "")" "berth policies" "the completion"
compare "completion of 'berth sim --policy=l'" "policy name" "$(lines $policies | grep '^l')" \
    "$(complete_words "$BERTH" sim --policy = l)" "berth policies" "the completion"
compare "completion of 'berth sim --placement '" placement "$(lines $placements)" \
    "$(complete_words "$BERTH" sim --placement "")" "berth policies" "the completion"
compare "completion of 'berth sim --format '" format "$(lines auto $("$BERTH" trace formats))" \
    "$(complete_words "$BERTH" sim --format "")" "berth trace formats" "the completion"
compare "completion of 'berth trace stats --format '" format "$(lines auto $("$BERTH" trace formats))" \
    "$(complete_words "$BERTH" trace stats --format "")" "berth trace formats" "the completion"
compare "completion of 'berth sim --mode '" mode "$(lines des rounds gavel blox tiresias)" \
    "$(complete_words "$BERTH" sim --mode "")" "berth sim --help" "the completion"
for sw in --round-admit --round-release --round-jct --flat-progress --round-early-end --whole-steps; do
    compare "completion of 'berth sim $sw '" value "$(lines on off)" \
        "$(complete_words "$BERTH" sim $sw "")" "berth sim --help" "the completion"
done
compare "completion of 'berth sim --spread-rates '" value "$(lines measured off)" \
    "$(complete_words "$BERTH" sim --spread-rates "")" "berth sim --help" "the completion"
compare "completion of 'berth sim --progress '" value "$(lines steps duration)" \
    "$(complete_words "$BERTH" sim --progress "")" "berth sim --help" "the completion"
compare "completion of 'berth pack --scorer '" scorer \
    "$(lines fgd best-fit first-fit dot-product random fgd-k8s)" \
    "$(complete_words "$BERTH" pack --scorer "")" "berth pack --help" "the completion"
mkdir -p "$W/files" && touch "$W/files/trace-a.csv" "$W/files/trace-b.csv"
compare "completion of 'berth sim --trace FILE'" file "$(lines "$W/files/trace-a.csv" "$W/files/trace-b.csv")" \
    "$(complete_words "$BERTH" sim --trace "$W/files/tr")" "the folder" "the completion"
[ -z "$(complete_words "$BERTH" sim --seed "")" ] && ok "completion offers nothing for a number (--seed N)" ||
    bad "completion offers words for berth sim --seed N"
[ -z "$(complete_words "$BERTH" submit -g 2 -- python3 -)" ] &&
    ok "completion offers no berth flag among the job's own arguments" ||
    bad "completion offers berth submit's flags after the job's command"
# without a berth to ask, names are simply not offered
got=$(NO_BERTH=1 complete_words berth sim --policy "")
[ -z "$got" ] && ok "completion without berth on PATH: no policy names, no error" ||
    bad "completion without berth on PATH offered: $got"

finish
