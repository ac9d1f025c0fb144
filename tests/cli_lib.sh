# Helpers shared by the tests/cli_*.sh end-to-end tests (sourced, not run): a scratch
# folder $W removed on exit, pass/fail counters, checks of exit codes and messages, and waits
# for a condition with a deadline.
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
pass=0 failn=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; failn=$((failn + 1)); }
expect_rc() { # expect_rc WANT DESCRIPTION -- command...
    local want=$1 what=$2; shift 3
    "$@" >"$W/out" 2>"$W/err"; local rc=$?
    [ "$rc" = "$want" ] && ok "$what (exit $rc)" || bad "$what: exit $rc, want $want: $(head -c 300 "$W/err")"
}
has() { grep -qF -- "$2" "$1" && ok "$3" || bad "$3: '$2' not in: $(head -c 300 "$1")"; }
# one_error DESCRIPTION WANT -- command...: a bad flag gets one error: exit 2, nothing on
# stdout, and one line on stderr that says WANT and points at the command's --help
one_error() {
    local what=$1 want=$2; shift 3
    "$@" >"$W/out" 2>"$W/err"; local rc=$? n
    n=$(wc -l <"$W/err")
    if [ "$rc" = 2 ] && [ "$n" = 1 ] && [ ! -s "$W/out" ] && grep -qF -- "$want" "$W/err" &&
        grep -qE -- '\(see berth [a-z]+ --help\)$' "$W/err"; then
        ok "$what: one error, exit 2"
    else
        bad "$what: exit $rc, $n lines on stderr, want one saying '$want': $(head -c 300 "$W/err")"
    fi
}
# check NAME COMMAND...: passes when the command succeeds
check() {
    local name=$1
    shift
    if "$@"; then ok "$name"; else bad "$name"; fi
}
# wait_for SECONDS WHAT COMMAND...: polls COMMAND every 0.05 s until it succeeds; after
# SECONDS (a deadline, generous for a loaded machine and a sanitized build) it fails the check
# "waiting for WHAT" and returns 1. Never a fixed sleep before an assertion: wait for it.
wait_for() {
    local t=$1 what=$2 end=$((SECONDS + $1))
    shift 2
    until "$@"; do
        [ "$SECONDS" -lt "$end" ] || {
            bad "timed out after $t s waiting for $what"
            return 1
        }
        sleep 0.05
    done
}
# Optional parts (Slurm, PyTorch, a GPU): a test that lacks one says so on a line starting
# "SKIP", never fails for it, and never skips it silently. BERTH_REQUIRE (a comma list such
# as "torch" or "slurm,torch") names the parts that must be here: make test installs PyTorch
# and sets torch, make test-slurm installs Slurm and PyTorch and sets slurm,torch; there an
# absence fails.
required() { case ",${BERTH_REQUIRE:-}," in *",$1,"*) return 0 ;; esac; return 1; }
# absent PART WHY...: one part of this test cannot run here
absent() {
    local part=$1
    shift
    if required "$part"; then bad "$* (BERTH_REQUIRE names $part)"; else echo "SKIP $*"; fi
}
# gloo_python: the path of a Python with PyTorch and its Gloo backend (BERTH_PYTHON first,
# then python3), empty when there is none (the elastic examples' workers need Gloo)
gloo_python() {
    local py
    for py in ${BERTH_PYTHON:-} python3 /usr/bin/python3; do
        "$py" -c 'import torch, torch.distributed as d; assert d.is_gloo_available()' 2>/dev/null &&
            { command -v "$py"; return; }
    done
}
# skip_test PART WHY...: the rest of this test needs PART: it ends here, reported to CTest as
# skipped (exit 77) when nothing failed before
skip_test() {
    absent "$@"
    echo "$pass passed, $failn failed, the rest skipped"
    [ "$failn" = 0 ] && exit 77
    exit 1
}
# the summary: exits 1 when a check failed
finish() {
    echo "$pass passed, $failn failed"
    [ "$failn" = 0 ]
}
# chrome ARGS...: Debian's chromium, headless, with nothing of its own on the network and a
# fresh profile each time (under $W); stderr to $W/chrome.err. Give it --dump-dom or
# --screenshot=FILE and a URL. have_chrome says whether it is installed.
have_chrome() { command -v chromium >/dev/null 2>&1; }
chrome() {
    local profile
    profile=$(mktemp -d "$W/chrome.XXXXXX")
    timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --disable-extensions --hide-scrollbars --user-data-dir="$profile" "$@" 2>"$W/chrome.err"
}
# artefact NAME: a path for a file a test keeps for people to look at (screenshots), under
# the build folder's test-artefacts/ (the berth binary's folder)
artefact() {
    local d
    d=$(dirname "$BERTH")/test-artefacts
    mkdir -p "$d" && echo "$d/$1"
}
