#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ for SECONDS each and reports executions, coverage and
# findings. Usage: scripts/fuzz.sh SECONDS [TARGET...]
#   FUZZ_BUILD (default build-fuzz)  build directory, configured with clang, ASan and UBSan
#   FUZZ_JOBS  (default 2)           targets run at the same time (each one process, niced)
# Seeds come from fuzz/corpus/<target>/ (checked in, kept small); inputs the fuzzer finds go to
# $FUZZ_BUILD/fuzz-work/<target>/corpus, crashes, hangs and leaks to
# $FUZZ_BUILD/fuzz-work/<target>/ as crash-*, timeout-*, oom-*, leak-*. Exit status 1 when any
# target left such a file.
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $# -lt 1 || ! "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/fuzz.sh SECONDS [TARGET...]" >&2
  exit 2
fi
secs=$1
shift
build=${FUZZ_BUILD:-build-fuzz}
jobs=${FUZZ_JOBS:-2}
all_targets=(fuzz_config_yaml fuzz_yaml_network fuzz_onnx fuzz_scalesim_csv fuzz_planner_csv
             fuzz_descriptor fuzz_descriptor_semantic)
targets=("${@:-${all_targets[@]}}")

STRIDER_FUZZ_DEPS=1 bash scripts/setup.sh  # clang and its libFuzzer runtime
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSTRIDER_FUZZ=ON -DSTRIDER_SANITIZE=ON > "$build.configure.log" 2>&1 ||
    { cat "$build.configure.log" >&2; exit 1; }
fi
nice -n 10 cmake --build "$build" --target "${targets[@]}" -j 2 > "$build/fuzz-build.log" 2>&1 ||
  { tail -40 "$build/fuzz-build.log" >&2; exit 1; }

# Reports abort the process so that libFuzzer records the input.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1:allocator_may_return_null=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:abort_on_error=1:print_stacktrace=1}

run_one() {
  local t=$1 work="$build/fuzz-work/$1"
  mkdir -p "$work/corpus"
  rm -f "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-* "$work"/slow-unit-*
  # Fork mode with -ignore_*: a finding is recorded and fuzzing goes on for the whole time.
  nice -n 10 "$build/fuzz/$t" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$work/" "$work/corpus" "fuzz/corpus/$t" > "$work/log.txt" 2>&1 || true
}

running=0
for t in "${targets[@]}"; do
  run_one "$t" &
  running=$((running + 1))
  if [[ $running -ge $jobs ]]; then
    wait -n
    running=$((running - 1))
  fi
done
wait

status=0
printf '%-20s %12s %8s %8s %8s  %s\n' target execs exec/s cov ft findings
for t in "${targets[@]}"; do
  work="$build/fuzz-work/$t"
  log="$work/log.txt"
  # Fork mode's status lines: "#EXECS: cov: C ft: F corp: N exec/s R oom/timeout/crash: a/b/c".
  last=$(grep -aE '^#[0-9]+: cov:' "$log" | tail -1 || true)
  execs=$(grep -o '^#[0-9]*' <<< "$last" | tr -d '#' || true)
  rate=$(grep -o 'exec/s [0-9]*' <<< "$last" | grep -o '[0-9]*' || true)
  cov=$(grep -o 'cov: [0-9]*' <<< "$last" | grep -o '[0-9]*' || true)
  ft=$(grep -o 'ft: [0-9]*' <<< "$last" | grep -o '[0-9]*' || true)
  found=""
  for kind in crash timeout oom leak; do
    n=$(find "$work" -maxdepth 1 -name "$kind-*" | wc -l)
    if [[ $n -gt 0 ]]; then found+="$n $kind "; fi
  done
  printf '%-20s %12s %8s %8s %8s  %s\n' "$t" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" \
    "${found:-none}"
  if [[ -n "$found" ]]; then
    status=1
    echo "    inputs: $work/{crash,timeout,oom,leak}-*"
    grep -aE 'SUMMARY: |runtime error|error message' "$log" | sort | uniq -c | sed 's/^/    /' ||
      true
    echo "    log: $log"
  fi
done
exit $status
