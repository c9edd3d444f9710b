#!/usr/bin/env bash
# Speech synthesis against the local reference server through what ships (issue 14 §6), release build:
#  - `afe speak` (SpeechSynthesis client) per format, N runs: connect time, first audio after the first text,
#    real-time factor (synthesis wall time after the connect over the seconds of audio made);
#  - `afe converse` (NeoNuiStreamInputTts with its playback, the whole loop), N runs: the same figures as the SDK's
#    app sees them (startStreamInputTts → TTS_EVENT_SYNTHESIS_STARTED, first sendStreamInputTts → first data
#    callback, first text → TTS_EVENT_SYNTHESIS_COMPLETE over the audio).
# Medians and ranges printed; the per-chunk cost of decode + resample + reference push and the playback path's
# allocations are Benchmarks/playback.sh's (not repeated here).
#   Benchmarks/tts-server.sh [--runs N]      (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=5
[ "${1:-}" = "--runs" ] && runs=$2
[ -x .venv/bin/python ] || bash Scripts/setup-python.sh
swift build -c release --product afe 2>&1 | grep -E "error" && exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp .build/release/afe "$work/afe"
exec 3> >(exec .venv/bin/python Scripts/reference-server/server.py --host 127.0.0.1 --port 0 --recognizer pocketsphinx \
  >"$work/server.out" 2>"$work/server.log")
for _ in $(seq 1 300); do grep -q LISTENING "$work/server.out" 2>/dev/null && break; sleep 0.1; done
port=$(awk '/LISTENING/ {print $2}' "$work/server.out")
[ -n "$port" ] || { echo "the reference server did not start" >&2; exit 1; }
.venv/bin/python - "$work" "$port" "$runs" <<'PY'
import json, re, statistics, subprocess, sys
work, port, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
url = f"ws://127.0.0.1:{port}/api-ws/v1/inference"
afe = f"{work}/afe"
text = ("The reference server reads this paragraph aloud. It has several sentences of ordinary length. "
        "Each one is synthesized as soon as it is complete! Would a listener notice the joins? "
        "Probably not, since every sentence ends with a pause. This is the last one.")
def seconds_of(path, fmt):
    if fmt in ("pcm", "wav"):
        return None  # printed by afe speak
    if fmt == "mp3":
        subprocess.run(["lame", "--quiet", "--decode", path, path + ".wav"], check=True)
        out = subprocess.run(["soxi", "-D", path + ".wav"], capture_output=True, text=True, check=True).stdout
        return float(out)
    out = subprocess.run(["opusinfo", path], capture_output=True, text=True).stdout
    m = re.search(r"Playback length: (\d+)m:([\d.]+)s", out)
    return int(m.group(1)) * 60 + float(m.group(2))
def summary(values, digits=1):
    values = sorted(v for v in values if v is not None)
    return f"{statistics.median(values):.{digits}f} ({values[0]:.{digits}f}-{values[-1]:.{digits}f})" if values else "-"
print(f"afe speak, espeak-en-us at 16000 Hz, {len(text)} characters, {runs} runs each: median (min-max)")
print(f"{'format':<8} {'connect ms':>22} {'first audio ms':>22} {'RTF':>22}")
for fmt in ("pcm", "wav", "mp3", "opus"):
    connect, first, rtf = [], [], []
    for i in range(runs):
        path = f"{work}/speech{i}.{fmt}"
        line = subprocess.run([afe, "speak", text, "--output", path, "--url", url, "--voice", "espeak-en-us",
                               "--sample-rate", "16000", "--chunk", "40"], capture_output=True, text=True, check=True).stdout
        m = re.search(r"\(([\d.]+) s\) in ([\d.]+) s; connect ([\d.]+) ms, first audio ([\d.]+) ms", line) or \
            re.search(r"in ([\d.]+) s; connect ([\d.]+) ms, first audio ([\d.]+) ms", line)
        groups = m.groups()
        audio = float(groups[0]) if len(groups) == 4 else seconds_of(path, fmt)
        total, c, f = map(float, groups[-3:])
        connect.append(c); first.append(f); rtf.append((total - c / 1000) / audio)
    print(f"{fmt:<8} {summary(connect):>22} {summary(first):>22} {summary(rtf, 3):>22}")
print(f"afe converse (NeoNuiStreamInputTts + playback + barge-in, pcm 16000 Hz), {runs} runs:")
connect, first, rtf, position = [], [], [], []
for i in range(runs):
    report = f"{work}/converse{i}.json"
    subprocess.run([afe, "converse", "--url", url, "--user", "TestVectors/nearend_16k.wav", "--user-from", "2.9",
                    "--user-to", "5.1", "--report", report, "--quiet"], capture_output=True, text=True, check=True)
    r = json.load(open(report))
    connect.append(r["synthesis"].get("connect_ms")); first.append(r["synthesis"].get("first_audio_after_first_text_ms"))
    rtf.append(r["synthesis"].get("rtf")); position.append(r["timings"].get("played_position_error_ms"))
print(f"{'':<8} {summary(connect):>22} {summary(first):>22} {summary(rtf, 3):>22}   played position error ms {summary(position)}")
PY
