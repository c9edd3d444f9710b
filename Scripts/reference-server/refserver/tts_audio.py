"""Synthesized audio → the binary frames of a task: resampling, volume, and the pcm / wav / mp3 / opus streams.

Each encoder keeps its state for the whole task (one WAV header, one Ogg Opus logical stream) and turns one
sentence's samples into that sentence's binary frames:
* pcm: 16-bit little-endian mono in frames of FRAME_MS of audio;
* wav: the same, the first frame of the task starting with a 44-byte header whose RIFF and data sizes are
  0xFFFFFFFF (the length is unknown while streaming; inferred, the docs say only that the header comes once);
* mp3: each sentence encoded by `lame` (CBR, no Xing/LAME tag), cut into frames of about FRAME_MS of audio
  at arbitrary byte positions (the docs: play mp3 with a streaming decoder, not frame by frame);
* opus: one Ogg Opus logical stream per task, each binary frame exactly one Ogg page: OpusHead, OpusTags,
  then audio pages of up to OPUS_PACKETS_PER_PAGE packets of 20 ms (libopus through ctypes). A sentence's
  audio is padded with silence to whole 20 ms packets. No page carries end-of-stream: a sentence is sent as
  soon as it is complete, before the server knows whether another follows, so the stream simply stops (as it
  does after a cancel); every page's granule position is exact, so nothing needs trimming.
  Opus has no 22050/44100 Hz mode: those are encoded at 48 kHz; OpusHead's input rate says what was asked.
"""

from __future__ import annotations

import ctypes
import math
import struct
import subprocess

import numpy as np

from .ogg import ogg_crc

FRAME_MS = 100
OPUS_FRAME_MS = 20
OPUS_PACKETS_PER_PAGE = 5
OPUS_RATES = (8000, 12000, 16000, 24000, 48000)


