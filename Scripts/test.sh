#!/usr/bin/env bash
# The README's test command: installs what is missing, runs every Swift test, the concurrency stress test
# again under ThreadSanitizer, the benchmark's deterministic figures, the scenario matrix's CI slice and the
# reference server's own tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-dependencies.sh
bash Scripts/setup-python.sh # the reference server the streaming client's tests start
swift test
echo "== Concurrency stress test and the recognition session's lifecycle, dialogs on one engine (~35 s), NeoNui's callbacks (the front end drained on the callback thread) and state table, the TTS player's three threads, the joined network and event threads, the synthesis client and NeoNuiStreamInputTts (~36 s more) under ThreadSanitizer"
# A report fails the step: the test process exits 66 (TSan's exitcode) and swift test with it; halt_on_error stops at
# the first report (checked with a racy test: exit 1 from swift test, default and with halt_on_error).
TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}" \
  swift test --sanitize=thread --scratch-path .build/tsan --filter "SanitizerSyncTests|FrontEndConcurrencyTests|FrontEndEventsBehindTests|FrontEndDrainHostTests|CallbackStallTests|ReleaseTests|RecognitionLifecycleTests|RecognitionEngineTests|SessionScopeTests|CallbackReentrancyTests|StateTableTests|AudioPlaybackTests.Player|NeoNuiStreamInputTtsTests|StreamInputTtsPlaybackTests|SynthesisSessionTests|SynthesisFailureTests|NuiCallStormTests|TtsCallStormTests|ServiceThreadTests|EventPumpTests|JoinableThreadTests|ThreadSlotTests"
echo "== C ABI tests under AddressSanitizer + LeakSanitizer (~1.5 min cold, ~20 s warm)"
bash Scripts/asan-tests.sh
echo "== Fuzz targets, 25 s each (measured 3 min 10 s cold: build ~1 min + 5 x 26 s; FuzzPlaybackDecoders adds ~26 s)"
bash Scripts/fuzz.sh --seconds 25
echo "== Soaks of the release build: 10 minutes of audio per protocol and format through every surface, 200 dialogs"
Soak/run.sh
echo "== Benchmark figures that repeat: instructions ours / bare C ≤ 1.05 and no allocations (callgrind, 3 s)"
Benchmarks/callgrind.sh --seconds 3 --check 1.05
echo "== Speech-synthesis playback loop, release build: 3 minutes of audio per format (constant memory, 0 allocations)"
bash Scripts/playback-release-check.sh
echo "== Hostile peers: the hostile server's self-test, and afe stream as it ships (release) against it"
bash Scripts/hostile-tests.sh
echo "== afe speak (release build) against the reference server's speech synthesis"
bash Scripts/tts-tests.sh
echo "== afe converse (release build): the whole loop once against the reference server, its bounds checked (~40 s warm)"
bash Scripts/converse-check.sh
echo "== Scenario matrix slice (issue 12): 7 test-half scenarios, thresholds reported, those met today enforced"
bash Scripts/scenarios/ci-slice.sh
bash Scripts/scenarios/bargein-slice.sh # barge-in latency / false barge-ins on the slice (issue 14 part 6), reported, ~15 s
if [ -f Scripts/reference-server/test_server.py ]; then
  echo "== Reference server tests"
  .venv/bin/python -m unittest discover -s Scripts/reference-server -p 'test_*.py'
fi
