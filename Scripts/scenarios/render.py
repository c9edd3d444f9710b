"""Renders one scenario spec (matrix.py) into signals and ground truth."""
import zlib

import numpy as np
from scipy import signal

import rooms
import synth
from matrix import FAR_SENTENCES, POOLS


def sub_rng(spec, name):
    return np.random.default_rng([spec["seed"], zlib.crc32(name.encode())])


def place_utterances(utterances, rate, n, rng, first_s, gap_s):
    """Places the utterances one after another from first_s, gaps drawn from gap_s, until the file is full.
    Returns the signal, a list of (start_sample, utterance index) and per-utterance activity frames."""
    x = np.zeros(n)
    placed = []
    pos = int(first_s * rate)
    i = 0
    while i < len(utterances):
        u = utterances[i]
        if pos + len(u) > n - int(0.3 * rate):
            break
        x[pos:pos + len(u)] += u
        placed.append((pos, i))
        pos += len(u) + int(rng.uniform(*gap_s) * rate)
        i += 1
    return x, placed


def far_end(spec, rate, n):
    rng = sub_rng(spec, "far")
    texts = []
    x = np.zeros(n)
    if spec["far"] in ("speech", "speech+music"):
        engine, voice, lang = spec["far_voice"]
        pool = FAR_SENTENCES[lang]
        start = int(rng.integers(0, len(pool)))
        order = [pool[(start + k) % len(pool)] for k in range(len(pool))] * 4
        utts = [synth.tts(engine, voice, t, rate) for t in order[:24]]
        x, placed = place_utterances(utts, rate, n, rng, rng.uniform(0.3, 1.0), (0.4, 1.2))
        texts = [order[i] for _, i in placed]
        x = x * synth.amp(spec["far_level_dbfs"] - synth.active_level_dbfs(x, rate))
    if spec["far"] in ("music", "speech+music"):
        m = synth.band_unit(synth.music(n, rate, rng), rate)
        level = spec["far_level_dbfs"] - (12.0 if spec["far"] == "speech+music" else 0.0)
        x = x + m * synth.amp(level)
    return x, texts


def loudspeaker(spec, played, rate, n):
    """What leaves the loudspeaker (nonlinearity, hardware volume), at the mic's clock."""
    rng = sub_rng(spec, "speaker")
    y = played.copy()
    steps = []
    if spec["nonlinearity"] == "softclip":
        y = synth.soft_clip(y, float(rng.uniform(2.0, 3.5)))
    elif spec["nonlinearity"] == "small_speaker":
        y = synth.small_speaker(y, rate)
    if spec["volume_changes"]:
        d = spec["duration_s"]
        steps = [[round(d / 3, 2), round(float(rng.uniform(-8, -4)), 1)], [round(2 * d / 3, 2), round(float(rng.uniform(1, 4)), 1)]]
        y = y * synth.volume_steps(n, rate, steps)
    y = synth.drifted(y, spec["drift_ppm"], n)
    return y, steps


def convolve(x, h, n):
    return signal.fftconvolve(x, h)[:n]


def echo_path(spec, room, source_signal, rate, n):
    """Bulk delay then the room (per mic); with a path change, the second path from path_change_s on."""
    rng = sub_rng(spec, "path")
    ch = spec["channels"]
    delay = int(round(spec["delay_ms"] * rate / 1000.0))
    x = np.concatenate([np.zeros(delay), source_signal])[:n]
    h1 = rooms.impulse_responses(room, rate, "speaker", ch)
    out = np.stack([convolve(x, h, n) for h in h1], axis=1)
    change = None
    if spec["path_change"]:
        at = float(round(rng.uniform(12, 18), 2))
        room2 = dict(room)
        scale = 1.0
        if spec["path_change"] == "moved":
            dims = room["dims_m"]
            room2["mic_m"] = rooms.rounded(rooms.place_at(rng, dims, room["mic_m"], float(rng.uniform(0.5, 1.0))))
        else:
            scale = 1.6  # a door opened: more of the sound leaves the room
        h2 = rooms.impulse_responses(room2, rate, "speaker", ch, absorption_scale=scale)
        second = np.stack([convolve(x, h, n) for h in h2], axis=1)
        i = int(at * rate)
        fade = int(0.02 * rate)
        w = np.concatenate([np.zeros(i), np.linspace(0, 1, fade), np.ones(max(0, n - i - fade))])[:n, None]
        out = out * (1 - w) + second * w
        change = {"at_s": at, "kind": spec["path_change"], "room_after": room2, "absorption_scale": scale,
                  "direct_path_ms_after": round(rooms.direct_path_ms(room2, "speaker"), 3)}
    return out, h1, change


