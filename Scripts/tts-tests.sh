#!/usr/bin/env bash
# The speech-synthesis path as it ships: `afe speak` from a release build (it runs the SpeechSynthesis client and
# SpeechStreaming's transport compiled with optimizations) against the reference server's TTS side, every format
# checked with sox, lame and opus-tools (SpeakCommandTests with AFE_BINARY=.build/release/afe).
# Cost: about 10 s when the release build is warm (Scripts/hostile-tests.sh builds it just before in test.sh),
# a few minutes cold. The debug-build tests (SpeechSynthesisTests, SpeakCommandTests, test_tts.py) run in
# `swift test` and the reference server's unittest step anyway.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/setup-python.sh
swift build -c release --product afe
swift build --build-tests
AFE_BINARY="$PWD/.build/release/afe" swift test --skip-build --filter 'afeTests.SpeakCommandTests'
