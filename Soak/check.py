"""Checks one soak run against what the reference server logged.

    check.py --log SERVER.log --from LINE --protocol dashscope|nls --surface core|session|nui|dialogs|c|afe|tts|c-tts OUTPUT

OUTPUT is what the run printed: afe-soak's JSON line, nui_soak's `soak key=value ...` line, or `afe stream`'s
report. The server's log lines from LINE on belong to this run. Checks: the run's own failures list is empty;
its final results equal the sentences the server sent (DashScope `task-summary`, NLS `SentenceEnd` messages);
the audio bytes it reports sent equal the bytes the server received (DashScope). For the TTS soaks (`tts`,
`tts-long`): the tasks the server finished (its TTS `task-summary` lines) equal the run's, and the audio bytes the
SDK delivered equal the bytes the server synthesized and sent. Prints one line; exit 0 when everything holds, 1
otherwise.
"""
import argparse
import json
import re
import sys


def server_view(log_path, start, protocol, synthesis=False):
    tasks, nls_finals = [], 0
    with open(log_path, encoding="utf-8") as log:
        for number, line in enumerate(log):
            if number < start:
                continue
            record = json.loads(line)
            if record.get("kind") == "task-summary" and (record.get("service") == "tts") == synthesis:
                tasks.append(record)
            elif record.get("kind") == "send" and '"name":"SentenceEnd"' in record.get("text", "").replace(" ", ""):
                nls_finals += 1
    if synthesis:
        return {"tasks": len(tasks), "sentences": None, "bytes": sum(t["audio_bytes"] for t in tasks)}
    if protocol == "dashscope":
        return {"tasks": len(tasks), "sentences": sum(t["sentences"] for t in tasks),
                "bytes": sum(t["bytes"] for t in tasks)}
    return {"tasks": None, "sentences": nls_finals, "bytes": None}


def client_view(text, surface):
    if surface == "afe":
        sentences = re.search(r"sentences: (\d+)", text)
        sent = re.search(r"sent: (\d+) bytes", text)
        drops = re.search(r"drops: (.*)", text)
        failures = [] if drops and drops.group(1).strip() == "none" else [f"drops: {drops.group(1) if drops else '?'}"]
        return {"sentences": int(sentences.group(1)) if sentences else -1,
                "bytes": int(sent.group(1)) if sent else -1, "failures": failures}
    if surface == "c-tts":
        line = next((l for l in text.splitlines() if l.startswith("soak ")), "")
        fields = dict(item.split("=", 1) for item in line.split()[1:] if "=" in item)
        failures = [l for l in text.splitlines() if l.startswith("FAIL ")] + ([] if line else ["no soak line"])
        return {"tasks": int(fields["tasks"]) if "tasks" in fields else -1, "sentences": None,
                "bytes": int(fields["audio_bytes"]) if "audio_bytes" in fields else -1, "failures": failures}
    if surface == "c":
        line = next((l for l in text.splitlines() if l.startswith("soak ")), "")
        fields = dict(item.split("=", 1) for item in line.split()[1:] if "=" in item)
        failures = [l for l in text.splitlines() if l.startswith("FAIL ")]
        if not line:
            failures.append("no soak line")
        return {"sentences": int(fields["sentences"]) if "sentences" in fields else None, "bytes": None,
                "failures": failures}
    if surface == "tts":
        result = json.loads(next(l for l in reversed(text.strip().splitlines()) if l.startswith("{")))
        return {"tasks": result.get("tasks"), "sentences": None, "bytes": result.get("audio_bytes"),
                "failures": result["failures"]}
    # The summary is the last JSON line (AFE_SOAK_TRACE's per-minute lines and a wrapper's own lines may follow).
    result = json.loads(next(l for l in reversed(text.strip().splitlines()) if l.startswith("{")))
    return {"sentences": result.get("finals"), "bytes": result.get("bytes_sent"), "failures": result["failures"]}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--log", required=True)
    parser.add_argument("--from", dest="start", type=int, required=True)
    parser.add_argument("--protocol", required=True)
    parser.add_argument("--surface", required=True)
    parser.add_argument("output")
    arguments = parser.parse_args()
    with open(arguments.output, encoding="utf-8") as file:
        text = file.read()
    try:
        client = client_view(text, arguments.surface)
    except (ValueError, KeyError, IndexError, StopIteration) as error:
        print(f"FAIL {arguments.surface}: unreadable output ({error})")
        return 1
    synthesis = arguments.surface in ("tts", "c-tts")
    server = server_view(arguments.log, arguments.start, arguments.protocol, synthesis)
    problems = list(client["failures"])
    if synthesis and client["tasks"] != server["tasks"]:
        problems.append(f"{client['tasks']} answers, the server finished {server['tasks']} tasks")
    if client["sentences"] is not None and client["sentences"] != server["sentences"]:
        problems.append(f"{client['sentences']} final results delivered, the server sent {server['sentences']}")
    if client["bytes"] is not None and server["bytes"] is not None and client["bytes"] != server["bytes"]:
        problems.append(f"{client['bytes']} bytes {'delivered' if synthesis else 'sent'}, the server "
                        f"{'sent' if synthesis else 'received'} {server['bytes']}")
    status = "ok" if not problems else "FAIL " + "; ".join(problems)
    if synthesis:
        print(f"  server: {server['tasks']} TTS tasks, {server['bytes']} audio bytes -> {status}")
    else:
        print(f"  server: {server['sentences']} sentences, {server['bytes']} bytes -> {status}")
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
