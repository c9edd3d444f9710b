"""Server messages of both protocols, written from asr-protocols.md (§6 family A, §11.1 family C)."""

import json
import uuid

DASHSCOPE, NLS = "dashscope", "nls"


def _nls_header(name: str, task_id: str, status: int = 20000000, text: str = "GATEWAY|SUCCESS|Success.") -> dict:
    return {"message_id": uuid.uuid4().hex, "task_id": task_id, "namespace": "SpeechTranscriber", "name": name,
            "status": status, "status_message": text, "status_text": text}


def started(family: str, task_id: str) -> str:
    if family == DASHSCOPE:
        return json.dumps({"header": {"task_id": task_id, "event": "task-started", "attributes": {}}, "payload": {}})
    return json.dumps({"header": _nls_header("TranscriptionStarted", task_id),
                       "payload": {"session_id": uuid.uuid4().hex}})


def result(family: str, task_id: str, sentence: int, text: str, final: bool, begin: int = 0, end: int = 100) -> str:
    """A partial or final result of sentence `sentence` (from 1)."""
    if family == DASHSCOPE:
        body = {"sentence_id": sentence, "text": text, "begin_time": begin, "end_time": end if final else None,
                "sentence_end": final, "heartbeat": False, "words": []}
        return json.dumps({"header": {"task_id": task_id, "event": "result-generated", "attributes": {}},
                           "payload": {"output": {"sentence": body}, "usage": {"duration": 1} if final else None}})
    name = "SentenceEnd" if final else "TranscriptionResultChanged"
    payload = {"index": sentence, "time": end, "result": text, "words": [], "status": 0}
    if final:
        payload.update({"begin_time": begin, "confidence": 0.9})
    return json.dumps({"header": _nls_header(name, task_id), "payload": payload})


def finished(family: str, task_id: str) -> str:
    if family == DASHSCOPE:
        return json.dumps({"header": {"task_id": task_id, "event": "task-finished", "attributes": {}},
                           "payload": {"output": {}, "usage": None}})
    return json.dumps({"header": _nls_header("TranscriptionCompleted", task_id), "payload": {}})


def failed(family: str, task_id: str, code: str, message: str) -> str:
    if family == DASHSCOPE:
        return json.dumps({"header": {"task_id": task_id, "event": "task-failed", "error_code": code,
                                      "error_message": message, "attributes": {}}, "payload": {}})
    status = int(code) if code.isdigit() else 50000000
    return json.dumps({"header": _nls_header("TaskFailed", task_id, status, message), "payload": {}})


def nested(family: str, task_id: str, depth: int) -> str:
    """A result whose text is `depth` nested arrays: a recursive parser without a depth limit overflows its stack."""
    inner = "[" * depth + "]" * depth
    template = result(family, task_id, 1, "PLACEHOLDER", False)
    return template.replace('"PLACEHOLDER"', inner)


def wrong_types(family: str, task_id: str) -> list[str]:
    """Messages whose fields have the wrong JSON type or absurd values, ending with one whose event name is not
    a string (which no client can act on)."""
    name_key = "event" if family == DASHSCOPE else "name"
    ok = json.loads(result(family, task_id, 1, "x", False))
    messages = []
    if family == DASHSCOPE:
        for sentence in ([], "text", 5, None, {"sentence_id": "one", "text": 7, "begin_time": "0"},
                         {"sentence_id": 1e300, "text": "big", "begin_time": -1e300, "end_time": 1e300,
                          "sentence_end": "yes"},
                         {"sentence_id": 99999999999999999999999, "text": "huge", "begin_time": 2 ** 70,
                          "end_time": -(2 ** 70), "sentence_end": True},
                         {"sentence_id": 9223372036854775807, "text": "max", "begin_time": 9223372036854775807,
                          "end_time": 9223372036854775807, "sentence_end": True}):
            m = json.loads(json.dumps(ok))
            m["payload"]["output"] = {"sentence": sentence}
            messages.append(json.dumps(m))
        m = json.loads(json.dumps(ok))
        m["payload"] = ["not", "an", "object"]
        messages.append(json.dumps(m))
    else:
        for payload in ({"index": "one", "result": 7, "time": "0"}, {"index": 1e300, "result": "big", "time": -1e300},
                        {"index": 2 ** 70, "result": "huge", "time": 2 ** 70, "begin_time": -(2 ** 70)},
                        {"index": 9223372036854775807, "result": "max", "time": 9223372036854775807}):
            for name in ("TranscriptionResultChanged", "SentenceEnd", "SentenceBegin"):
                m = json.loads(json.dumps(ok))
                m["header"]["name"] = name
                m["payload"] = payload
                messages.append(json.dumps(m))
    messages.append(json.dumps({"header": {"task_id": task_id, name_key: 42}, "payload": {}}))
    return messages
