#!/usr/bin/env bash
# The whole loop offline (issue 14 §5): starts the local reference server (speech synthesis and the PocketSphinx
# recognizer, 127.0.0.1) and runs `afe converse` on it: the device speaks an answer into a simulated room, the
# bundled user (TestVectors/nearend_16k.wav, "Set a timer for ten minutes.") talks over it 4 s after it began,
# barge-in stops the answer, and the recognizer prints what the user said, with the timings.
#   Scripts/converse.sh [afe converse options...]     (they replace the defaults given here where repeated)
# AFE (default .build/release/afe, built if missing) picks the binary; AFE_CONVERSE_OUT the output directory.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v espeak-ng >/dev/null || bash Scripts/install-dependencies.sh
[ -x .venv/bin/python ] || bash Scripts/setup-python.sh
out="${AFE_CONVERSE_OUT:-out/converse}"
mkdir -p "$out"
afe="${AFE:-.build/release/afe}"
[ -n "${AFE:-}" ] || swift build -c release --product afe 2>&1 | grep -E "error" || true
# The reference server exits when its stdin closes: fd 3 stays open until this script ends.
rm -f "$out/server.out"
exec 3> >(exec .venv/bin/python Scripts/reference-server/server.py --host 127.0.0.1 --port 0 --recognizer pocketsphinx \
  >"$out/server.out" 2>"$out/server.log")
for _ in $(seq 1 300); do grep -q LISTENING "$out/server.out" 2>/dev/null && break; sleep 0.1; done
port=$(awk '/LISTENING/ {print $2}' "$out/server.out")
[ -n "$port" ] || { echo "the reference server did not start; see $out/server.log" >&2; exit 1; }
"$afe" converse --url "ws://127.0.0.1:$port/api-ws/v1/inference" \
  --user TestVectors/nearend_16k.wav --user-from 2.9 --user-to 5.1 --user-text "Set a timer for ten minutes." \
  --report "$out/report.json" --mic-output "$out/mic.wav" "$@"
