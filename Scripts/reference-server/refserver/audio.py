"""Audio input decoding: raw PCM, WAV and Ogg Opus byte streams → 16 kHz mono int16 samples."""

from __future__ import annotations

import struct

import numpy as np

from .errors import AudioError
from .opus import OggOpusDecoder

RECOGNITION_RATE = 16000
DECODABLE_FORMATS = ("pcm", "wav", "opus")


class Resampler:
    """Streaming linear-interpolation resampler to 16 kHz (enough for ASR; keeps timing exact)."""

    def __init__(self, input_rate: int) -> None:
        self.input_rate = input_rate
        self.step = input_rate / RECOGNITION_RATE
        self.position = 0.0  # next output sample, in input samples relative to `previous`
        self.previous = np.zeros(0, dtype=np.float64)

    def process(self, samples: np.ndarray) -> np.ndarray:
        if self.input_rate == RECOGNITION_RATE:
            return samples
        data = np.concatenate([self.previous, samples.astype(np.float64)])
        if data.size < 2:
            self.previous = data
            return np.zeros(0, dtype=np.int16)
        last = data.size - 1
        count = int(np.floor((last - self.position) / self.step)) + 1 if self.position <= last else 0
        if count <= 0:
            self.previous = data
            return np.zeros(0, dtype=np.int16)
        points = self.position + self.step * np.arange(count)
        points = points[points < last]
        base = np.floor(points).astype(np.int64)
        fraction = points - base
        out = data[base] * (1.0 - fraction) + data[base + 1] * fraction
        next_position = self.position + self.step * points.size
        keep_from = int(np.floor(next_position))
        keep_from = min(keep_from, last)
        self.previous = data[keep_from:]
        self.position = next_position - keep_from
        return np.clip(np.round(out), -32768, 32767).astype(np.int16)


class PcmDecoder:
    """Signed 16-bit little-endian mono PCM; a byte split across frames is carried over."""

    def __init__(self, sample_rate: int) -> None:
        self.carry = b""
        self.resampler = Resampler(sample_rate)
        self.bytes_in = 0

    def feed(self, data: bytes) -> np.ndarray:
        data = self.carry + data
        usable = len(data) - (len(data) % 2)
        self.carry = data[usable:]
        samples = np.frombuffer(data[:usable], dtype="<i2").astype(np.int16)
        return self.resampler.process(samples)

    def finish(self) -> None:
        if self.carry:
            raise AudioError("PCM stream ends with half a 16-bit sample (odd byte count)")

    def close(self) -> None:
        pass


class WavDecoder:
    """A WAV byte stream (RIFF header, then 16-bit PCM mono); the header may be split across frames."""

    def __init__(self, declared_rate: int) -> None:
        self.header = bytearray()
        self.pcm: PcmDecoder | None = None
        self.declared_rate = declared_rate
        self.sample_rate = 0

    def feed(self, data: bytes) -> np.ndarray:
        if self.pcm is not None:
            return self.pcm.feed(data)
        self.header += data
        parsed = self._parse_header()
        if parsed is None:
            return np.zeros(0, dtype=np.int16)
        rate, data_offset = parsed
        self.sample_rate = rate
        self.pcm = PcmDecoder(rate)
        rest = bytes(self.header[data_offset:])
        self.header = bytearray()
        return self.pcm.feed(rest)

    def finish(self) -> None:
        if self.pcm is None:
            raise AudioError("WAV stream ends before its 'data' chunk", kind="header")
        self.pcm.finish()

    def close(self) -> None:
        pass

    def _parse_header(self) -> tuple[int, int] | None:
        buf = bytes(self.header)
        if len(buf) < 12:
            if buf and not (b"RIFF".startswith(buf[:4]) or buf[:4] == b"RIFF"):
                raise AudioError("Invalid wav header! (no RIFF tag)", kind="header")
            return None
        if buf[:4] != b"RIFF" or buf[8:12] != b"WAVE":
            raise AudioError("Invalid wav header! (no RIFF/WAVE tags)", kind="header")
        position = 12
        rate = None
        while True:
            if len(buf) < position + 8:
                return None
            chunk_id = buf[position:position + 4]
            (size,) = struct.unpack_from("<I", buf, position + 4)
            body = position + 8
            if chunk_id == b"data":
                if rate is None:
                    raise AudioError("Invalid wav header! ('data' before 'fmt ')", kind="header")
                return rate, body
            if len(buf) < body + size + (size & 1):
                if size > 1 << 20:
                    raise AudioError(f"Invalid wav header! (chunk '{chunk_id!r}' of {size} bytes)", kind="header")
                return None
            if chunk_id == b"fmt ":
                rate = self._check_fmt(buf[body:body + size])
            position = body + size + (size & 1)

    def _check_fmt(self, fmt: bytes) -> int:
        if len(fmt) < 16:
            raise AudioError("Invalid wav header! ('fmt ' chunk too short)", kind="header")
        tag, channels, rate, _byte_rate, _align, bits = struct.unpack_from("<HHIIHH", fmt, 0)
        if tag == 0xFFFE and len(fmt) >= 26:
            tag = struct.unpack_from("<H", fmt, 24)[0]
        if tag != 1:
            raise AudioError(f"Invalid wav header! (format tag {tag}; wav must be PCM)", kind="header")
        if channels != 1:
            raise AudioError(f"Invalid wav header! ({channels} channels; audio must be mono)", kind="header")
        if bits != 16:
            raise AudioError(f"Invalid wav header! ({bits}-bit samples; 16-bit expected)", kind="header")
        if rate <= 0:
            raise AudioError("Invalid wav header! (sample rate 0)", kind="header")
        return rate


def make_decoder(audio_format: str, sample_rate: int):
    """A decoder with feed(bytes) -> int16 ndarray at 16 kHz, finish() and close()."""
    if audio_format == "pcm":
        return PcmDecoder(sample_rate)
    if audio_format == "wav":
        return WavDecoder(sample_rate)
    if audio_format == "opus":
        return OggOpusDecoder()
    raise ValueError(audio_format)
