#!/usr/bin/env bash
# The playback loop as it ships (release build): 3 minutes of audio per format (pcm, wav, mp3, opus) through
# SynthesisPlayer with a running FrontEnd as its reference; fails on growing memory (> 4 MiB after the first
# utterance), any allocation on the render thread after the first utterance, underruns, refused reference or
# input, or a reference count that is not the rendered audio (every buffer, idle silence included). See
# Benchmarks/playback.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
Benchmarks/playback.sh loop --minutes "${1:-3}" --check
