#!/usr/bin/env python3
"""A hostile ASR server: speaks just enough of DashScope's task protocol (/api-ws/v1/inference) and NLS
SpeechTranscriber (/ws/v1) to get a client going, then misbehaves in one chosen way (--mode). Raw asyncio
streams and its own framing (wsframes.py), so it can break the WebSocket layer too. Binds loopback only;
prints `LISTENING <port>` once it accepts connections; exits when stdin (a pipe) closes.
"""

import argparse
import asyncio
import ipaddress
import json
import os
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import messages as msg  # noqa: E402
import wsframes as ws  # noqa: E402

# Every mode and its parameters with their defaults (`--mode NAME:key=value,...`).
MODES = {
    "normal": {},
    "refuse": {},
    "accept-close": {},
    "bad-accept": {},
    "http": {"status": 500},
    "slow-headers": {"interval_ms": 300},
    "no-start": {},
    "wrong-task-id": {},
    "malformed": {"after_bytes": 6400, "after_ms": -1},
    "nested": {"after_bytes": 6400, "after_ms": -1, "depth": 100000},
    "wrong-types": {"after_bytes": 6400, "after_ms": -1},
    "oversized": {"after_bytes": 6400, "after_ms": -1, "size": 2 << 20, "fragments": 1},
    "huge-claim": {"after_bytes": 6400, "after_ms": -1, "claim": 1 << 62},
    "binary": {"after_bytes": 6400, "after_ms": -1, "size": 320},
    "task-failed": {"after_bytes": 6400, "after_ms": -1, "code": "InternalError"},
    "early-finish": {"after_bytes": 6400, "after_ms": -1},
    "late-finish": {"delay_ms": 2000},
    "close": {"after_bytes": 6400, "after_ms": -1, "code": 1011},
    "reset": {"after_bytes": 6400, "after_ms": -1},
    "stall": {"after_bytes": 6400, "after_ms": -1},
    "flood": {"rate": 10000, "seconds": 10.0},
}

# Modes whose fault fires once, after `after_bytes` of audio or `after_ms` after the task started.
TRIGGERED = {name for name, params in MODES.items() if "after_bytes" in params}


def parse_mode(text: str) -> tuple[str, dict]:
    name, _, rest = text.partition(":")
    if name not in MODES:
        raise argparse.ArgumentTypeError(f"unknown mode {name!r}; modes: {', '.join(MODES)}")
    params = dict(MODES[name])
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        if key not in params:
            raise argparse.ArgumentTypeError(f"mode {name} has no parameter {key!r}")
        kind = type(params[key])
        params[key] = kind(float(value)) if kind is int else kind(value)
    return name, params


class Log:
    """JSON lines, flushed per line, so a test reads them while the server runs."""

    def __init__(self, path: str | None):
        self.file = open(path, "a", encoding="utf-8") if path else None

    def __call__(self, kind: str, **fields) -> None:
        if self.file:
            self.file.write(json.dumps({"t": round(time.monotonic(), 4), "kind": kind, **fields}) + "\n")
            self.file.flush()


