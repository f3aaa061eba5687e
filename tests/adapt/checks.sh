# Sourced by the SimGrid check scripts of this folder (lean.sh, defer.sh): a scratch folder
# removed at exit ($tmp), and the check lines: ok TEXT, bad TEXT (which sets $fail to 1).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