def near_end(spec, room, rate, n):
    rng = sub_rng(spec, "near")
    engine, voice = spec["near_voice"]
    utts = [synth.tts(engine, voice, t, rate) for t in spec["near_sentences"]]
    if spec["kind"] in ("doubletalk", "rate"):
        dry, placed = place_utterances(utts, rate, n, rng, rng.uniform(2.5, 3.5), (1.5, 3.5))
    else:
        dry, placed = place_utterances(utts, rate, n, rng, rng.uniform(0.8, 1.5), (0.8, 2.5))
    frames = n // int(round(rate * synth.FRAME_S))
    labels = np.zeros(frames, dtype=bool)
    hop = int(round(rate * synth.FRAME_S))
    direct = int(round(rooms.direct_path_ms(room, "talker") * rate / 1000.0))
    for pos, i in placed:
        u = np.zeros(n)
        u[pos + direct:pos + direct + len(utts[i])] = utts[i][:max(0, n - pos - direct)]
        a = synth.activity(u, rate)
        first = (pos + direct) // hop
        a[:max(0, first - 1)] = False  # nothing of this utterance before its start
        labels[:len(a)] |= a[:frames]
    h = rooms.impulse_responses(room, rate, "talker", spec["channels"])
    wet = np.stack([convolve(dry, hh, n) for hh in h], axis=1)
    transcript = " ".join(spec["near_sentences"][i] for _, i in placed)
    return wet, labels, transcript, [[round(pos / rate, 3), spec["near_sentences"][i]] for pos, i in placed]


def noise(spec, rate, n, level_dbfs):
    rng = sub_rng(spec, "noise")
    kind = spec["noise"]
    if kind is None:
        return np.zeros((n, spec["channels"]))
    if kind == "babble":
        talkers = []
        for k, (engine, voice, lang) in enumerate(POOLS[spec["half"]]["babble"]):
            pool = FAR_SENTENCES[lang]
            talkers.append((engine, voice, pool[(k + int(rng.integers(0, len(pool)))) % len(pool)]))
        x = synth.babble(n, rate, rng, talkers)
    else:
        x = synth.NOISES[kind](n, rate, rng)
    x = synth.band_unit(x, rate) * synth.amp(level_dbfs)
    if spec["channels"] == 1:
        return x[:, None]
    return np.stack([x, np.concatenate([np.zeros(2), x[:-2]])], axis=1)


