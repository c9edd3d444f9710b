"""The reference server's voices: espeak-ng (libespeak-ng through ctypes, with word timings) and flite (its CLI).

`synthesize(voice, text, ...)` returns int16 mono samples at the voice's own rate and, for espeak-ng voices,
the words with their character span in `text` and their times in ms. flite voices give no word timings (like
the service's voices without timestamp support: their `words` stay empty).
"""

from __future__ import annotations

import ctypes
import os
import re
import subprocess
import tempfile
import threading
import uuid
import wave
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Voice:
    engine: str  # "espeak" or "flite"
    name: str  # espeak-ng voice name or flite voice
    base_f0: float = 0.0  # flite: the voice's mean F0 in Hz (scaled by pitch)


# Our own names, plus a few CosyVoice system voice names (mapped to English espeak-ng voices) so that requests
# written for the service work unchanged.
VOICES: dict[str, Voice] = {
    "espeak-en-us": Voice("espeak", "en-us"), "espeak-en": Voice("espeak", "en"),
    "espeak-en-us-f": Voice("espeak", "en-us+f3"), "espeak-zh": Voice("espeak", "cmn"),
    "espeak-de": Voice("espeak", "de"), "espeak-fr": Voice("espeak", "fr"), "espeak-ja": Voice("espeak", "ja"),
    "flite-kal": Voice("flite", "kal", 105.0), "flite-kal16": Voice("flite", "kal16", 105.0),
    "flite-slt": Voice("flite", "slt", 170.0), "flite-rms": Voice("flite", "rms", 110.0),
    "flite-awb": Voice("flite", "awb", 110.0),
    "longanyang": Voice("espeak", "en-us"), "longanlingxi": Voice("espeak", "en-us+f3"),
    "longxiaochun": Voice("espeak", "en-us+f2"), "longxiaochun_v2": Voice("espeak", "en-us+f2"),
}


@dataclass
class Word:
    text: str
    begin_index: int  # characters into the synthesized text, from 0
    end_index: int  # exclusive
    begin_ms: int
    end_ms: int


@dataclass
class Speech:
    samples: np.ndarray  # int16 mono
    rate: int
    words: list[Word] = field(default_factory=list)


def synthesize(voice: Voice, text: str, rate: float = 1.0, pitch: float = 1.0, ssml: bool = False) -> Speech:
    if voice.engine == "espeak":
        return espeak().synthesize(voice.name, text, rate, pitch, ssml)
    return flite(voice, strip_tags(text) if ssml else text, rate, pitch)


def strip_tags(text: str) -> str:
    return re.sub(r"<[^>]*>", " ", text)


# --- espeak-ng -------------------------------------------------------------------------------------------------
class _Event(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("unique_identifier", ctypes.c_uint), ("text_position", ctypes.c_int),
                ("length", ctypes.c_int), ("audio_position", ctypes.c_int), ("sample", ctypes.c_int),
                ("user_data", ctypes.c_void_p), ("id", ctypes.c_void_p)]


_CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_short), ctypes.c_int, ctypes.POINTER(_Event))
_OUTPUT_SYNCHRONOUS = 2
_DONT_EXIT = 0x8000
_POS_CHARACTER = 1
_CHARS_UTF8 = 1
_SSML = 0x10
_EVENT_WORD = 1
_EVENT_END = 5
_EVENT_MSG_TERMINATED = 6
_RATE = 1
_PITCH = 3
_DEFAULT_WPM = 175


