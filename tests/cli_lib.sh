# Helpers shared by the tests/cli_*.sh end-to-end tests (sourced, not run): a scratch
# folder $W removed on exit, pass/fail counters, and checks of exit codes and messages.
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
# check NAME COMMAND...: passes when the command succeeds
check() {
    local name=$1
    shift
    if "$@"; then ok "$name"; else bad "$name"; fi
}
# the summary: exits 1 when a check failed
finish() {
    echo "$pass passed, $failn failed"
    [ "$failn" = 0 ]
}