def render(spec, extra=0):
    """Signals (float, n x channels) and the truth dict for one spec.

    extra > 0 (samples): the echo also goes on for `extra` samples after the scene's end, in
    signals["echo_continued"] (n + extra x channels, scaled as "echo"): the far end as placed in the n samples
    and silent after them (it stops at the scene's end; what it played still arrives). Everything else is computed
    from the first n samples as without it (equal to float rounding: the longer convolutions round differently)."""
    rate, ch = spec["rate"], spec["channels"]
    n = int(round(spec["duration_s"] * rate))
    rr = sub_rng(spec, "room")
    rt_range = spec["rt60_range"]
    rt60 = float(rr.uniform(*rt_range)) if rt_range else None
    room = rooms.draw_room(rr, spec["room"], rt60=rt60, speaker_mic_m=spec["speaker_mic_m"])
    truth = {"spec": spec, "room": room}

    near = np.zeros((n, ch))
    labels = np.zeros(n // int(round(rate * synth.FRAME_S)), dtype=bool)
    if spec["near"]:
        near, labels, transcript, utterances = near_end(spec, room, rate, n)
        near *= synth.amp(spec["near_dbfs"] - synth.active_level_dbfs(near[:, 0], rate))
        truth["near_transcript"] = transcript
        truth["near_utterances"] = utterances

    echo = np.zeros((n, ch))
    played = None
    if spec["far"]:
        played, texts = far_end(spec, rate, n)
        truth["far_texts"] = texts
        emitted, steps = loudspeaker(spec, np.pad(played, (0, extra)), rate, n + extra)
        continued, h, change = echo_path(spec, room, emitted, rate, n + extra)
        echo = continued[:n]
        target = spec["echo_dbfs"] if spec["ser_db"] is None else spec["near_dbfs"] - spec["ser_db"]
        continued *= synth.amp(target - synth.active_level_dbfs(echo[:, 0], rate))
        truth["volume_steps"] = steps
        truth["path_change"] = change
        truth["rt60_measured_s"] = rooms.measured_rt60(h[0], rate)
        truth["ir_length_s"] = round(len(h[0]) / rate, 3)
        truth["direct_path_ms"] = round(rooms.direct_path_ms(room, "speaker"), 3)
        delay_samples = int(round(spec["delay_ms"] * rate / 1000.0))
        truth["bulk_delay_ms"] = round(delay_samples * 1000.0 / rate, 4)
        truth["delay_ms"] = round(truth["bulk_delay_ms"] + truth["direct_path_ms"], 3)
        truth["delay_note"] = ("echo direct path lags the reference by delay_ms at t=0; with drift, "
                               "delay(t) = delay_ms - drift_ppm * 1e-3 * t_s ms")

    nominal_near = spec["near_dbfs"]
    noise_sig = np.zeros((n, ch))
    if spec["noise"] and spec["snr_db"] is not None:
        noise_sig = noise(spec, rate, n, nominal_near - spec["snr_db"])
    fr = sub_rng(spec, "floor")
    floor = np.stack([synth.band_unit(synth.floor_noise(n, rate, fr), rate) for _ in range(ch)],
                     axis=1) * synth.amp(spec["floor_dbfs"])
    noise_all = noise_sig + floor

    mic = near + echo + noise_all
    peak = float(np.max(np.abs(mic)))
    scale = 0.98 / peak if peak > 0.98 else 1.0
    near, echo, noise_all, mic = near * scale, echo * scale, noise_all * scale, mic * scale
    truth["headroom_scale_db"] = round(float(synth.db(scale ** 2)), 2)

    echo_active = np.zeros_like(labels)
    if spec["far"]:
        echo_active = synth.activity(echo[:, 0], rate, rel_db=40.0, floor_dbfs=-70.0, bridge_s=0.0)[:len(labels)]
    truth["near_speech"] = synth.intervals(labels)
    truth["echo_active"] = synth.intervals(echo_active)
    truth["levels_dbfs"] = {
        "near_active": round(synth.active_level_dbfs(near[:, 0], rate), 2) if spec["near"] else None,
        "echo_active": round(synth.active_level_dbfs(echo[:, 0], rate), 2) if spec["far"] else None,
        "noise_rms": round(float(synth.db(np.mean(synth.in_band(noise_sig[:, 0], rate) ** 2) * scale ** 2)), 2)
        if spec["noise"] else None,
        "floor_rms": round(float(synth.db(np.mean(synth.in_band(floor[:, 0], rate) ** 2) * scale ** 2)), 2),
        "mic_peak": round(float(synth.db(np.max(np.abs(mic)) ** 2)), 2),
    }
    signals = {"mic": mic, "near": near, "echo": echo, "noise": noise_all}
    # Without a far end the device still pushes its (silent) playback, as a loopback reference does.
    signals["reference"] = (played if played is not None else np.zeros(n))[:, None]
    if extra:
        signals["echo_continued"] = (continued if spec["far"] else np.zeros((n + extra, ch))) * scale
    return signals, labels, echo_active, truth


def echo_continuation(spec, extra):
    """The scene's echo (n + extra samples x channels, scaled as render() scales it) going on for `extra` samples
    after the scene's end, where render() cuts it off: the far end plays what the scene plays and stops at its end;
    the echo of what it played still arrives (the bulk delay, the room's tail). The first n samples are the
    scene's echo to float rounding."""
    return render(spec, extra)[0]["echo_continued"]
