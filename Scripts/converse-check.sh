#!/usr/bin/env bash
# CI: the whole loop once, end to end, in a release build (issue 14 §5): Scripts/converse.sh (reference server,
# answer, room, interrupting user, barge-in, recognizer), then its report checked. Bounds (generous: the speed
# figures live in the benchmark, the latency distribution in the barge-in helper's scenario run):
#  - barge-in decided after the user's onset and at most 1000 ms after it, not before (no false barge-in);
#  - playback stopped within one device buffer (10 ms) of the decision reaching the SDK;
#  - the played position reported within 20 ms of the samples actually handed to the device;
#  - the recognizer heard the user (a final overlapping their speech, WER ≤ 0.84, i.e. at least one word right).
# Costs about 30 s after the release build (which the other release steps share).
set -euo pipefail
cd "$(dirname "$0")/.."
out="${AFE_CONVERSE_OUT:-out/converse-check}"
mkdir -p "$out"
swift build -c release --product afe 2>&1 | grep -E "error" && exit 1
cp .build/release/afe "$out/afe"
AFE="$out/afe" AFE_CONVERSE_OUT="$out" bash Scripts/converse.sh | tee "$out/converse.txt"
.venv/bin/python - "$out/report.json" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
t = report["timings"]
problems = []
def need(ok, text):
    if not ok:
        problems.append(text)
onset, decision = t.get("user_onset_ms"), t.get("barge_in_decision_ms")
need(decision is not None, "no barge-in decision")
if decision is not None:
    need(0 <= decision - onset <= 1000, f"decision {decision - onset:.0f} ms after the onset (bound 0..1000)")
need(t.get("playback_stopped_ms") is not None, "playback never stopped")
if t.get("playback_stopped_ms") is not None and t.get("decision_reached_sdk_ms") is not None:
    lag = t["playback_stopped_ms"] - t["decision_reached_sdk_ms"]
    need(lag <= 10, f"playback stopped {lag:.0f} ms after the decision reached the SDK (bound one 10 ms buffer)")
need(t.get("played_position_error_ms") is not None, "no played position to check")
if t.get("played_position_error_ms") is not None:
    need(t["played_position_error_ms"] <= 20, f"played position off by {t['played_position_error_ms']:.1f} ms (bound 20)")
need(report.get("user_finals", 0) >= 1, "no final result over the user's speech")
need(report.get("wer", 1) <= 0.84, f"WER {report.get('wer')} on the user's words (bound 0.84)")
need(report.get("lockstep_timeouts", 1) == 0, "the front end fell behind the offline clock")
for p in problems:
    print("converse-check: FAIL:", p)
if problems:
    sys.exit(1)
print(f"converse-check: ok (decision {decision - onset:.0f} ms after the onset, stopped at "
      f"{t['playback_stopped_ms']:.0f} ms, position error {t['played_position_error_ms']:.1f} ms, WER {report['wer']:.2f})")
PY
