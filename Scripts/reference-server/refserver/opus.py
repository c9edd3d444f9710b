"""Ogg Opus stream decoding (RFC 7845) with libopus through ctypes.

`OggOpusDecoder.feed` takes arbitrary chunks of an Ogg Opus byte stream and returns 16 kHz mono int16 samples.
It checks what RFC 7845 requires of a mono stream: the ID header alone on the first page with granule 0,
the comment header finishing its page, version, channel count 1 with mapping family 0, granule positions that
match the packets' durations, and end trimming only on the end-of-stream page.
"""

from __future__ import annotations

import ctypes
import struct

import numpy as np

from .errors import AudioError
from .ogg import OggPacketAssembler, OggPage, OggPageReader

OUTPUT_RATE = 16000
_DECIMATION = 48000 // OUTPUT_RATE
_MAX_FRAME = 5760  # 120 ms at 48 kHz, the longest Opus packet


class _LibOpus:
    """The few libopus functions the decoder needs (libopus.so.0, Debian package libopus0)."""

    def __init__(self) -> None:
        lib = ctypes.CDLL("libopus.so.0")
        lib.opus_decoder_create.restype = ctypes.c_void_p
        lib.opus_decoder_create.argtypes = [ctypes.c_int32, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
        lib.opus_decoder_destroy.restype = None
        lib.opus_decoder_destroy.argtypes = [ctypes.c_void_p]
        lib.opus_decode.restype = ctypes.c_int
        lib.opus_decode.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int32,
                                    ctypes.POINTER(ctypes.c_int16), ctypes.c_int, ctypes.c_int]
        lib.opus_packet_get_nb_samples.restype = ctypes.c_int
        lib.opus_packet_get_nb_samples.argtypes = [ctypes.c_char_p, ctypes.c_int32, ctypes.c_int32]
        lib.opus_strerror.restype = ctypes.c_char_p
        lib.opus_strerror.argtypes = [ctypes.c_int]
        self.lib = lib

    def error(self, code: int) -> str:
        return self.lib.opus_strerror(code).decode()


_LIB: _LibOpus | None = None


def libopus() -> _LibOpus:
    global _LIB
    if _LIB is None:
        _LIB = _LibOpus()
    return _LIB


class OpusPacketDecoder:
    """One libopus decoder instance producing 16 kHz mono int16."""

    def __init__(self) -> None:
        self.opus = libopus()
        error = ctypes.c_int(0)
        self.handle = self.opus.lib.opus_decoder_create(OUTPUT_RATE, 1, ctypes.byref(error))
        if error.value != 0 or not self.handle:
            raise AudioError(f"opus_decoder_create failed: {self.opus.error(error.value)}")
        self.buffer = (ctypes.c_int16 * _MAX_FRAME)()

    def samples_48k(self, packet: bytes) -> int:
        count = self.opus.lib.opus_packet_get_nb_samples(packet, len(packet), 48000)
        if count < 0:
            raise AudioError(f"invalid Opus packet ({len(packet)} bytes): {self.opus.error(count)}")
        return count

    def decode(self, packet: bytes) -> np.ndarray:
        count = self.opus.lib.opus_decode(self.handle, packet, len(packet), self.buffer, _MAX_FRAME, 0)
        if count < 0:
            raise AudioError(f"opus_decode failed on a {len(packet)}-byte packet: {self.opus.error(count)}")
        return np.frombuffer(bytes(self.buffer)[:count * 2], dtype="<i2").copy()

    def close(self) -> None:
        if self.handle:
            self.opus.lib.opus_decoder_destroy(self.handle)
            self.handle = None

    def __del__(self) -> None:
        self.close()


def parse_opus_head(packet: bytes) -> tuple[int, int, int]:
    """Checks an OpusHead packet for a mono stream; returns (pre_skip, input_sample_rate, output_gain_q8)."""
    if len(packet) < 19 or packet[:8] != b"OpusHead":
        raise AudioError("first Ogg packet is not an OpusHead identification header", kind="header")
    version, channels, pre_skip, rate, gain, family = struct.unpack_from("<BBHIhB", packet, 8)
    if version >> 4 != 0:
        raise AudioError(f"unsupported OpusHead version {version}", kind="header")
    if channels == 0:
        raise AudioError("OpusHead channel count is 0", kind="header")
    if family == 0 and channels > 2:
        raise AudioError(f"OpusHead mapping family 0 with {channels} channels", kind="header")
    if family != 0 or channels != 1:
        raise AudioError(f"audio must be mono: OpusHead has {channels} channels, channel mapping family "
                         f"{family} (expected 1 channel, mapping family 0)", kind="header")
    return pre_skip, rate, gain


def check_opus_tags(packet: bytes) -> None:
    if len(packet) < 16 or packet[:8] != b"OpusTags":
        raise AudioError("second Ogg packet is not an OpusTags comment header", kind="header")
    position = 8
    try:
        (vendor_length,) = struct.unpack_from("<I", packet, position)
        position += 4 + vendor_length
        (count,) = struct.unpack_from("<I", packet, position)
        position += 4
        for _ in range(count):
            (length,) = struct.unpack_from("<I", packet, position)
            position += 4 + length
    except struct.error:
        raise AudioError("OpusTags comment header is truncated", kind="header") from None
    if position > len(packet):
        raise AudioError("OpusTags comment header is truncated", kind="header")


