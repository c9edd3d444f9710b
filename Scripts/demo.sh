#!/usr/bin/env bash
# The README's main job: runs the bundled double-talk vector (the device plays an answer while the user talks
# over it) through the front end with the local defaults and prints what it did. No cloud account needed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-dependencies.sh
out="${AFE_DEMO_OUT:-out/demo}"
mkdir -p "$out"
swift build -c release --product afe >/dev/null
afe=".build/release/afe"
echo "== With the front end (default chain, delay found automatically)"
"$afe" process --mic TestVectors/doubletalk_ser0db_16k.wav --reference TestVectors/farend_16k.wav \
  --output "$out/processed.wav" --opus "$out/processed.opus" --vad-labels "$out/vad.csv" --report "$out/report.json"
echo
echo "== Without echo cancellation (what a recognizer would get from the raw mic)"
"$afe" process --mic TestVectors/doubletalk_ser0db_16k.wav --aec off --output "$out/raw.wav"
echo
echo "Files in $out: processed.wav, processed.opus (check with opusinfo), vad.csv, report.json, raw.wav"
