"""RFC 6455 on raw asyncio streams: the upgrade and frames, with every field under the caller's control.

A hostile peer needs to write what a WebSocket library refuses to (a wrong accept hash, a frame header that
claims 2^62 bytes, a TCP reset), so this file does the framing itself. Server frames are never masked; client
frames must be masked (RFC 6455 §5.1) and are unmasked here.
"""

import asyncio
import base64
import hashlib
import socket
import struct

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

TEXT, BINARY, CLOSE, PING, PONG, CONTINUATION = 0x1, 0x2, 0x8, 0x9, 0xA, 0x0

# The largest client frame the server reads; a longer one ends the connection (the client sends ≤ 64 KiB).
MAX_CLIENT_FRAME = 16 << 20


def accept_key(key: str) -> str:
    """Sec-WebSocket-Accept for a Sec-WebSocket-Key (RFC 6455 §4.2.2)."""
    return base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()


async def read_request(reader: asyncio.StreamReader, limit: int = 16384) -> tuple[str, dict[str, str]]:
    """The HTTP upgrade request: the request target and the headers (names lower-cased)."""
    data = await reader.readuntil(b"\r\n\r\n")
    if len(data) > limit:
        raise ValueError("request headers too long")
    lines = data.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or parts[0] != "GET":
        raise ValueError(f"not a GET request: {lines[0]!r}")
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return parts[1], headers


def upgrade_response(headers: dict[str, str], accept: str | None = None) -> bytes:
    """101 Switching Protocols with the right accept hash, or `accept` when given (a wrong one)."""
    value = accept if accept is not None else accept_key(headers.get("sec-websocket-key", ""))
    return ("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Accept: {value}\r\n\r\n").encode()


def http_response(status: int, reason: str, body: bytes = b"") -> bytes:
    """A plain HTTP answer in place of the upgrade."""
    return (f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n").encode() + body


def frame_header(opcode: int, length: int, fin: bool = True) -> bytes:
    """An unmasked frame header claiming `length` payload bytes (any 63-bit length, sent or not)."""
    first = (0x80 if fin else 0) | opcode
    if length < 126:
        return struct.pack("!BB", first, length)
    if length < 1 << 16:
        return struct.pack("!BBH", first, 126, length)
    return struct.pack("!BBQ", first, 127, length)


def frame(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    """A whole unmasked frame."""
    return frame_header(opcode, len(payload), fin) + payload


def close_frame(code: int, reason: str = "") -> bytes:
    return frame(CLOSE, struct.pack("!H", code) + reason.encode())


async def read_frame(reader: asyncio.StreamReader) -> tuple[bool, int, bytes]:
    """One client frame: (fin, opcode, unmasked payload). Raises IncompleteReadError at end of stream."""
    first, second = await reader.readexactly(2)
    length = second & 0x7F
    if length == 126:
        (length,) = struct.unpack("!H", await reader.readexactly(2))
    elif length == 127:
        (length,) = struct.unpack("!Q", await reader.readexactly(8))
    if length > MAX_CLIENT_FRAME:
        raise ValueError(f"client frame of {length} bytes")
    mask = await reader.readexactly(4) if second & 0x80 else b""
    payload = await reader.readexactly(length)
    if mask:
        payload = _unmask(payload, mask)
    return bool(first & 0x80), first & 0x0F, payload


def _unmask(payload: bytes, mask: bytes) -> bytes:
    """XOR with the 4-byte mask, a machine word at a time (audio frames are kilobytes)."""
    n = len(payload)
    key = int.from_bytes((mask * ((n + 3) // 4))[:n], "little")
    return (int.from_bytes(payload, "little") ^ key).to_bytes(n, "little")


def reset(writer: asyncio.StreamWriter) -> None:
    """Drops the connection with a TCP RST (SO_LINGER 0), not a FIN."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()