class OggOpusDecoder:
    """Streaming Ogg Opus → 16 kHz mono int16, validating the stream as it goes."""

    def __init__(self) -> None:
        self.reader = OggPageReader()
        self.assembler = OggPacketAssembler()
        self.decoder: OpusPacketDecoder | None = None
        self.headers_seen = 0
        self.pre_skip_remaining = 0
        self.gain = 1.0
        self.input_sample_rate = 0
        self.total_48k = 0
        self.granule_offset: int | None = None

    def feed(self, data: bytes) -> np.ndarray:
        chunks = [self._page(page) for page in self.reader.feed(data)]
        chunks = [chunk for chunk in chunks if chunk.size]
        return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)

    def finish(self) -> None:
        """Raises if the stream stops inside a page or before its headers are complete."""
        if self.reader.pending:
            raise AudioError(f"Ogg stream ends inside a page ({self.reader.pending} bytes left over)")
        if self.assembler.partial is not None:
            raise AudioError("Ogg stream ends inside a packet")
        if self.headers_seen == 1:
            raise AudioError("Ogg Opus stream ends before its OpusTags header", kind="header")

    def close(self) -> None:
        if self.decoder is not None:
            self.decoder.close()

    def _page(self, page: OggPage) -> np.ndarray:
        packets = self.assembler.packets(page)
        if self.headers_seen == 0:
            return self._first_page(page, packets)
        if self.headers_seen == 1:
            return self._tags_page(page, packets)
        return self._audio_page(page, packets)

    def _first_page(self, page: OggPage, packets: list[bytes]) -> np.ndarray:
        if len(packets) != 1 or self.assembler.partial is not None:
            raise AudioError("the first Ogg page must hold the OpusHead packet and nothing else", kind="header")
        if page.granule != 0:
            raise AudioError(f"the OpusHead page has granule position {page.granule} (must be 0)", kind="header")
        pre_skip, self.input_sample_rate, gain_q8 = parse_opus_head(packets[0])
        self.pre_skip_remaining = pre_skip
        self.gain = 10.0 ** (gain_q8 / 256.0 / 20.0)
        self.decoder = OpusPacketDecoder()
        self.headers_seen = 1
        return np.zeros(0, dtype=np.int16)

    def _tags_page(self, page: OggPage, packets: list[bytes]) -> np.ndarray:
        if not packets:
            if page.granule != -1:
                raise AudioError(f"Ogg page {page.sequence} ends no packet but has granule {page.granule}")
            return np.zeros(0, dtype=np.int16)
        check_opus_tags(packets[0])
        if len(packets) != 1 or self.assembler.partial is not None:
            raise AudioError("the OpusTags comment header must finish its Ogg page", kind="header")
        if page.granule != 0:
            raise AudioError(f"the page finishing OpusTags has granule position {page.granule} (must be 0)",
                             kind="header")
        self.headers_seen = 2
        return np.zeros(0, dtype=np.int16)

    def _audio_page(self, page: OggPage, packets: list[bytes]) -> np.ndarray:
        assert self.decoder is not None
        if not packets:
            if page.granule != -1:
                raise AudioError(f"Ogg page {page.sequence} ends no packet but has granule {page.granule}")
            return np.zeros(0, dtype=np.int16)
        page_samples = sum(self.decoder.samples_48k(packet) for packet in packets)
        self.total_48k += page_samples
        trim = self._check_granule(page, page_samples)
        decoded = [self.decoder.decode(packet) for packet in packets]
        pcm = np.concatenate(decoded)
        if trim:
            pcm = pcm[:max(0, pcm.size - trim // _DECIMATION)]
        skip = min(self.pre_skip_remaining // _DECIMATION, pcm.size)
        if skip:
            pcm = pcm[skip:]
            self.pre_skip_remaining -= skip * _DECIMATION
        if self.pre_skip_remaining < _DECIMATION:
            self.pre_skip_remaining = 0
        if self.gain != 1.0 and pcm.size:
            pcm = np.clip(np.round(pcm.astype(np.float64) * self.gain), -32768, 32767).astype(np.int16)
        return pcm

    def _check_granule(self, page: OggPage, page_samples: int) -> int:
        """Checks the page's granule position; returns the number of 48 kHz samples to trim at the end."""
        if page.granule < 0:
            raise AudioError(f"Ogg page {page.sequence} ends a packet but has granule position -1")
        if self.granule_offset is None:
            offset = page.granule - self.total_48k
            if offset < 0 and not page.eos:
                raise AudioError(f"first audio page {page.sequence} has granule position {page.granule}, "
                                 f"less than the {self.total_48k} samples it completes (RFC 7845 4.5)")
            self.granule_offset = max(offset, 0)
        expected = self.total_48k + self.granule_offset
        if page.eos:
            trim = expected - page.granule
            if trim < 0 or trim > page_samples:
                raise AudioError(f"end-of-stream page {page.sequence} has granule position {page.granule}; "
                                 f"it must lie within its last {page_samples} samples before {expected}")
            return trim
        if page.granule != expected:
            raise AudioError(f"Ogg page {page.sequence} has granule position {page.granule}, expected "
                             f"{expected} from the durations of the packets so far")
        return 0
