#!/usr/bin/env bash
# Playback figures of the release build (issue 14 §6): per format, decode + resample per chunk and render +
# reference push per 10 ms, then the playback loop over minutes of audio (memory, allocations, reference).
# Inputs are made here by real encoders from one espeak-ng sentence: pcm/wav (sox, 22050 Hz), mp3 (lame 64 kb/s),
# opus (opusenc 32 kb/s, 24 kHz input).
#   Benchmarks/playback.sh [cost] [--seconds S]           the cost table (default 60 s of audio per format and rate)
#   Benchmarks/playback.sh loop [--minutes M] [--check]   the loop; --check exits 1 on any problem
set -euo pipefail
cd "$(dirname "$0")/.."
command -v lame >/dev/null && command -v opusenc >/dev/null && command -v espeak-ng >/dev/null || bash Scripts/install-dependencies.sh
inputs=$(mktemp -d)
trap 'rm -rf "$inputs"' EXIT
text="Synthesized speech arrives in pieces, plays through the device, and is pushed as the echo reference at the same moment. The quick brown fox jumps over the lazy dog."
espeak-ng -v en-us -w "$inputs/source.wav" "$text"
sox "$inputs/source.wav" -b 16 -e signed-integer -c 1 "$inputs/speech.wav"
sox "$inputs/speech.wav" -t raw "$inputs/speech.pcm"
lame --quiet -m m -b 64 "$inputs/speech.wav" "$inputs/speech.mp3"
sox "$inputs/speech.wav" -r 24000 "$inputs/speech24.wav"
opusenc --quiet --bitrate 32 "$inputs/speech24.wav" "$inputs/speech.opus"
[ -n "${AFE_PLAYBACK_BENCH:-}" ] || swift build -c release --product afe-playback-bench 2>&1 | grep -E "error|warning: unre" || true
binary=${AFE_PLAYBACK_BENCH:-.build/release/afe-playback-bench}
command=${1:-cost}
[ $# -gt 0 ] && shift
"$binary" "$command" --inputs "$inputs" "$@"
