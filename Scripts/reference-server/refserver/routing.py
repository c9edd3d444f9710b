"""The opening handshake: which protocol a path speaks, authentication, and the handshake faults."""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from http import HTTPStatus
from urllib.parse import parse_qs, urlsplit

from .config import ServerConfig
from .faults import ConnectionFaults

DASHSCOPE_PATHS = ("/api-ws/v1/inference", "/api-ws/v1/inference/")


@dataclass
class Route:
    family: str  # "dashscope" or "nls"
    tingwu: bool
    faults: ConnectionFaults


def classify(path: str, query: dict) -> tuple[str, bool] | None:
    if path in DASHSCOPE_PATHS:
        return "dashscope", False
    if path == "/ws/v1" or path.startswith("/ws/v1/"):
        return "nls", "mc" in query
    if path == "/api/ws/v1" or path.startswith("/api/ws/v1/"):  # Tingwu MeetingJoinUrl
        return "nls", True
    return None


def _same(secret: str, given: str | None) -> bool:
    return given is not None and hmac.compare_digest(secret.encode(), given.encode())


def dashscope_authorized(headers, key: str) -> bool:
    value = headers.get("Authorization")
    if value is None:
        return False
    scheme, _, token = value.strip().partition(" ")
    return scheme.lower() == "bearer" and _same(key, token.strip())


def nls_authorized(headers, query: dict, key: str, tingwu: bool) -> bool:
    if tingwu and "mc" in query:
        return _same(key, query["mc"][0])
    token = query.get("token", [None])[0] or headers.get("X-NLS-Token")
    return _same(key, token)


class Handshake:
    """`process_request` for websockets: answers 401/403/404 or lets the upgrade proceed."""

    def __init__(self, config: ServerConfig, log) -> None:
        self.config = config
        self.log = log
        self.count = 0

    def __call__(self, connection, request):
        self.count += 1
        connection.refserver_number = self.count
        parts = urlsplit(request.path)
        query = parse_qs(parts.query)
        route = classify(parts.path, query)
        if route is None:
            self.log.write(self.count, "reject", status=404, path=parts.path)
            return connection.respond(HTTPStatus.NOT_FOUND, f"No WebSocket endpoint at {parts.path}\n")
        family, tingwu = route
        faults = ConnectionFaults(self.config.faults)
        if faults.get("unauthorized"):
            self.log.write(self.count, "fault", name="unauthorized")
            return connection.respond(HTTPStatus.UNAUTHORIZED, "Unauthorized\n")
        if faults.get("forbidden"):
            self.log.write(self.count, "fault", name="forbidden")
            return connection.respond(HTTPStatus.FORBIDDEN, "Forbidden\n")
        key = self.config.api_key
        if key is not None:
            if family == "dashscope" and not dashscope_authorized(request.headers, key):
                self.log.write(self.count, "reject", status=401, reason="missing or wrong Authorization: Bearer")
                return connection.respond(HTTPStatus.UNAUTHORIZED, "Unauthorized, your api-key is invalid!\n")
            if family == "nls" and not nls_authorized(request.headers, query, key, tingwu):
                self.log.write(self.count, "reject", status=403, reason="missing or wrong NLS token")
                return connection.respond(HTTPStatus.FORBIDDEN, "Forbidden\n")
        connection.refserver_route = Route(family, tingwu, faults)
        return None
