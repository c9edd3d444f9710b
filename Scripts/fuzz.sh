#!/usr/bin/env bash
# Builds the coverage-guided fuzz targets (Fuzz/Targets: libFuzzer + AddressSanitizer/LeakSanitizer, release, only
# with AFE_FUZZ=1 so the normal build never sees them) and runs each for a fixed time over its committed seed
# corpus (Fuzz/corpus/<target>) and the inputs that once crashed it (Fuzz/regressions/<target>). Fails on any crash,
# trap, sanitizer or leak report, timeout (10 s per input) or out-of-memory (2 GB), and on a target that is not
# instrumented (no coverage). A finding is left in .build/fuzz-artifacts/<target>/ with the log; reproduce it with
# `SWIFT_BACKTRACE=enable=no .build/fuzz/release/<target> <file>`, minimize with `-minimize_crash=1`.
#
# Usage: Scripts/fuzz.sh [--seconds N] [--runs N] [--no-asan] [target ...]
#   --seconds N  time per target (default 25; CI). --runs N: stop each after N executions instead (e.g. 1000000).
#   --no-asan    coverage only (Swift's own traps still count; .build/fuzz-plain): several times faster where
#                ASan's allocator dominates (FuzzAudioFile: each header claim reserves up to 64 MiB, whose shadow
#                ASan writes on every allocation). For long campaigns; CI runs with ASan.
#   targets      default: all six (FuzzNuiParameters FuzzServerMessages FuzzAudioFile FuzzOggOpus FuzzNuiCalls
#                FuzzPlaybackDecoders).
# Cost in CI: 3 min 10 s measured cold (build ~1 min, then 5 x 26 s). Long campaigns: nice, one target at a time.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=25 runs="" asan=1
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --no-asan) asan=0; shift ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(FuzzNuiParameters FuzzServerMessages FuzzAudioFile FuzzOggOpus FuzzNuiCalls FuzzPlaybackDecoders)

export AFE_FUZZ=1
# The Swift runtime's backtracer would catch the signal first (and trip ASan reading memory); libFuzzer reports.
export SWIFT_BACKTRACE=enable=no
# LeakSanitizer on (libFuzzer checks after each input
# that leaked). Suppressions: Fuzz/lsan.supp (each commented; patterns match mangled names without the leading $).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0}"
scratch=.build/fuzz
# SwiftPM's --sanitize=fuzzer links the executables for libFuzzer's main; ASan is added with one -sanitize= list,
# not a second --sanitize: swiftc keeps only the last -sanitize= it is given, and SwiftPM orders its sanitizers
# differently from run to run, so a build got either coverage or ASan for the Swift code, not both.
build=(swift build -c release --scratch-path "$scratch" --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address
       -Xcc -fsanitize=address)
if [ "$asan" = 0 ]; then
  scratch=.build/fuzz-plain
  build=(swift build -c release --scratch-path "$scratch" --sanitize=fuzzer)
fi

# Bytes of coverage counters in a target (its __sancov_cntrs section): a few hundred when only the target's own
# file is instrumented (objects left from a build with other flags); then the scratch path is built again.
counters() {
  local hex
  hex=$(objdump -h "$scratch/release/$1" 2>/dev/null | awk '/__sancov_cntrs/ { print $3 }')
  echo $((16#${hex:-0}))
}
for target in "${targets[@]}"; do
  for attempt in 1 2; do
    echo "== build $target"
    nice -n 10 "${build[@]}" --product "$target" 2>&1 | grep -E "error|warning: .*Fuzz|Compiling|complete" || true
    [ -x "$scratch/release/$target" ] || { echo "fuzz.sh: $target did not build"; exit 1; }
    [ "$(counters "$target")" -gt 4096 ] && break
    echo "   $target has $(counters "$target") coverage counters: rebuilding its modules"
    rm -rf "$scratch"
  done
done

failed=0
for target in "${targets[@]}"; do
  artifacts=".build/fuzz-artifacts/$target"
  work="$(mktemp -d)" # new inputs go here, the committed corpus stays as it is
  rm -rf "$artifacts" && mkdir -p "$artifacts" Fuzz/regressions/"$target"
  options=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/")
  [ "$target" = FuzzAudioFile ] && options+=(-max_len=16384)
  # The SDK ends a dialog's threads (drain, network, callbacks) asynchronously after nui_release returns: a leak
  # check right after an input sees their last objects (weak-reference side tables held by a thread's closure)
  # as leaked. The C ABI's leaks are checked at process exit by Scripts/asan-tests.sh instead.
  [ "$target" = FuzzNuiCalls ] && options+=(-detect_leaks=0)
  if [ -n "$runs" ]; then options+=(-runs="$runs"); else options+=(-max_total_time="$seconds"); fi
  echo "== fuzz $target ($(if [ -n "$runs" ]; then echo "$runs runs"; else echo "$seconds s"; fi))"
  start=$SECONDS
  status=0
  nice -n 10 "$scratch/release/$target" "${options[@]}" "$work" "Fuzz/corpus/$target" "Fuzz/regressions/$target" \
    > "$artifacts/log.txt" 2>&1 || status=$?
  rm -rf "$work"
  executions=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$artifacts/log.txt" | grep -o '[0-9]*$' || echo 0)
  rate=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$artifacts/log.txt" | grep -o '[0-9]*$' || echo 0)
  coverage=$(grep -o 'INITED cov: [0-9]*' "$artifacts/log.txt" | grep -o '[0-9]*$' || echo 0)
  echo "   $executions executions, $rate/s, coverage $coverage at start, $((SECONDS - start)) s, exit $status"
  if [ "$status" -ne 0 ]; then
    echo "fuzz.sh: $target FAILED; the input and the log are in $artifacts/:"
    grep -E "ERROR|Fatal error|SUMMARY|Test unit written" "$artifacts/log.txt" | head -8
    grep -E "^ +#[0-9]+ 0x.* in .*(Sources|Fuzz)/" "$artifacts/log.txt" | head -8
    failed=1
  elif [ "$coverage" -eq 0 ]; then
    echo "fuzz.sh: $target is not instrumented (no coverage at start): rebuild with rm -rf $scratch"
    failed=1
  fi
done
exit $failed
