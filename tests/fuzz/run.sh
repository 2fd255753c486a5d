#!/usr/bin/env bash
# Builds Cairn's libFuzzer targets (CAIRN_FUZZ=ON, clang-14, ASan + UBSan) in build-fuzz and runs
# each for SECONDS (default 20) over its kept seed corpus (tests/fuzz/corpus/<target>). Fails on
# any crash, leak, timeout, out-of-memory or violated property, leaving the input in
# build-fuzz/artifacts. New inputs go to build-fuzz/corpus/<target>, never into the kept corpus.
#
#   tests/fuzz/run.sh [SECONDS]      CAIRN_FUZZ_TARGETS="json schema" to run only some
#
# See docs/limits.md ("Fuzzing") for reproducing a finding and minimising the corpus.
set -euo pipefail
seconds=${1:-20}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${CAIRN_FUZZ_BUILD:-$root/build-fuzz}
targets=${CAIRN_FUZZ_TARGETS:-json iceberg_type schema commit table_metadata gravitino_type mcp sign scan_filter hive_type http_request}

for tool in clang-14 clang++-14; do
  command -v "$tool" >/dev/null || { echo "fuzz: $tool not found (scripts/install-deps.sh test)" >&2; exit 1; }
done
# Configuring again is cheap, and turns CAIRN_FUZZ on in a directory configured without it.
generator=()
[ -f "$build/CMakeCache.txt" ] || generator=(-G Ninja)
CC=clang-14 CXX=clang++-14 cmake -S "$root" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCAIRN_FUZZ=ON -DCAIRN_BUILD_TESTS=OFF -DCAIRN_UI=OFF >/dev/null
build_targets=()
for t in $targets; do build_targets+=("fuzz_$t"); done
cmake --build "$build" --target "${build_targets[@]}"

dict_for() {
  case $1 in
    json | sign) echo "" ;;
    gravitino_type) echo "$root/tests/fuzz/gravitino.dict" ;;
    mcp) echo "$root/tests/fuzz/mcp.dict" ;;
    http_request) echo "$root/tests/fuzz/http.dict" ;;
    *) echo "$root/tests/fuzz/iceberg.dict" ;;
  esac
}

mkdir -p "$build/artifacts"
failed=0
summary=()
for t in $targets; do
  work="$build/corpus/$t"
  log="$build/fuzz_$t.log"
  mkdir -p "$work"
  dict=$(dict_for "$t")
  # -timeout: one input may take 10 s (the slowest seen take milliseconds); -rss_limit_mb: the
  # box is shared; -max_len: room for documents at the JSON nesting limit (~30 KB).
  set +e
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    ${dict:+-dict="$dict"} -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" \
    "$work" "$root/tests/fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  if [ "$rc" -eq 0 ]; then
    summary+=("fuzz $t: ok, ${runs:-?} runs in ${seconds}s, coverage ${cov:-?}")
  else
    failed=1
    what=$(grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|property violated|terminate called|ALARM' "$log" || true)
    unit=$(grep -o "Test unit written to .*" "$log" | tail -1 | sed 's/Test unit written to //')
    summary+=("fuzz $t: FAILED (exit $rc) ${what:-see $log} ${unit:+input: $unit}")
  fi
done
printf '%s\n' "${summary[@]}"
[ "$failed" -eq 0 ] || { echo "fuzz: failures above; logs in $build/fuzz_<target>.log" >&2; exit 1; }