class Peer:
    """One upgraded connection: the protocol as far as the mode lets it go."""

    def __init__(self, reader, writer, family: str, mode: str, params: dict, log: Log):
        self.reader, self.writer, self.family = reader, writer, family
        self.mode, self.params, self.log = mode, params, log
        self.task_id = ""
        self.audio_bytes = 0
        self.started_at: float | None = None
        self.fired = False
        self.next_sentence = 1  # the id of the final result that answers the finish
        self.frozen = False  # stall: read and write nothing more
        self.muted = False  # after a framing fault: write nothing more
        self.finish_requested = asyncio.Event()
        self.tasks: list[asyncio.Task] = []

    def send(self, opcode: int, payload: bytes) -> None:
        if not self.muted and not self.frozen and not self.writer.is_closing():
            self.writer.write(ws.frame(opcode, payload))
            self.muted = opcode == ws.CLOSE  # nothing may follow a close frame

    def text(self, text: str) -> None:
        self.send(ws.TEXT, text.encode())

    async def run(self) -> None:
        try:
            while True:
                if self.frozen:
                    await asyncio.sleep(3600)
                fin, opcode, payload = await ws.read_frame(self.reader)
                if opcode == ws.CLOSE:
                    code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                    self.log("client-close", code=code, reason=payload[2:].decode("utf-8", "replace"))
                    self.send(ws.CLOSE, payload[:2])
                    break
                if opcode == ws.PING:
                    self.send(ws.PONG, payload)
                elif opcode == ws.TEXT:
                    self.on_text(payload.decode("utf-8", "replace"))
                elif opcode == ws.BINARY:
                    self.audio_bytes += len(payload)
                    self.log("recv-binary", bytes=len(payload), total=self.audio_bytes)
                    if self.mode in TRIGGERED and 0 <= self.params["after_bytes"] <= self.audio_bytes:
                        await self.fire()
                await self.writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            self.log("eof", audio_bytes=self.audio_bytes)
        finally:
            for task in self.tasks:
                task.cancel()

    def on_text(self, text: str) -> None:
        self.log("recv-text", text=text[:2000])
        try:
            message = json.loads(text)
            header = message["header"]
        except (ValueError, KeyError, TypeError):
            return
        action = header.get("action") or header.get("name")
        if action in ("run-task", "StartTranscription"):
            self.task_id = header.get("task_id", "")
            self.start()
        elif action in ("finish-task", "StopTranscription"):
            self.finish_requested.set()
            if self.mode not in ("flood", "no-start", "stall"):
                self.tasks.append(asyncio.create_task(self.finish()))

    def start(self) -> None:
        if self.mode == "no-start":
            return
        task_id = ("0" * 32 if self.task_id != "0" * 32 else "f" * 32) if self.mode == "wrong-task-id" else self.task_id
        self.text(msg.started(self.family, task_id))
        self.started_at = time.monotonic()
        self.log("task-started", task_id=task_id)
        if self.mode in TRIGGERED and self.params["after_ms"] >= 0:
            self.tasks.append(asyncio.create_task(self.fire_later(self.params["after_ms"] / 1000)))
        if self.mode == "flood":
            self.tasks.append(asyncio.create_task(self.flood()))

    async def finish(self) -> None:
        if self.mode == "late-finish":
            await asyncio.sleep(self.params["delay_ms"] / 1000)
        self.text(msg.result(self.family, self.task_id, self.next_sentence, "hostile final", True))
        self.text(msg.finished(self.family, self.task_id))
        self.log("task-finished")
        if self.family == msg.NLS:  # the NLS server closes after TranscriptionCompleted (§11.1)
            self.send(ws.CLOSE, (1000).to_bytes(2, "big"))

    async def fire_later(self, delay: float) -> None:
        await asyncio.sleep(delay)
        await self.fire()

    async def fire(self) -> None:
        """The mode's one fault."""
        if self.fired:
            return
        self.fired = True
        self.log("fault", mode=self.mode, audio_bytes=self.audio_bytes)
        p, family, task_id = self.params, self.family, self.task_id
        if self.mode == "malformed":
            self.text("this is {not json")
        elif self.mode == "nested":
            self.text(msg.nested(family, task_id, p["depth"]))
        elif self.mode == "wrong-types":
            for text in msg.wrong_types(family, task_id):
                self.text(text)
        elif self.mode == "oversized":
            self.oversized(p["size"], p["fragments"])
        elif self.mode == "huge-claim":
            await self.huge_claim(p["claim"])
        elif self.mode == "binary":
            self.send(ws.BINARY, bytes(range(256)) * (p["size"] // 256) + bytes(p["size"] % 256))
        elif self.mode == "task-failed":
            self.text(msg.failed(family, task_id, p["code"], "hostile server: task failed on purpose"))
            self.send(ws.CLOSE, (1000).to_bytes(2, "big"))
        elif self.mode == "early-finish":
            self.text(msg.finished(family, task_id))
        elif self.mode == "close":
            self.send(ws.CLOSE, p["code"].to_bytes(2, "big") + b"hostile close")
        elif self.mode == "reset":
            ws.reset(self.writer)
        elif self.mode == "stall":
            self.frozen = True

    def oversized(self, size: int, fragments: int) -> None:
        """A valid result padded to `size` bytes, in `fragments` frames (a first frame and continuations)."""
        body = msg.result(self.family, self.task_id, 1, "PAD", False)
        data = body.replace("PAD", "x" * max(0, size - len(body) + 3)).encode()
        step = -(-len(data) // max(1, fragments))
        pieces = [data[i:i + step] for i in range(0, len(data), step)]
        for i, piece in enumerate(pieces):
            self.writer.write(ws.frame(ws.TEXT if i == 0 else ws.CONTINUATION, piece, fin=i == len(pieces) - 1))

    async def huge_claim(self, claim: int) -> None:
        """A text frame header claiming `claim` bytes, then 64 KiB of it at a time while the client reads."""
        self.muted = True
        self.writer.write(ws.frame_header(ws.TEXT, claim) + b'{"header":{"event":"result-generated","text":"')
        chunk = b"x" * 65536
        sent = 0
        try:
            while sent < 64 << 20 and not self.writer.is_closing():
                self.writer.write(chunk)
                sent += len(chunk)
                await self.writer.drain()
        except ConnectionError:
            pass
        self.log("huge-claim-sent", bytes=sent)

    async def flood(self) -> None:
        """`rate` results a second for `seconds` (every tenth final) or until finish-task; then the finish."""
        rate, seconds = self.params["rate"], self.params["seconds"]
        begin = time.monotonic()
        sent = finals = 0
        while not self.finish_requested.is_set() and time.monotonic() - begin < seconds:
            due = int((time.monotonic() - begin) * rate)
            while sent < due:
                final = sent % 10 == 9
                sentence = sent // 10 + 1
                self.text(msg.result(self.family, self.task_id, sentence, f"flood {sent}", final,
                                     begin=sentence * 10, end=sentence * 10 + 5))
                sent += 1
                finals += final
            await self.writer.drain()
            await asyncio.sleep(0.005)
        self.next_sentence = sent // 10 + 2
        self.log("flood-done", sent=sent, finals=finals, seconds=round(time.monotonic() - begin, 3))
        await self.finish_requested.wait()
        await self.finish()


async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, mode: str, params: dict, log: Log):
    log("connect")
    try:
        if mode == "accept-close":
            writer.close()
            return
        target, headers = await ws.read_request(reader)
        path = target.split("?", 1)[0]
        log("request", path=path, has_key="sec-websocket-key" in headers)
        family = msg.DASHSCOPE if path.startswith("/api-ws/") else msg.NLS if "/ws/v1" in path else None
        if family is None:
            writer.write(ws.http_response(404, "Not Found"))
        elif mode == "http":
            status = params["status"]
            reasons = {200: "OK", 401: "Unauthorized", 403: "Forbidden", 500: "Internal Server Error"}
            writer.write(ws.http_response(status, reasons.get(status, "Status"), b"hostile server\n"))
        elif mode == "bad-accept":
            writer.write(ws.upgrade_response(headers, accept=ws.accept_key("not the client's key")))
            await writer.drain()
            await reader.read()  # keep it open until the client gives up
        elif mode == "slow-headers":
            for byte in ws.upgrade_response(headers):
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(params["interval_ms"] / 1000)
            await reader.read()
        else:
            writer.write(ws.upgrade_response(headers))
            await Peer(reader, writer, family, mode, params, log).run()
        await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError, ValueError) as error:
        log("connection-error", error=str(error))
    finally:
        if not writer.is_closing():
            writer.close()


def watch_stdin(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    """Stops the server when stdin, if it is a pipe, reaches end of file."""
    if os.isatty(0) or not os.path.exists("/dev/stdin"):
        return
    import stat
    if not stat.S_ISFIFO(os.fstat(0).st_mode) and not stat.S_ISSOCK(os.fstat(0).st_mode):
        return

    def read() -> None:
        while os.read(0, 4096):
            pass
        loop.call_soon_threadsafe(stop.set)
    threading.Thread(target=read, daemon=True).start()


async def main(args: argparse.Namespace) -> int:
    mode, params = args.mode
    log = Log(args.log)
    stop = asyncio.Event()
    if mode == "refuse":  # a port nobody listens on: bound once for its number, then closed
        with socket.socket() as probe:
            probe.bind((args.host, 0))
            port = probe.getsockname()[1]
        server = None
    else:
        server = await asyncio.start_server(lambda r, w: serve(r, w, mode, params, log), args.host, args.port,
                                            limit=1 << 20)
        port = server.sockets[0].getsockname()[1]
    print(f"LISTENING {port}", flush=True)
    watch_stdin(asyncio.get_running_loop(), stop)
    await stop.wait()
    if server:
        server.close()
    return 0


def arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="modes: " + "; ".join(f"{n} {p}" if p else n for n, p in MODES.items()))
    parser.add_argument("--host", default="127.0.0.1", help="loopback address to bind")
    parser.add_argument("--port", type=int, default=0, help="TCP port; 0 picks a free one")
    parser.add_argument("--mode", type=parse_mode, default=("normal", {}), help="NAME[:key=value,...]")
    parser.add_argument("--log", help="append JSON lines: connections, messages, faults, the client's close code")
    args = parser.parse_args(argv)
    try:
        if not ipaddress.ip_address("127.0.0.1" if args.host == "localhost" else args.host).is_loopback:
            raise ValueError
    except ValueError:
        parser.error(f"--host must be a loopback address, not {args.host}")
    return args


if __name__ == "__main__":
    try:
        sys.exit(asyncio.run(main(arguments(sys.argv[1:]))))
    except KeyboardInterrupt:
        sys.exit(0)