def resample(samples: np.ndarray, source: int, target: int) -> np.ndarray:
    """Band-limited (FFT) resampling of one sentence; the output has round(n * target / source) samples."""
    if source == target or samples.size == 0:
        return samples.astype(np.int16)
    g = math.gcd(source, target)
    block = source // g
    pad = (-(samples.size + source // 50)) % block + source // 50  # ≥ 20 ms of zeros against wrap-around
    x = np.concatenate([samples.astype(np.float64), np.zeros(pad)])
    n = x.size
    m = n // block * (target // g)
    spectrum = np.fft.rfft(x)
    out_bins = m // 2 + 1
    if out_bins > spectrum.size:
        spectrum = np.concatenate([spectrum, np.zeros(out_bins - spectrum.size, dtype=complex)])
    else:
        spectrum = spectrum[:out_bins]
    y = np.fft.irfft(spectrum, m) * (m / n)
    keep = int(round(samples.size * target / source))
    return np.clip(np.round(y[:keep]), -32768, 32767).astype(np.int16)


def apply_volume(samples: np.ndarray, volume: int) -> np.ndarray:
    """volume 50 = as synthesized, 0 = silence, 100 = twice the amplitude (+6 dB, clipped)."""
    if volume == 50:
        return samples
    scaled = samples.astype(np.float64) * (volume / 50.0)
    return np.clip(np.round(scaled), -32768, 32767).astype(np.int16)


def split(data: bytes, size: int) -> list[bytes]:
    size = max(1, size)
    return [data[i:i + size] for i in range(0, len(data), size)]


class PcmEncoder:
    def __init__(self, rate: int, **_) -> None:
        self.rate = rate

    def encode(self, samples: np.ndarray) -> list[bytes]:
        return split(samples.astype("<i2").tobytes(), self.rate * FRAME_MS // 1000 * 2)


class WavEncoder(PcmEncoder):
    def __init__(self, rate: int, **_) -> None:
        super().__init__(rate)
        self.header_sent = False

    def header(self) -> bytes:
        unknown = 0xFFFFFFFF
        return b"RIFF" + struct.pack("<I", unknown) + b"WAVE" + b"fmt " + struct.pack(
            "<IHHIIHH", 16, 1, 1, self.rate, self.rate * 2, 2, 16) + b"data" + struct.pack("<I", unknown)

    def encode(self, samples: np.ndarray) -> list[bytes]:
        frames = super().encode(samples)
        if not self.header_sent:
            self.header_sent = True
            frames = [self.header() + (frames[0] if frames else b"")] + frames[1:]
        return frames


class Mp3Encoder:
    def __init__(self, rate: int, **_) -> None:
        self.rate = rate

    def encode(self, samples: np.ndarray) -> list[bytes]:
        if samples.size == 0:
            return []
        khz = f"{self.rate / 1000:g}"
        result = subprocess.run(["lame", "--quiet", "-r", "-s", khz, "--bitwidth", "16", "--signed",
                                 "--little-endian", "-m", "m", "-t", "-", "-"],
                                input=samples.astype("<i2").tobytes(), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, check=True)
        data = result.stdout
        seconds = samples.size / self.rate
        per_frame = int(len(data) / seconds * FRAME_MS / 1000) if seconds > 0 else len(data)
        return split(data, per_frame)


class _LibOpusEncoder:
    def __init__(self) -> None:
        lib = ctypes.CDLL("libopus.so.0")
        lib.opus_encoder_create.restype = ctypes.c_void_p
        lib.opus_encoder_create.argtypes = [ctypes.c_int32, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
        lib.opus_encoder_destroy.argtypes = [ctypes.c_void_p]
        lib.opus_encode.restype = ctypes.c_int32
        lib.opus_encode.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int16), ctypes.c_int,
                                    ctypes.c_char_p, ctypes.c_int32]
        self.lib = lib


_OPUS: _LibOpusEncoder | None = None
_APPLICATION_AUDIO = 2049
_SET_BITRATE = 4002
_GET_LOOKAHEAD = 4027


class OpusEncoder:
    """One Ogg Opus logical stream: each returned frame is one whole Ogg page."""

    def __init__(self, rate: int, bit_rate: int = 32, serial: int = 1, **_) -> None:
        global _OPUS
        if _OPUS is None:
            _OPUS = _LibOpusEncoder()
        self.lib = _OPUS.lib
        self.input_rate = rate
        self.rate = rate if rate in OPUS_RATES else 48000
        error = ctypes.c_int(0)
        self.handle = self.lib.opus_encoder_create(self.rate, 1, _APPLICATION_AUDIO, ctypes.byref(error))
        if error.value != 0 or not self.handle:
            raise RuntimeError(f"opus_encoder_create failed ({error.value})")
        self.lib.opus_encoder_ctl(ctypes.c_void_p(self.handle), _SET_BITRATE, ctypes.c_int32(bit_rate * 1000))
        lookahead = ctypes.c_int32(0)
        self.lib.opus_encoder_ctl(ctypes.c_void_p(self.handle), _GET_LOOKAHEAD, ctypes.byref(lookahead))
        self.pre_skip = lookahead.value * 48000 // self.rate
        self.frame = self.rate * OPUS_FRAME_MS // 1000
        self.serial = serial
        self.sequence = 0
        self.granule = self.pre_skip
        self.headers_sent = False
        self.out = ctypes.create_string_buffer(4000)

    def page(self, packets: list[bytes], granule: int, flags: int = 0) -> bytes:
        lacing = bytearray()
        for packet in packets:
            lacing += bytes([255]) * (len(packet) // 255) + bytes([len(packet) % 255])
        header = b"OggS" + struct.pack("<BBqIIIB", 0, flags, granule, self.serial, self.sequence, 0, len(lacing))
        data = bytearray(header + bytes(lacing) + b"".join(packets))
        struct.pack_into("<I", data, 22, ogg_crc(bytes(data)))
        self.sequence += 1
        return bytes(data)

    def headers(self) -> list[bytes]:
        head = b"OpusHead" + struct.pack("<BBHIhB", 1, 1, self.pre_skip, self.input_rate, 0, 0)
        vendor = b"AudioFrontEnd reference server"
        tags = b"OpusTags" + struct.pack("<I", len(vendor)) + vendor + struct.pack("<I", 0)
        return [self.page([head], 0, flags=0x02), self.page([tags], 0)]

    def encode(self, samples: np.ndarray) -> list[bytes]:
        pages = [] if self.headers_sent else self.headers()
        self.headers_sent = True
        samples = resample(samples, self.input_rate, self.rate)
        padded = np.concatenate([samples, np.zeros((-samples.size) % self.frame, dtype=np.int16)])
        packets = []
        for start in range(0, padded.size, self.frame):
            chunk = np.ascontiguousarray(padded[start:start + self.frame], dtype=np.int16)
            pointer = chunk.ctypes.data_as(ctypes.POINTER(ctypes.c_int16))
            size = self.lib.opus_encode(self.handle, pointer, self.frame, self.out, len(self.out))
            if size < 0:
                raise RuntimeError(f"opus_encode failed ({size})")
            packets.append(self.out.raw[:size])
        step = OPUS_FRAME_MS * 48
        for start in range(0, len(packets), OPUS_PACKETS_PER_PAGE):
            group = packets[start:start + OPUS_PACKETS_PER_PAGE]
            self.granule += step * len(group)
            pages.append(self.page(group, self.granule))
        return pages

    def close(self) -> None:
        if self.handle:
            self.lib.opus_encoder_destroy(self.handle)
            self.handle = None


ENCODERS = {"pcm": PcmEncoder, "wav": WavEncoder, "mp3": Mp3Encoder, "opus": OpusEncoder}


def make_encoder(audio_format: str, rate: int, bit_rate: int):
    return ENCODERS[audio_format](rate=rate, bit_rate=bit_rate)
