#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (Fuzz/corpus/<target>/) from real examples: the NUI SDK docs' parameter
JSON, the protocol examples of asr-protocols.md (DashScope and NLS server messages), small cuts of the test vectors
(WAV, FLAC, Ogg Opus through sox and opusenc when present) and Ogg Opus pages written by the front end's own writer
shape. Run once; the files are committed. Usage: Fuzz/make-seeds.py"""
import json, os, struct, subprocess, shutil, tempfile, wave

ROOT = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(ROOT, "corpus")
TASK = "2bf83b9abaeb4fda8d9a000000000001"  # ServerMessageProbe.taskId


def put(target, name, data):
    directory = os.path.join(CORPUS, target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def j(o):
    return json.dumps(o, ensure_ascii=False, separators=(",", ":"))


# NUI parameters (nui-realtime-asr-ios-sdk.txt, README).
init_dash = {"url": "wss://dashscope.aliyuncs.com/api-ws/v1/inference", "apikey": "st-****", "device_id": "my_device_id",
             "service_mode": "1"}
put("FuzzNuiParameters", "init-doc", "I" + j(init_dash))
put("FuzzNuiParameters", "init-push", "I" + j(dict(init_dash, audio_update_manually="true", workspace="/tmp",
                                                   debug_path="/tmp", save_wav="false", max_log_file_size=104857600,
                                                   log_track_level=2)))
put("FuzzNuiParameters", "init-nls", "I" + j({"url": "wss://nls-gateway-cn-shanghai.aliyuncs.com/ws/v1?token=abcd",
                                             "app_key": "app", "token": "tok-1234", "device_id": "d",
                                             "service_mode": "1", "workspace": "/tmp"}))
put("FuzzNuiParameters", "init-tingwu", "I" + j({"url": "wss://tingwu-realtime-cn-beijing.aliyuncs.com/api/ws/v1?mc=x1",
                                                "app_key": "default", "token": "default", "device_id": "d",
                                                "service_mode": "1", "workspace": "/tmp"}))
params = {"service_type": 4, "nls_config": {"model": "qwen-audio-3.0-asr-flash-streaming", "sr_format": "pcm",
                                            "sample_rate": "16000"}}
put("FuzzNuiParameters", "params-doc", "D" + j(params))
put("FuzzNuiParameters", "params-full", "D" + j({"service_type": 4, "nls_config": {
    "model": "fun-asr-realtime", "sr_format": "opus", "sample_rate": 16000, "semantic_punctuation_enabled": False,
    "max_sentence_silence": 1300, "multi_threshold_mode_enabled": True, "heartbeat": True, "vocabulary_id": "v",
    "instant_vocabulary": {"word": 5, "super": 50}, "language_hints": ["zh", "en"], "speech_noise_threshold": 0.1,
    "special_word_filter": {"filter_with_signed": {"word_list": ["x"]}}, "enable_connection_fast_check": True,
    "enable_reconnection": True, "finish_timeout": 10000}, "enable_aec": True, "enable_ns": True, "enable_vad": True}))
put("FuzzNuiParameters", "params-nls", "N" + j({"service_type": 4, "nls_config": {
    "sr_format": "pcm", "sample_rate": 16000, "enable_intermediate_result": True,
    "enable_punctuation_prediction": "true", "enable_inverse_text_normalization": False, "customization_id": "c"}}))
context = [{"role": "user", "content": [{"text": "xxxxx", "type": "input_text"}]}]
put("FuzzNuiParameters", "dialog-doc", "S" + j({"apikey": "st-****", "input_context": context}))
put("FuzzNuiParameters", "dialog-string-context", "S" + j({"input_context": j(context)}))
put("FuzzNuiParameters", "action-context", "A" + j({"type": "action", "command": "context", "context": context}))
put("FuzzNuiParameters", "action-play", "A" + j({"type": "action", "command": "play_start"}))

# Server messages (asr-protocols.md §6 DashScope, §11.1 NLS). First byte: 'd' DashScope PCM, 'e' NLS PCM,
# 'f' DashScope Opus, 'g' NLS Opus.
def dash(event, payload=None, **header):
    return j({"header": dict({"task_id": TASK, "event": event, "attributes": {}}, **header), "payload": payload or {}})


sentence = {"begin_time": 170, "end_time": 920, "text": "好，我知道了", "heartbeat": False, "sentence_end": True,
            "sentence_id": 1, "words": [{"begin_time": 170, "end_time": 295, "text": "好的", "punctuation": "，"}]}
partial = dict(sentence, end_time=None, sentence_end=False)
started, finished = dash("task-started"), dash("task-finished", {"output": {}, "usage": None})
result = lambda s: dash("result-generated", {"output": {"sentence": s}, "usage": {"duration": 3}})
put("FuzzServerMessages", "dashscope-flow", "\n".join(["d", started, result(partial), result(sentence), "!finish",
                                                      finished]))
put("FuzzServerMessages", "dashscope-opus-reconnect", "\n".join(["f", started, result(sentence), "!reconnect", started,
                                                                 result(dict(sentence, sentence_id=1)), "!finish", finished]))
put("FuzzServerMessages", "dashscope-heartbeat", "\n".join([
    "d", started, j({"header": {"event": "result-generated"},
                     "payload": {"output": {"sentence": {"text": "", "heartbeat": True, "sentence_id": 0}}}})]))
gummy = {"sentence_id": 0, "begin_time": 100, "end_time": 2720, "text": "这是一句", "sentence_end": True}
put("FuzzServerMessages", "dashscope-gummy", "\n".join(["d", started, dash("result-generated", {"output": {
    "translations": [dict(gummy, text="This is a text.", lang="en")], "transcription": gummy}}), "!finish", finished]))
put("FuzzServerMessages", "dashscope-failed", "\n".join(["d", started, dash(
    "task-failed", error_code="CLIENT_ERROR", error_message="request timeout after 23 seconds.")]))
put("FuzzServerMessages", "dashscope-malformed", "d\n{\"header\":{}}\n[1,2]\n{\"header\":{\"event\":7}}\n")


def nls(name, payload=None, status=20000000):
    return j({"header": {"message_id": "05450bf69c53413f8d88aed1ee60abcd", "task_id": "640bc797bb684bd6960185651307abcd",
                         "namespace": "SpeechTranscriber", "name": name, "status": status,
                         "status_message": "GATEWAY|SUCCESS|Success."}, "payload": payload or {}})


put("FuzzServerMessages", "nls-flow", "\n".join([
    "e", nls("TranscriptionStarted", {"session_id": "s1"}), nls("SentenceBegin", {"index": 1, "time": 320}),
    nls("TranscriptionResultChanged", {"index": 1, "time": 1800, "result": "今年", "words": []}),
    nls("SentenceEnd", {"index": 1, "time": 3260, "begin_time": 1800, "result": "今年双十一我要买电视",
                        "confidence": 0.9, "stash_result": {"sentenceId": 2, "beginTime": 3260, "text": "",
                                                            "currentTime": 3300}}),
    "!finish", nls("TranscriptionCompleted")]))
put("FuzzServerMessages", "nls-failed", "\n".join(["e", nls("TranscriptionStarted", {"session_id": "s1"}),
                                                   j({"header": {"name": "TaskFailed", "status": 40000004,
                                                                 "status_text": "IDLE_TIMEOUT"}})]))
put("FuzzServerMessages", "nls-translated", "\n".join([
    "g", nls("TranscriptionStarted"), nls("ResultTranslated", {"index": 1, "translate_result": [
        {"text": "hello", "lang": "en"}], "sentence_end": True}), "!reconnect", nls("TranscriptionStarted"),
    nls("SentenceEnd", {"index": 1, "time": 100, "begin_time": 0, "result": "x"})]))

# Audio files: the test vectors cut small (0.05 s) in each container libsndfile reads.
vectors = os.path.join(os.path.dirname(ROOT), "TestVectors")
with wave.open(os.path.join(vectors, "doubletalk_ser0db_16k.wav")) as w:
    frames = w.readframes(800)
    rate, width = w.getframerate(), w.getsampwidth()
def wav(channels, rate, data, width=2):
    with tempfile.NamedTemporaryFile(suffix=".wav", delete=False) as f:
        path = f.name
    with wave.open(path, "wb") as w:
        w.setnchannels(channels); w.setsampwidth(width); w.setframerate(rate); w.writeframes(data)
    with open(path, "rb") as f:
        out = f.read()
    os.unlink(path)
    return out
put("FuzzAudioFile", "mono16k.wav", wav(1, rate, frames))
stereo = b"".join(frames[i:i + 2] * 2 for i in range(0, len(frames), 2))
put("FuzzAudioFile", "stereo48k.wav", wav(2, 48000, stereo))
put("FuzzAudioFile", "mono8k-u8.wav", wav(1, 8000, bytes((b + 128) & 255 for b in frames[1::2]), width=1))
if shutil.which("sox"):
    with tempfile.TemporaryDirectory() as d:
        source = os.path.join(d, "in.wav")
        open(source, "wb").write(wav(1, rate, frames))
        for name, args in [("short.flac", []), ("short.aiff", []), ("float32.wav", ["-e", "floating-point", "-b", "32"]),
                           ("24bit.wav", ["-b", "24"]), ("short.ogg", []), ("alaw.wav", ["-e", "a-law"])]:
            out = os.path.join(d, name)
            if subprocess.run(["sox", source] + args + [out], capture_output=True).returncode == 0:
                put("FuzzAudioFile", name, open(out, "rb").read())
        if shutil.which("opusenc"):
            out = os.path.join(d, "short.opus")
            if subprocess.run(["opusenc", "--quiet", source, out], capture_output=True).returncode == 0:
                opus = open(out, "rb").read()
                put("FuzzAudioFile", "short.opus", opus)
                # Ogg/Opus: mode 0 (pages into the assembler), first bytes: frame ms, max bytes, replay capacity.
                put("FuzzOggOpus", "ogg-pages", bytes([0, 4, 5, 6]) + opus)
                # The Opus packets of the stream (lacing read back), for the decoder (mode 2, length byte × 4).
                packets, pos = [], 0
                while pos + 27 <= len(opus) and opus[pos:pos + 4] == b"OggS":
                    segments = opus[pos + 26]
                    lacing = opus[pos + 27:pos + 27 + segments]
                    body = pos + 27 + segments
                    packet = b""
                    for lace in lacing:
                        packet += opus[body:body + lace]; body += lace
                        if lace < 255:
                            packets.append(packet); packet = b""
                    pos = body
                audio = [p for p in packets if not p.startswith(b"Opus")]
                stream = b""
                for p in audio[:6]:
                    p = p[:1020]
                    length = len(p) // 4
                    stream += bytes([3 + (len(p) % 4 and 0), length]) + p[:length * 4]
                put("FuzzOggOpus", "opus-packets", bytes([2, 1]) + stream)
                writer = bytes([3, 0, 7, 8]) + b"ENCODER=x" + bytes([0, 0x3e, 0x80, 0x01])
                for p in audio[:6]:
                    p = p[:510]
                    writer += bytes([0, (len(p) - 1) // 2]) + p[:1 + (len(p) - 1) // 2 * 2]
                put("FuzzOggOpus", "ogg-writer", writer)
put("FuzzOggOpus", "pcm-chunks", bytes([1, 0, 0, 0]) + frames[:1200])

# C ABI call sequences (fuzz_nui_calls.c): op byte then its argument bytes.
# initialize(level byte 1, level 2, params 0, listener) · set_params(0) · dialog_start(mode, text "") ·
# action(play_start) · push mic 640 · push reference 640 · cancel(false) · release.
put("FuzzNuiCalls", "push-dialog", bytes([0, 1, 2, 0, 1, 1, 0, 2, 1, 4, 3, 0, 4, 5, 2, 128, 5, 5, 2, 128, 6, 0, 7]))
put("FuzzNuiCalls", "wrong-states", bytes([1, 0, 2, 1, 3, 0, 4, 0, 1, 0, 6, 1, 7, 8, 0, 1, 2, 3, 0, 1, 0, 2, 0]))
put("FuzzNuiCalls", "pull-dialog", bytes([0, 1, 2, 1, 1, 1, 0, 1, 2, 1, 4, 8, 4, 1, 255, 255, 6, 1, 7]))
put("FuzzNuiCalls", "nls-opus", bytes([0, 1, 2, 2, 1, 1, 1, 2, 1, 4, 9, 5, 2, 128, 6, 0, 7]))
print("seeds written under", CORPUS)
