#!/usr/bin/env python3
"""Local reference server for AudioFrontEnd's cloud-streaming ASR client.

Speaks DashScope's duplex task protocol (/api-ws/v1/inference) and NLS SpeechTranscriber (/ws/v1, Tingwu
meeting URLs), checks every client message against docs/asr-protocols.md, recognises speech deterministically
or with PocketSphinx, and can inject faults. Prints `LISTENING <port>` once it accepts connections.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import os
import signal
import ssl
import stat
import sys
import threading

from websockets.asyncio.server import serve

from refserver.config import ServerConfig
from refserver import tts
from refserver.faults import describe_faults, parse_fault
from refserver.log import EventLog
from refserver.nls import NlsSession
from refserver.routing import Handshake
from refserver.session import abort_frozen

EPILOG = describe_faults() + """

timeouts (seconds; default = the protocol's documented value):
  --idle-timeout      DashScope: no run-task after connecting or after task-finished (60);
                      NLS: no data after connecting / no audio after TranscriptionStarted (10)
  --no-audio-timeout  DashScope: no audio frame while a task runs (23);
                      NLS: a gap between audio frames (10)
  --silence-timeout   DashScope with heartbeat=false: continuous non-speech audio (60)

examples:
  server.py --host 127.0.0.1 --port 0 --api-key sk-test --fault task-failed:after_ms=500
  server.py --host 127.0.0.1 --port 8765 --recognizer pocketsphinx --fault close-mid-stream:after_bytes=64000,times=1
"""


def parse_arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1", help="loopback address to bind (127.0.0.0/8 or ::1)")
    parser.add_argument("--port", type=int, default=0, help="TCP port; 0 picks a free one (default 0)")
    parser.add_argument("--recognizer", choices=("deterministic", "pocketsphinx"), default="deterministic",
                        help="deterministic: NATO-alphabet words timed by energy segments; "
                             "pocketsphinx: real English transcripts (default deterministic)")
    parser.add_argument("--api-key", help="require this key: DashScope 'Authorization: Bearer KEY' (else 401), "
                                          "NLS ?token= / X-NLS-Token / Tingwu ?mc= (else 403)")
    parser.add_argument("--nls-appkey", help="NLS: header.appkey must equal this (else 40020105)")
    parser.add_argument("--fault", action="append", default=[], metavar="NAME[:k=v,...]",
                        help="inject a fault (repeatable); see the list below")
    parser.add_argument("--translate", nargs="?", const="zh", metavar="LANG",
                        help="NLS: send Tingwu ResultTranslated events ('[LANG] text'; LANG default zh)")
    parser.add_argument("--tls-cert", help="PEM certificate: serve wss:// instead of ws://")
    parser.add_argument("--tls-key", help="PEM private key for --tls-cert")
    parser.add_argument("--log", metavar="FILE", help="append a JSON-lines log of every connection and message")
    parser.add_argument("--energy-threshold-db", type=float, default=-40.0,
                        help="speech/non-speech threshold in dBFS per 10 ms frame (default -40); "
                             "speech_noise_threshold t moves it by 10*t dB")
    parser.add_argument("--idle-timeout", type=float)
    parser.add_argument("--no-audio-timeout", type=float)
    parser.add_argument("--silence-timeout", type=float)
    parser.add_argument("--heartbeat-interval", type=float, default=10.0,
                        help="DashScope heartbeat=true: a heartbeat result per this much silent audio (default 10)")
    parser.add_argument("--partial-interval-ms", type=int, default=200,
                        help="a partial result per this much speech audio (default 200: 5 per second; 100 for 10/s)")
    parser.add_argument("--exit-on-stdin-eof", action=argparse.BooleanOptionalAction, default=True,
                        help="exit when stdin (a pipe or socket) reaches end of file (default on)")
    tts.add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        args.parsed_faults = [parse_fault(spec) for spec in args.fault]
    except ValueError as error:
        parser.error(str(error))
    if not loopback(args.host):
        parser.error(f"--host {args.host}: only loopback addresses (127.0.0.0/8, ::1, localhost) are allowed")
    if args.partial_interval_ms < 10:
        parser.error(f"--partial-interval-ms {args.partial_interval_ms}: at least 10 (one 10 ms frame)")
    if bool(args.tls_cert) != bool(args.tls_key):
        parser.error("--tls-cert and --tls-key go together")
    return args


def loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def watch_stdin(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> None:
    """Stops the server when stdin, if it is a pipe or socket, reaches end of file."""
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return

    def read() -> None:
        try:
            while os.read(0, 4096):
                pass
        except OSError:
            pass
        loop.call_soon_threadsafe(stop.set)

    threading.Thread(target=read, name="stdin-watch", daemon=True).start()


async def main(args: argparse.Namespace) -> int:
    config = ServerConfig(
        recognizer=args.recognizer, api_key=args.api_key, nls_appkey=args.nls_appkey, faults=args.parsed_faults,
        translate=args.translate, energy_threshold_db=args.energy_threshold_db, idle_timeout=args.idle_timeout,
        no_audio_timeout=args.no_audio_timeout, silence_timeout=args.silence_timeout,
        heartbeat_interval=args.heartbeat_interval, partial_interval_ms=args.partial_interval_ms)
    config.tts = tts.settings(args)
    log = EventLog(args.log)
    if args.recognizer == "pocketsphinx":
        from refserver.recognizers import warm_up_pocketsphinx
        warm_up_pocketsphinx()

    async def handler(ws) -> None:
        route = ws.refserver_route
        session_args = (ws, config, route.faults, log, ws.refserver_number)
        if route.family == "dashscope":
            session = tts.SynthesisSession(*session_args)  # DashScope ASR and TTS tasks
        else:
            session = NlsSession(*session_args, tingwu=route.tingwu)
        await session.run()

    tls = None
    if args.tls_cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.tls_cert, args.tls_key)
    host = "127.0.0.1" if args.host == "localhost" else args.host
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    async with serve(handler, host, args.port, process_request=Handshake(config, log), compression=None,
                     ping_interval=None, close_timeout=2, max_size=2 ** 20, ssl=tls, server_header="refserver") as server:
        port = server.sockets[0].getsockname()[1]
        log.write(0, "listening", host=host, port=port, recognizer=args.recognizer, faults=args.fault,
                  tls=bool(tls), auth=args.api_key is not None)
        print(f"LISTENING {port}", flush=True)
        if args.exit_on_stdin_eof:
            watch_stdin(loop, stop)
        await stop.wait()
        log.write(0, "stopping")
        abort_frozen()
    log.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(parse_arguments(sys.argv[1:]))))