class _Espeak:
    """libespeak-ng.so.1 in synchronous mode. Global library state: one synthesis at a time (a lock)."""

    def __init__(self) -> None:
        lib = ctypes.CDLL("libespeak-ng.so.1")
        lib.espeak_Synth.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint, ctypes.c_int, ctypes.c_uint,
                                     ctypes.c_uint, ctypes.c_void_p, ctypes.c_void_p]
        lib.espeak_SetVoiceByName.argtypes = [ctypes.c_char_p]
        self.rate = lib.espeak_Initialize(_OUTPUT_SYNCHRONOUS, 200, None, _DONT_EXIT)
        if self.rate <= 0:
            raise RuntimeError("espeak_Initialize failed")
        self.lib = lib
        self.lock = threading.Lock()
        self.chunks: list[np.ndarray] = []
        self.events: list[tuple[int, int, int, int]] = []
        self.callback = _CALLBACK(self._on_audio)  # kept alive as long as the library may call it
        lib.espeak_SetSynthCallback(self.callback)

    def _on_audio(self, wav, count, events) -> int:
        if count > 0:
            self.chunks.append(np.ctypeslib.as_array(wav, (count,)).copy())
        index = 0
        while events[index].type != 0:
            event = events[index]
            self.events.append((event.type, event.text_position, event.length, event.audio_position))
            index += 1
        return 0

    def synthesize(self, name: str, text: str, rate: float, pitch: float, ssml: bool) -> Speech:
        with self.lock:
            if self.lib.espeak_SetVoiceByName(name.encode()) != 0:
                raise RuntimeError(f"espeak-ng has no voice {name}")
            self.lib.espeak_SetParameter(_RATE, int(round(_DEFAULT_WPM * rate)), 0)
            self.lib.espeak_SetParameter(_PITCH, int(min(100, max(0, round(50 * pitch)))), 0)
            self.chunks, self.events = [], []
            data = text.encode()
            flags = _CHARS_UTF8 | (_SSML if ssml else 0)
            status = self.lib.espeak_Synth(data, len(data) + 1, 0, _POS_CHARACTER, 0, flags, None, None)
            self.lib.espeak_Synchronize()
            if status != 0:
                raise RuntimeError(f"espeak_Synth failed ({status})")
            samples = np.concatenate(self.chunks) if self.chunks else np.zeros(0, dtype=np.int16)
            events = self.events
        total_ms = samples.size * 1000 // self.rate
        return Speech(samples.astype(np.int16), self.rate, _words(text, events, total_ms))


def _words(text: str, events: list[tuple[int, int, int, int]], total_ms: int) -> list[Word]:
    """Word events → words. espeak-ng reports 1-based character positions; a number read as several words
    gives several events at one position (kept as one word); a word ends where the next begins, or at the end
    of its clause."""
    words: list[Word] = []
    for kind, position, length, audio_ms in events:
        if kind == _EVENT_WORD:
            if words and words[-1].begin_index == position - 1:
                continue
            if words and words[-1].end_ms < 0:
                words[-1].end_ms = audio_ms
            begin = max(0, position - 1)
            words.append(Word(text[begin:begin + length], begin, begin + length, audio_ms, -1))
        elif kind in (_EVENT_END, _EVENT_MSG_TERMINATED) and words and words[-1].end_ms < 0:
            words[-1].end_ms = audio_ms
    for word in words:
        if word.end_ms < 0:
            word.end_ms = total_ms
    return [word for word in words if word.text.strip()]


_ESPEAK: _Espeak | None = None
_ESPEAK_LOCK = threading.Lock()


def espeak() -> _Espeak:
    global _ESPEAK
    with _ESPEAK_LOCK:
        if _ESPEAK is None:
            _ESPEAK = _Espeak()
        return _ESPEAK


# --- flite -------------------------------------------------------------------------------------------------------
def flite(voice: Voice, text: str, rate: float, pitch: float) -> Speech:
    path = os.path.join(tempfile.gettempdir(), f"refserver-flite-{uuid.uuid4().hex}.wav")
    command = ["flite", "-voice", voice.name, "--setf", f"duration_stretch={1.0 / rate:.4f}",
               "--setf", f"int_f0_target_mean={voice.base_f0 * pitch:.1f}", "-t", text, "-o", path]
    try:
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        with wave.open(path) as file:
            rate_hz = file.getframerate()
            samples = np.frombuffer(file.readframes(file.getnframes()), dtype="<i2").copy()
    finally:
        if os.path.exists(path):
            os.remove(path)
    return Speech(samples, rate_hz)
