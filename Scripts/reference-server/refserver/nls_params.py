"""Validation of family-C (NLS SpeechTranscriber, /ws/v1) client messages, per docs/asr-protocols.md §11.

Every check raises ProtocolError(status, status_text) as the TaskFailed event reports it.
"""

from __future__ import annotations

import json
import re

from .errors import ProtocolError

OK = 20000000
MESSAGE_INVALID = 40000002
IDLE_TIMEOUT = 40000004
INVALID_WAV = 40000009
TASK_STATE_ERROR = 40010005
APPKEY_NOT_EXIST = 40020105
NO_VALID_AUDIO = 40270002
DECODE_ERROR = 40270003
UNSUPPORTED_SAMPLE_RATE = 41010101
CLIENT_DATA_TIMEOUT = 41040201
GRPC_ERROR = 50000000

ID = re.compile(r"^[0-9a-f]{32}$")
NAMES = ("StartTranscription", "StopTranscription", "ControlTranscriber")
FORMATS = ("pcm", "wav", "opus", "speex", "amr", "mp3", "aac", "opu")
BOOLEANS = ("enable_intermediate_result", "enable_punctuation_prediction", "enable_inverse_text_normalization",
            "enable_words", "disfluency", "enable_semantic_sentence_detection", "enable_multi_thresh_mod")


def message_invalid(detail: str) -> ProtocolError:
    return ProtocolError(MESSAGE_INVALID, f"Gateway:MESSAGE_INVALID:{detail}")


def json_object(text: str, what: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError:
        raise message_invalid(f"{what}: not valid JSON!") from None
    if not isinstance(value, dict):
        raise message_invalid(f"{what}: it must be a JSON object!")
    return value


def parse(text: str) -> dict:
    return json_object(text, "Invalid message")


def check_header(message: dict, tingwu: bool, appkey: str | None) -> tuple[str, str, str]:
    """Returns (name, task_id, message_id)."""
    header = message.get("header")
    if not isinstance(header, dict):
        raise message_invalid("Invalid message: missing 'header' object!")
    message_id = header.get("message_id")
    if not isinstance(message_id, str) or not ID.match(message_id):
        shown = message_id if isinstance(message_id, str) else ""
        raise message_invalid(f"Invalid message id '{shown}'!")
    task_id = header.get("task_id")
    if not isinstance(task_id, str) or not ID.match(task_id):
        shown = task_id if isinstance(task_id, str) else ""
        raise message_invalid(f"Invalid task id '{shown}'!")
    namespace = header.get("namespace")
    if namespace != "SpeechTranscriber":
        raise message_invalid(f"Invalid namespace '{namespace}'! Expected 'SpeechTranscriber'.")
    name = header.get("name")
    if name not in NAMES:
        raise message_invalid(f"Invalid name '{name}' for namespace SpeechTranscriber!")
    key = header.get("appkey")
    if key is not None and not isinstance(key, str):
        raise message_invalid("Invalid appkey: it must be a string!")
    if not tingwu and not key:
        raise ProtocolError(APPKEY_NOT_EXIST, "Gateway:APPKEY_NOT_EXIST:Missing appkey in the header!")
    if appkey is not None and not tingwu and key != appkey:
        raise ProtocolError(APPKEY_NOT_EXIST, f"Gateway:APPKEY_NOT_EXIST:Appkey '{key}' does not exist!")
    if "context" in header and not isinstance(header["context"], dict):
        raise message_invalid("Invalid context: it must be an object!")
    return name, task_id, message_id


def payload_of(message: dict) -> dict:
    payload = message.get("payload", {})
    if payload is None:
        return {}
    if not isinstance(payload, dict):
        raise message_invalid("Invalid payload: it must be an object!")
    return payload


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_start(payload: dict) -> dict:
    """Checks StartTranscription's payload; returns it completed with the defaults."""
    settings = {"format": "pcm", "sample_rate": 16000, "max_sentence_silence": 800}
    settings.update(payload)
    if settings["format"] not in FORMATS:
        raise message_invalid(f"Invalid format '{settings['format']}'! Supported: {', '.join(FORMATS)}.")
    rate = settings["sample_rate"]
    if not _is_int(rate) or rate not in (8000, 16000):
        raise ProtocolError(UNSUPPORTED_SAMPLE_RATE, f"Meta:UNSUPPORTED_SAMPLE_RATE:Sample rate {rate!r} is not "
                            "supported (8000 or 16000)!")
    check_common(settings)
    if settings.get("enable_semantic_sentence_detection") and not settings.get("enable_intermediate_result"):
        raise message_invalid("Invalid parameter: enable_semantic_sentence_detection requires "
                              "enable_intermediate_result!")
    return settings


def check_common(payload: dict) -> None:
    """Parameters StartTranscription and ControlTranscriber share."""
    for name in BOOLEANS:
        if name in payload and not isinstance(payload[name], bool):
            raise message_invalid(f"Invalid parameter '{name}': must be a boolean, got {payload[name]!r}!")
    if "max_sentence_silence" in payload:
        value = payload["max_sentence_silence"]
        if not _is_int(value) or not 200 <= value <= 6000:
            raise message_invalid(f"Invalid parameter 'max_sentence_silence': must be an integer in "
                                  f"[200, 6000], got {value!r}!")
    if "speech_noise_threshold" in payload:
        value = payload["speech_noise_threshold"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not -1 <= value <= 1:
            raise message_invalid(f"Invalid parameter 'speech_noise_threshold': must be a number in [-1, 1], "
                                  f"got {value!r}!")
    for name in ("customization_id", "vocabulary_id"):
        if name in payload and (not isinstance(payload[name], str) or not payload[name]):
            raise message_invalid(f"Invalid parameter '{name}': must be a non-empty string!")
    if "special_word_filter" in payload:
        check_word_filter(payload["special_word_filter"])


def check_word_filter(value) -> None:
    what = "Invalid parameter 'special_word_filter'"
    if isinstance(value, str):
        value = json_object(value, what)
    if not isinstance(value, dict):
        raise message_invalid(f"{what}: it must be a JSON object!")
    words = sum(len(entry.get("word_list", [])) for entry in value.values() if isinstance(entry, dict))
    if words > 32:
        raise message_invalid(f"Invalid parameter 'special_word_filter': {words} words (at most 32)!")
