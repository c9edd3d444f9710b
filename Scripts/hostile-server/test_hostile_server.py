"""The hostile server's own tests: each mode misbehaves as documented, checked with an independent client (the
`websockets` package for the well-formed parts, raw sockets for the framing faults).

Run: .venv/bin/python -m unittest discover -s Scripts/hostile-server -p 'test_*.py'
"""

import asyncio
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest

import websockets

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import wsframes as ws  # noqa: E402

RUN_TASK = {"header": {"action": "run-task", "task_id": "a" * 32, "streaming": "duplex"},
            "payload": {"task_group": "audio", "task": "asr", "function": "recognition", "model": "m",
                        "parameters": {"format": "pcm", "sample_rate": 16000}, "input": {}}}
FINISH = {"header": {"action": "finish-task", "task_id": "a" * 32, "streaming": "duplex"}, "payload": {"input": {}}}


class Server:
    def __init__(self, mode: str):
        self.log_path = tempfile.mktemp(suffix=".jsonl")
        self.process = subprocess.Popen([sys.executable, os.path.join(HERE, "hostile_server.py"), "--mode", mode,
                                         "--log", self.log_path], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        line = self.process.stdout.readline().decode()
        assert line.startswith("LISTENING "), line
        self.port = int(line.split()[1])

    def url(self, path="/api-ws/v1/inference"):
        return f"ws://127.0.0.1:{self.port}{path}"

    def log(self):
        with open(self.log_path, encoding="utf-8") as f:
            return [json.loads(line) for line in f]

    def stop(self):
        self.process.stdin.close()
        self.process.wait(5)
        self.process.stdout.close()


class HostileServerTests(unittest.TestCase):
    def serve(self, mode):
        server = Server(mode)
        self.addCleanup(server.stop)
        return server

    def run_async(self, coroutine):
        return asyncio.run(asyncio.wait_for(coroutine, 30))

    def test_normal_dashscope_task_and_close_code_is_logged(self):
        server = self.serve("normal")

        async def client():
            async with websockets.connect(server.url()) as socket_:
                await socket_.send(json.dumps(RUN_TASK))
                self.assertEqual(json.loads(await socket_.recv())["header"]["event"], "task-started")
                await socket_.send(b"\0" * 3200)
                await socket_.send(json.dumps(FINISH))
                events = [json.loads(await socket_.recv())["header"]["event"] for _ in range(2)]
                self.assertEqual(events, ["result-generated", "task-finished"])
        self.run_async(client())
        time.sleep(0.2)
        kinds = [entry["kind"] for entry in server.log()]
        self.assertIn("recv-binary", kinds)
        self.assertEqual([e["code"] for e in server.log() if e["kind"] == "client-close"], [1000])

    def test_nls_flow_and_server_close(self):
        server = self.serve("normal")

        async def client():
            async with websockets.connect(server.url("/ws/v1")) as socket_:
                header = {"message_id": "b" * 32, "task_id": "c" * 32, "namespace": "SpeechTranscriber",
                          "name": "StartTranscription", "appkey": "k"}
                await socket_.send(json.dumps({"header": header, "payload": {"format": "pcm", "sample_rate": 16000}}))
                self.assertEqual(json.loads(await socket_.recv())["header"]["name"], "TranscriptionStarted")
                await socket_.send(json.dumps({"header": dict(header, name="StopTranscription")}))
                names = [json.loads(await socket_.recv())["header"]["name"] for _ in range(2)]
                self.assertEqual(names, ["SentenceEnd", "TranscriptionCompleted"])
                with self.assertRaises(websockets.ConnectionClosedOK):
                    await socket_.recv()
        self.run_async(client())

    def test_upgrade_faults(self):
        for mode, expected in (("http:status=401", websockets.InvalidStatus),
                               ("http:status=200", websockets.InvalidStatus),
                               ("bad-accept", websockets.InvalidHandshake)):
            server = self.serve(mode)

            async def client():
                with self.assertRaises(expected, msg=mode):
                    async with websockets.connect(server.url(), open_timeout=5):
                        pass
            self.run_async(client())

    def test_refuse_and_accept_close(self):
        refused = self.serve("refuse")
        with self.assertRaises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", refused.port), timeout=2)
        closing = self.serve("accept-close")
        with socket.create_connection(("127.0.0.1", closing.port), timeout=2) as raw:
            self.assertEqual(raw.recv(10), b"")

    def raw_session(self, server, mode_bytes=6400):
        """A raw client: upgrade, run-task, audio; returns the socket after task-started."""
        raw = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        raw.sendall(b"GET /api-ws/v1/inference HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        response = b""
        while b"\r\n\r\n" not in response:
            response += raw.recv(1)
        self.assertIn(ws.accept_key("dGhlIHNhbXBsZSBub25jZQ==").encode(), response)

        def send(opcode, payload):
            mask = b"\1\2\3\4"
            header = ws.frame_header(opcode, len(payload))
            header = header[:1] + bytes([header[1] | 0x80]) + header[2:]
            raw.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        send(ws.TEXT, json.dumps(RUN_TASK).encode())
        send(ws.BINARY, b"\0" * mode_bytes)
        return raw

    def test_huge_claim_header(self):
        server = self.serve("huge-claim")
        raw = self.raw_session(server)
        data = b""
        while len(data) < 2000:
            data += raw.recv(4096)
        # First the task-started frame, then a text frame header claiming 2^62 bytes.
        first_length = data[1]
        second = data[2 + first_length:]
        self.assertEqual(second[0], 0x81)
        self.assertEqual(second[1], 127)
        self.assertEqual(struct.unpack("!Q", second[2:10])[0], 1 << 62)
        raw.close()

    def test_binary_and_early_finish(self):
        for mode, opcode in (("binary", ws.BINARY), ("early-finish", ws.TEXT)):
            server = self.serve(mode)
            raw = self.raw_session(server)
            reader = raw.makefile("rb")
            self.addCleanup(reader.close)

            def frame():
                first, second = reader.read(2)
                length = second & 0x7F
                if length == 126:
                    length = struct.unpack("!H", reader.read(2))[0]
                return first & 0x0F, reader.read(length)
            self.assertEqual(frame()[0], ws.TEXT)  # task-started
            kind, payload = frame()
            self.assertEqual(kind, opcode, mode)
            if mode == "early-finish":
                self.assertEqual(json.loads(payload)["header"]["event"], "task-finished")
            raw.close()


if __name__ == "__main__":
    unittest.main()
