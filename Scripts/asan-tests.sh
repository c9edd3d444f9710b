#!/usr/bin/env bash
# Sanitizers as a gate for the C ABI: builds libnui.so and the tests with AddressSanitizer (debug,
# .build/asan), then runs the C ABI tests (Tests/NuiCTests): the C and C++ programs, compiled by the toolchain's
# clang with -fsanitize=address against that libnui.so, run dialogs against the reference server and are checked by
# LeakSanitizer when they exit; the in-process C ABI tests run under AddressSanitizer. Any report (an ASan error in
# the test process or a program, a leak in a program) makes a test or the run fail. LSan suppressions:
# Fuzz/lsan.supp (each commented). The test runner's own leaks (XCTest, Foundation.Process) are not checked.
# Cost: the ASan build ~1.5 min cold (incremental after), the tests ~20 s (+ ~4 s: the TTS C and C++ programs,
# + ~15 s: the playback C and C++ programs, + ~3 s: barge-in through the C ABI).
set -euo pipefail
cd "$(dirname "$0")/.."
clang_dir="$(dirname "$(readlink -f "$(command -v swift)")")"
[ -x "$clang_dir/clang" ] || { echo "asan-tests.sh: no clang next to swift in $clang_dir"; exit 1; }
export SWIFT_BACKTRACE=enable=no # the backtracer would catch a signal before ASan reports it
export AFE_C_SANITIZE=address AFE_C_SANITIZE_CLANG_DIR="$clang_dir"
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1"
export AFE_C_ASAN_OPTIONS="detect_leaks=1:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0"
swift test --sanitize=address --scratch-path .build/asan \
  --filter "NuiCProgramTests|NuiCRegistrationTests|NuiCHeaderTests|NuiCHostileInputTests|NuiCTtsProgramTests|NuiCTtsPlaybackTests|NuiCTtsBargeInTests"
