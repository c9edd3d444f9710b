"""Recognisers that turn one sentence's audio into words with times.

`DeterministicRecognizer` ignores the samples: its words depend only on the sentence index and times, so the
results are exactly reproducible. `PocketSphinxRecognizer` decodes the audio with PocketSphinx's bundled
US-English model, incrementally as the audio arrives.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

import numpy as np

WORD_MS = 300
WORD_LIST = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
             "india", "juliett", "kilo", "lima", "mike", "november", "oscar", "papa")


@dataclass
class Word:
    text: str
    begin_ms: int
    end_ms: int
    confidence: float = 1.0


def deterministic_words(index: int, begin_ms: int, until_ms: int) -> list[Word]:
    """One word per started 300 ms: word j of sentence i is WORD_LIST[(3 (i - 1) + j) mod 16]."""
    count = max(0, until_ms - begin_ms - 1) // WORD_MS + 1
    words = []
    for j in range(count):
        start = begin_ms + j * WORD_MS
        words.append(Word(WORD_LIST[(3 * (index - 1) + j) % len(WORD_LIST)], start,
                          min(start + WORD_MS, until_ms)))
    return words


class DeterministicRecognizer:
    name = "deterministic"

    def __init__(self) -> None:
        self.index = 0
        self.begin_ms = 0

    def start(self, index: int, begin_ms: int, preroll: np.ndarray, preroll_start_ms: int) -> None:
        self.index = index
        self.begin_ms = begin_ms

    def feed(self, frame: np.ndarray) -> None:
        pass

    def partial(self, speech_end_ms: int) -> list[Word]:
        return deterministic_words(self.index, self.begin_ms, speech_end_ms)

    def final(self, end_ms: int) -> list[Word]:
        return deterministic_words(self.index, self.begin_ms, end_ms)

    def close(self) -> None:
        pass


class _DecoderPool:
    """PocketSphinx decoders take ~0.2 s to load; tasks borrow one and give it back."""

    def __init__(self) -> None:
        self.free: list = []
        self.lock = threading.Lock()

    def take(self):
        with self.lock:
            if self.free:
                return self.free.pop()
        from pocketsphinx import Decoder
        return Decoder(samprate=16000, loglevel="FATAL")

    def give(self, decoder) -> None:
        with self.lock:
            self.free.append(decoder)


_POOL = _DecoderPool()
_FILLER = re.compile(r"^(<s>|</s>|<sil>|\[.*\]|\+\+.*\+\+)$")
_BATCH_FRAMES = 10


def warm_up_pocketsphinx() -> None:
    """Loads one decoder so the first task does not pay for it."""
    _POOL.give(_POOL.take())


class PocketSphinxRecognizer:
    name = "pocketsphinx"

    def __init__(self) -> None:
        self.decoder = _POOL.take()
        self.active = False
        self.begin_ms = 0
        self.utt_start_ms = 0
        self.pending: list[bytes] = []

    def start(self, index: int, begin_ms: int, preroll: np.ndarray, preroll_start_ms: int) -> None:
        self.begin_ms = begin_ms
        self.utt_start_ms = preroll_start_ms
        self.decoder.start_utt()
        self.active = True
        self.pending = [preroll.astype("<i2").tobytes()]
        self._flush()

    def feed(self, frame: np.ndarray) -> None:
        self.pending.append(frame.astype("<i2").tobytes())
        if len(self.pending) >= _BATCH_FRAMES:
            self._flush()

    def partial(self, speech_end_ms: int) -> list[Word]:
        self._flush()
        hypothesis = self.decoder.hyp()
        texts = [_clean(word) for word in (hypothesis.hypstr.split() if hypothesis else [])]
        texts = [text for text in texts if text]
        if not texts:
            return []
        span = max(1, speech_end_ms - self.begin_ms)
        return [Word(text, self.begin_ms + span * j // len(texts), self.begin_ms + span * (j + 1) // len(texts))
                for j, text in enumerate(texts)]

    def final(self, end_ms: int) -> list[Word]:
        self._flush()
        self.decoder.end_utt()
        self.active = False
        words = []
        for segment in self.decoder.seg():
            text = _clean(segment.word)
            if not text:
                continue
            begin = self.utt_start_ms + segment.start_frame * 10
            end = self.utt_start_ms + (segment.end_frame + 1) * 10
            words.append(Word(text, max(begin, self.begin_ms), min(max(end, begin), end_ms),
                              round(float(segment.prob), 3)))
        return words

    def close(self) -> None:
        if self.decoder is None:
            return
        if self.active:
            self.decoder.end_utt()
        _POOL.give(self.decoder)
        self.decoder = None

    def _flush(self) -> None:
        if self.pending:
            self.decoder.process_raw(b"".join(self.pending), False, False)
            self.pending = []


def _clean(word: str) -> str:
    if _FILLER.match(word):
        return ""
    return re.sub(r"\(\d+\)$", "", word)


def make_recognizer(name: str):
    if name == "pocketsphinx":
        return PocketSphinxRecognizer()
    return DeterministicRecognizer()
