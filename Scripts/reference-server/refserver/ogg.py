"""Streaming Ogg page parser (RFC 3533) with CRC check.

Bytes may arrive split anywhere; `OggPageReader.feed` returns every page completed so far.
Packets spanning pages are reassembled by `OggPacketAssembler`.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from .errors import AudioError

CAPTURE = b"OggS"
HEADER_SIZE = 27
FLAG_CONTINUED = 0x01
FLAG_BOS = 0x02
FLAG_EOS = 0x04


def _crc_table() -> list[int]:
    table = []
    for index in range(256):
        value = index << 24
        for _ in range(8):
            value = ((value << 1) ^ 0x04C11DB7) if value & 0x80000000 else (value << 1)
        table.append(value & 0xFFFFFFFF)
    return table


_TABLE = _crc_table()


def ogg_crc(data: bytes) -> int:
    """CRC-32 as Ogg defines it: polynomial 0x04c11db7, initial value 0, no reflection, no final xor."""
    crc = 0
    table = _TABLE
    for byte in data:
        crc = ((crc << 8) & 0xFFFFFFFF) ^ table[((crc >> 24) ^ byte) & 0xFF]
    return crc


@dataclass
class OggPage:
    flags: int
    granule: int
    serial: int
    sequence: int
    lacing: list[int]
    body: bytes
    offset: int  # byte offset of the page in the stream

    @property
    def continued(self) -> bool:
        return bool(self.flags & FLAG_CONTINUED)

    @property
    def bos(self) -> bool:
        return bool(self.flags & FLAG_BOS)

    @property
    def eos(self) -> bool:
        return bool(self.flags & FLAG_EOS)

    def packet_ends(self) -> int:
        """Number of packets that end on this page (lacing values below 255)."""
        return sum(1 for value in self.lacing if value < 255)


@dataclass
class OggPageReader:
    """Cuts a byte stream into CRC-checked Ogg pages."""

    buffer: bytearray = field(default_factory=bytearray)
    consumed: int = 0

    def feed(self, data: bytes) -> list[OggPage]:
        self.buffer += data
        pages = []
        while True:
            page = self._next_page()
            if page is None:
                return pages
            pages.append(page)

    @property
    def pending(self) -> int:
        """Bytes of an incomplete page still buffered."""
        return len(self.buffer)

    def _next_page(self) -> OggPage | None:
        buf = self.buffer
        if len(buf) < 4:
            if buf and not CAPTURE.startswith(bytes(buf)):
                raise AudioError(f"Ogg capture pattern 'OggS' missing at byte {self.consumed}")
            return None
        if buf[:4] != CAPTURE:
            raise AudioError(f"Ogg capture pattern 'OggS' missing at byte {self.consumed}")
        if len(buf) < HEADER_SIZE:
            return None
        version, flags, granule, serial, sequence, _crc, segments = struct.unpack_from("<BBqIIIB", buf, 4)
        if version != 0:
            raise AudioError(f"Ogg stream structure version {version} at byte {self.consumed} (must be 0)")
        if flags & ~0x07:
            raise AudioError(f"Ogg page at byte {self.consumed} has reserved header flags 0x{flags:02x}")
        if len(buf) < HEADER_SIZE + segments:
            return None
        lacing = list(buf[HEADER_SIZE:HEADER_SIZE + segments])
        total = HEADER_SIZE + segments + sum(lacing)
        if len(buf) < total:
            return None
        raw = bytes(buf[:total])
        expected = struct.unpack_from("<I", raw, 22)[0]
        actual = ogg_crc(raw[:22] + b"\0\0\0\0" + raw[26:])
        if actual != expected:
            raise AudioError(
                f"Ogg page CRC mismatch at byte {self.consumed} (page {sequence}): "
                f"header says 0x{expected:08x}, computed 0x{actual:08x}")
        page = OggPage(flags, granule, serial, sequence, lacing, raw[HEADER_SIZE + segments:], self.consumed)
        del buf[:total]
        self.consumed += total
        return page


@dataclass
class OggPacketAssembler:
    """Reassembles packets from the pages of one logical stream, checking serial, sequence and continuation."""

    serial: int | None = None
    next_sequence: int = 0
    partial: bytearray | None = None
    ended: bool = False

    def packets(self, page: OggPage) -> list[bytes]:
        if self.serial is None:
            if not page.bos:
                raise AudioError(f"first Ogg page (byte {page.offset}) lacks the beginning-of-stream flag")
            self.serial = page.serial
            self.next_sequence = page.sequence
        else:
            if page.bos:
                raise AudioError(f"a second beginning-of-stream page at byte {page.offset} "
                                 "(chained or multiplexed Ogg streams are not accepted)")
            if page.serial != self.serial:
                raise AudioError(f"Ogg page at byte {page.offset} has serial {page.serial}, "
                                 f"stream serial is {self.serial}")
        if self.ended:
            raise AudioError(f"Ogg page at byte {page.offset} follows the end-of-stream page")
        if page.sequence != self.next_sequence:
            raise AudioError(f"Ogg page sequence number {page.sequence} at byte {page.offset}, "
                             f"expected {self.next_sequence} (lost or reordered page)")
        self.next_sequence = (page.sequence + 1) & 0xFFFFFFFF
        if page.continued and self.partial is None:
            raise AudioError(f"Ogg page at byte {page.offset} has the continued-packet flag "
                             "but the previous page left no packet unfinished")
        if not page.continued and self.partial is not None:
            raise AudioError(f"Ogg page at byte {page.offset} lacks the continued-packet flag "
                             "but the previous page ended inside a packet")
        packets = []
        current = self.partial if self.partial is not None else bytearray()
        position = 0
        for value in page.lacing:
            current += page.body[position:position + value]
            position += value
            if value < 255:
                packets.append(bytes(current))
                current = bytearray()
        if page.lacing:
            self.partial = current if page.lacing[-1] == 255 else None
        if page.eos:
            self.ended = True
            if self.partial is not None:
                raise AudioError(f"end-of-stream Ogg page at byte {page.offset} ends inside a packet")
        return packets
