#!/usr/bin/env bash
# Installs the Debian packages the build, the tests and the test tooling need. Idempotent; needs root (or sudo).
set -euo pipefail
packages=(
  pkg-config
  libspeexdsp-dev libwebrtc-audio-processing-dev libsamplerate0-dev libopus-dev libogg-dev libsndfile1-dev
  libwebsockets-dev
  libmpg123-dev lame # TTS playback: the mp3 decoder (AudioPlayback) and the encoder of its test inputs
  opus-tools sox flite openssl libopus0
  lame libespeak-ng1 # the reference server's speech synthesis: mp3 encoding, espeak-ng voices through ctypes
  valgrind
  espeak-ng chromium # the scenario matrix's TTS voices; its report's rendering test (headless screenshot)
  gcc g++ # cc and c++: NuiCTests compile the C and C++ programs against nui.h / nui.hpp and libnui.so
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
