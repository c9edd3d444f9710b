"""Exceptions shared by the protocol handlers."""

from __future__ import annotations


class AudioError(Exception):
    """The audio stream cannot be decoded (broken container, bad codec data, wrong layout).

    `kind` is "decode" for undecodable data and "header" for a bad container header (WAV/OpusHead);
    each protocol maps it to its own error code.
    """

    def __init__(self, message: str, kind: str = "decode"):
        super().__init__(message)
        self.message = message
        self.kind = kind


class ProtocolError(Exception):
    """A client message breaks the protocol. Carries the error code and message the server reports."""

    def __init__(self, code: str | int, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
