#!/usr/bin/env bash
# The README's main job, with local defaults and no cloud account: runs the bundled double-talk vector (the
# device plays an answer while the user talks over it) through the front end and prints what it did, then
# starts the local reference server with its PocketSphinx recognizer and streams the vector to it twice, the
# raw mic and through the front end, printing what the recognizer heard each way and its word error rate
# against the near end's transcript.
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-dependencies.sh
bash Scripts/setup-python.sh
out="${AFE_DEMO_OUT:-out/demo}"
mkdir -p "$out"
swift build -c release --product afe >/dev/null
afe=".build/release/afe"
mic=TestVectors/doubletalk_ser0db_16k.wav
played=TestVectors/farend_16k.wav

echo "== The front end on $mic (default chain, delay found automatically)"
"$afe" process --mic "$mic" --reference "$played" \
  --output "$out/processed.wav" --opus "$out/processed.opus" --vad-labels "$out/vad.csv" --report "$out/report.json"
"$afe" process --mic "$mic" --aec off --output "$out/raw.wav" >/dev/null
echo

# The reference server exits when its stdin closes: fd 3 stays open until this script ends.
rm -f "$out/server.out"
exec 3> >(.venv/bin/python Scripts/reference-server/server.py --host 127.0.0.1 --port 0 --recognizer pocketsphinx \
  >"$out/server.out" 2>"$out/server.log")
for _ in $(seq 1 300); do grep -q LISTENING "$out/server.out" 2>/dev/null && break; sleep 0.1; done
port=$(awk '/LISTENING/ {print $2}' "$out/server.out")
[ -n "$port" ] || { echo "the reference server did not start; see $out/server.log" >&2; exit 1; }
url="ws://127.0.0.1:$port/api-ws/v1/inference"
expected=$(.venv/bin/python -c 'import json,sys
m = {v["file"]: v for v in json.load(open("TestVectors/manifest.json"))["vectors"]}
print(" ".join(u["text"] for u in m[m[sys.argv[1]]["clean_nearend"]]["utterances"]))' "$(basename "$mic")")
echo "== What the user said (the near end's transcript): \"$expected\""
echo
echo "== The raw mic streamed to the local recognizer (PocketSphinx), front end off"
# The audio goes up faster than real time; PocketSphinx needs about 4 s after the end on an idle machine, more on
# a busy one (the SDK's default finish_timeout, 10 s, was exceeded with CI running beside it).
wait_final=(--finish-timeout 60000)
"$afe" stream --mic "$mic" --aec off --url "$url" --expected "$expected" --no-partials "${wait_final[@]}" | tee "$out/stream-raw.txt"
echo
echo "== Through the front end (the played answer pushed as the reference)"
"$afe" stream --mic "$mic" --reference "$played" --url "$url" --expected "$expected" --no-partials "${wait_final[@]}" \
  | tee "$out/stream-processed.txt"
exec 3>&-
echo
wer() { sed -n 's/.*word error rate against the expected text: //p' "$1"; }
echo "== Word error rate against the near end's transcript: raw mic $(wer "$out/stream-raw.txt"), through the front end $(wer "$out/stream-processed.txt")"
echo "Files in $out: processed.wav, processed.opus (check with opusinfo), vad.csv, report.json, raw.wav, stream-*.txt"
