"""Audio bytes → decoded 16 kHz samples → sentence events, for one recognition task."""

from __future__ import annotations

from .audio import make_decoder
from .recognizers import make_recognizer
from .segmenter import SegmenterSettings, SpeechSegmenter


class AudioPipeline:
    def __init__(self, audio_format: str, sample_rate: int, recognizer: str, settings: SegmenterSettings) -> None:
        self.decoder = make_decoder(audio_format, sample_rate)
        self.recognizer = make_recognizer(recognizer)
        self.segmenter = SpeechSegmenter(settings, self.recognizer)
        self.bytes_in = 0
        self.frames_in = 0

    def feed(self, data: bytes) -> list:
        """Decodes one binary frame; returns the sentence events it completes. Raises AudioError."""
        self.bytes_in += len(data)
        self.frames_in += 1
        samples = self.decoder.feed(data)
        return self.segmenter.process(samples) if samples.size else []

    def finish(self) -> list:
        """End of audio: checks the stream is complete and ends the open sentence. Raises AudioError."""
        self.decoder.finish()
        return self.segmenter.flush()

    @property
    def audio_ms(self) -> int:
        return self.segmenter.audio_ms

    def close(self) -> None:
        self.decoder.close()
        self.recognizer.close()
