# Sourced by the scripts that simulate run files (tests/mapper/search_vs_auto.sh,
# tests/fusion/fused_vs_unfused.sh) with their arguments STRIDER REPO_ROOT [RUN_NAME...]: sets
# `strider`, `root`, `runs` (the named run files of configs/runs, or every one) and `tmp`, a
# scratch directory removed on exit.
strider=$1
root=$2
shift 2
runs=()
for name in "$@"; do runs+=("$root/configs/runs/$name.yaml"); done
(( ${#runs[@]} )) || runs=("$root"/configs/runs/*.yaml)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
