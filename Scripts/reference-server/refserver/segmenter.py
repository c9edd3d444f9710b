"""Energy-based sentence segmentation on 10 ms frames of 16 kHz audio.

Everything is counted in audio frames, never wall-clock time, so the events are the same however the client
chunks or paces its audio.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .recognizers import Word

FRAME = 160  # samples per 10 ms at 16 kHz
FRAME_MS = 10
MIN_SPEECH_FRAMES = 5  # 50 ms of consecutive speech opens a sentence
PREROLL_FRAMES = 20  # audio before the sentence given to the recogniser for context
PARTIAL_INTERVAL_MS = 200  # default: a partial result every 200 ms of audio while speech continues
MULTI_THRESHOLD_AFTER_FRAMES = 600  # multi-threshold mode: after 6 s of sentence ...
MULTI_THRESHOLD_SILENCE_FRAMES = 30  # ... 300 ms of silence are enough to end it
MAX_SENTENCE_FRAMES = 6000  # a sentence is cut after 60 s whatever the silence


@dataclass
class SegmenterSettings:
    threshold_db: float = -40.0
    max_sentence_silence_ms: int = 1300
    multi_threshold: bool = False
    partials: bool = True
    partial_interval_ms: int = PARTIAL_INTERVAL_MS  # --partial-interval-ms
    heartbeat_interval_ms: int | None = None  # heartbeat results during silence (heartbeat=true)
    silence_timeout_ms: int | None = None  # give up after this much continuous non-speech audio


@dataclass
class SentenceBegin:
    index: int
    begin_ms: int


@dataclass
class Partial:
    index: int
    begin_ms: int
    time_ms: int  # audio processed so far; the words end at the last speech frame
    words: list[Word]
    first: bool


@dataclass
class SentenceEnd:
    index: int
    begin_ms: int
    end_ms: int
    words: list[Word]
    audio_ms: int  # audio processed when the sentence ended


@dataclass
class Heartbeat:
    time_ms: int


@dataclass
class SilenceTimeout:
    time_ms: int
    silence_ms: int


@dataclass
class SpeechSegmenter:
    settings: SegmenterSettings
    recognizer: object  # refserver.recognizers.Recognizer
    frames: int = 0
    pending: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int16))
    history: list = field(default_factory=list)  # recent frames while no sentence is open
    speech_run: int = 0
    sentence_index: int = 0
    in_sentence: bool = False
    begin_frame: int = 0
    last_speech_frame: int = 0
    last_partial_speech: int = -1
    silence_since: int = 0
    timed_out: bool = False

    def process(self, samples: np.ndarray) -> list:
        events: list = []
        data = np.concatenate([self.pending, samples]) if self.pending.size else samples
        whole = data.size - data.size % FRAME
        for start in range(0, whole, FRAME):
            self._frame(data[start:start + FRAME], events)
        self.pending = data[whole:].copy()
        return events

    def flush(self) -> list:
        """Ends the open sentence (the client finished the task)."""
        events: list = []
        if self.in_sentence:
            self._end_sentence(self.last_speech_frame + 1, events)
        return events

    @property
    def audio_ms(self) -> int:
        return self.frames * FRAME_MS

    def _is_speech(self, frame: np.ndarray) -> bool:
        energy = float(np.mean(frame.astype(np.float64) ** 2)) / (32768.0 ** 2)
        return 10.0 * math.log10(energy + 1e-12) > self.settings.threshold_db

    def _frame(self, frame: np.ndarray, events: list) -> None:
        index = self.frames
        self.frames += 1
        speech = self._is_speech(frame)
        if self.in_sentence:
            self.recognizer.feed(frame)
            if speech:
                self.last_speech_frame = index
            self._sentence_frame(index, events)
            return
        self.history.append(frame)
        del self.history[:-PREROLL_FRAMES]
        self.speech_run = self.speech_run + 1 if speech else 0
        if self.speech_run >= MIN_SPEECH_FRAMES:
            self._begin_sentence(index, events)
            return
        self._silence_frame(index, events)

    def _begin_sentence(self, index: int, events: list) -> None:
        self.in_sentence = True
        self.sentence_index += 1
        self.begin_frame = index - MIN_SPEECH_FRAMES + 1
        self.last_speech_frame = index
        preroll = np.concatenate(self.history)
        preroll_start_ms = (index + 1) * FRAME_MS - len(self.history) * FRAME_MS
        self.history = []
        self.speech_run = 0
        begin_ms = self.begin_frame * FRAME_MS
        self.recognizer.start(self.sentence_index, begin_ms, preroll, preroll_start_ms)
        events.append(SentenceBegin(self.sentence_index, begin_ms))
        self._partial(index, events, first=True)

    def _sentence_frame(self, index: int, events: list) -> None:
        silence = index - self.last_speech_frame
        # A partial every `period` frames, in phase with the first (at MIN_SPEECH_FRAMES - 1); the phase taken
        # modulo the period, or an interval of 40 ms or less never matched and gave only the first partial.
        period = max(1, self.settings.partial_interval_ms // FRAME_MS)
        required = max(1, self.settings.max_sentence_silence_ms // FRAME_MS)
        if self.settings.multi_threshold and index - self.begin_frame >= MULTI_THRESHOLD_AFTER_FRAMES:
            required = min(required, MULTI_THRESHOLD_SILENCE_FRAMES)
        if silence >= required:
            self._end_sentence(self.last_speech_frame + 1, events)
        elif index - self.begin_frame + 1 >= MAX_SENTENCE_FRAMES:
            self._end_sentence(index + 1, events)
        elif (index - self.begin_frame) % period == (MIN_SPEECH_FRAMES - 1) % period \
                and self.last_speech_frame > self.last_partial_speech:
            self._partial(index, events, first=False)

    def _partial(self, index: int, events: list, first: bool) -> None:
        self.last_partial_speech = self.last_speech_frame
        if not self.settings.partials:
            return
        now_ms = (index + 1) * FRAME_MS
        words = self.recognizer.partial((self.last_speech_frame + 1) * FRAME_MS)
        events.append(Partial(self.sentence_index, self.begin_frame * FRAME_MS, now_ms, words, first))

    def _end_sentence(self, end_frame: int, events: list) -> None:
        end_ms = end_frame * FRAME_MS
        words = self.recognizer.final(end_ms)
        events.append(SentenceEnd(self.sentence_index, self.begin_frame * FRAME_MS, end_ms, words,
                                  self.audio_ms))
        self.in_sentence = False
        self.last_partial_speech = -1
        self.silence_since = end_frame

    def _silence_frame(self, index: int, events: list) -> None:
        silent_ms = (index + 1 - self.silence_since) * FRAME_MS
        interval = self.settings.heartbeat_interval_ms
        if interval and silent_ms % interval == 0:
            events.append(Heartbeat((index + 1) * FRAME_MS))
        timeout = self.settings.silence_timeout_ms
        if timeout and not self.timed_out and silent_ms >= timeout:
            self.timed_out = True
            events.append(SilenceTimeout((index + 1) * FRAME_MS, silent_ms))
