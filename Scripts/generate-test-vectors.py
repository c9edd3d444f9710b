#!/usr/bin/env python3
"""Generates TestVectors/ (16-bit mono WAV files) and TestVectors/manifest.json with their ground truth.

Usage: python3 Scripts/generate-test-vectors.py [output-dir]   (default: TestVectors/ next to Scripts/)

Needs python3 with numpy, flite (voices rms, slt, awb, kal16), espeak-ng and sox. Deterministic: every random
signal comes from a fixed seed, and TTS and sox resampling are deterministic. The tests never run this script;
they only check the committed files against the SHA-256 in the manifest.

Steps:
  1. TTS: near-end talker = flite voice rms (requests to a smart speaker); far end (the device's playback) =
     flite voice slt (answers); babble = flite awb/kal16 + espeak-ng. Every utterance goes through sox
     (`rate -v`) to 32-bit float at 16 kHz and at 48 kHz, is trimmed of leading/trailing silence and scaled to a
     fixed active speech level (RMS over its 10 ms frames above the activity threshold).
  2. Timelines: the utterances are placed at fixed times (multiples of 10 ms, identical at both rates). The
     48 kHz speech files are the first DURATION_48K seconds of the same timelines.
  3. Room: a synthetic impulse response per rate (direct path at tap 0 with gain 1, a few early reflections,
     then exponentially decaying Gaussian noise with the given RT60; fixed seed), convolved with the far end,
     delayed by a bulk delay, scaled by ECHO_GAIN_DB, plus pink background noise at NOISE_DBFS.
  4. Mixes: double talk (near end + echo at delay 120 ms scaled to an exact SER over the double-talk spans +
     noise) and noisy near end (near end + pink/babble noise scaled to an exact SNR over the speech spans). The
     SER and SNR are measured on the written int16 samples (mic - clean near end) and the gain is iterated
     until they are within 0.005 dB of the target.
  5. Tones and log sweeps for the resamplers.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import wave

import numpy as np

FRAME_S = 0.01
DURATION_16K = 21.0           # seconds, every 16 kHz speech/echo file
DURATION_48K = 12.0           # seconds, the 48 kHz speech/echo files (prefix of the 16 kHz timelines)
NEAR_LEVEL_DBFS = -26.0       # active speech level of the near-end talker
FAR_LEVEL_DBFS = -20.0        # active speech level of the far end as played (the AEC reference)
ECHO_GAIN_DB = -3.0           # echo path gain applied after the impulse response (direct path tap = 1)
RT60_S = 0.25
IR_LENGTH_S = 0.35
DIRECT_TO_REVERBERANT_DB = 6.0   # direct energy / (early reflections + diffuse tail) energy
EARLY_REFLECTIONS = [(1.9, 0.45), (3.7, -0.35), (6.1, 0.3), (9.4, -0.22), (13.2, 0.18)]  # (ms, relative gain)
EARLY_FRACTION = 0.3          # share of the reverberant energy in the early reflections; the rest is the tail
TAIL_START_S = 0.004          # the diffuse tail starts 4 ms after the direct path
NOISE_DBFS = -60.0            # RMS of the pink background noise in echo and double-talk mics
DOUBLETALK_DELAY_MS = 120
ACTIVITY_REL_DB = -40.0       # a 10 ms frame is active when its RMS is within 40 dB of the utterance's loudest frame
ACTIVITY_FLOOR_DBFS = -60.0   # ... and above this absolute floor
MERGE_GAP_S = 0.2             # label gaps shorter than this are bridged
ECHO_ACTIVITY_REL_DB = -35.0  # echo is "active" where its frame RMS is within 35 dB of its active level
BABBLE_REL_DB = -6.0          # babble power relative to pink noise power in the noisy-speech noise

NEAR_UTTERANCES = [  # (start_s, text) flite rms
    (3.00, "Set a timer for ten minutes."),
    (6.20, "Turn off the kitchen lights, please."),
    (12.30, "Play some relaxing jazz in the living room."),
    (17.20, "What time does the pharmacy close today?"),
]
FAR_UTTERANCES = [  # (start_s, text) flite slt
    (0.30, "Tomorrow morning will be cloudy, with a high of fourteen degrees and a light breeze from the west."),
    (8.90, "Here is a playlist of relaxing jazz, starting with Blue in Green by Miles Davis."),
    (15.80, "Sure. I have added milk and eggs to your shopping list. Is there anything else?"),
]
BABBLE_TALKERS = [  # (engine, voice, text); looped over the file with a seeded offset
    ("flite", "awb", "I think we should leave a bit earlier on Saturday, the traffic was terrible last week "
                     "and the kids were getting restless in the back."),
    ("flite", "kal16", "The meeting has been moved to Thursday afternoon, so please update the calendar and "
                       "let everybody on the team know about it."),
    ("espeak-ng", "en-us", "Did you see the match last night? They scored twice in the last ten minutes and "
                           "the whole stadium went completely quiet."),
    ("espeak-ng", "en-gb+f3", "Could you pass me the salt? And remind me later that we need to buy more coffee "
                              "before the weekend."),
]
ECHO_DELAYS_16K = [0, 40, 120, 250, 400]
ECHO_DELAYS_48K = [0, 40, 120]
SERS_DB = [-5, 0, 5]
SNRS_DB = [0, 5, 10, 20]
TONE_FREQUENCIES = [100, 440, 1000, 3000, 6000, 9000, 12000, 15000, 18000, 21000]
TONE_AMPLITUDE = 0.5
SWEEP_AMPLITUDE = 0.5
SWEEPS = {"sweep_48k.wav": (48000, 20.0, 20000.0), "sweep_16k.wav": (16000, 20.0, 7900.0)}
SWEEP_DURATION_S = 10.0
FADE_S = 0.01

SEEDS = {"ir16": 1601, "ir48": 4801, "noise": 7, "pink": 11, "babble": 13}


def db(x):
    return 10 * np.log10(max(x, 1e-30))


def amp(dbfs):
    return 10 ** (dbfs / 20)


def run(cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def tts(engine, voice, text, rate, tmp, tag):
    """Speech from a TTS engine as float32 at `rate`, resampled by sox."""
    wav = os.path.join(tmp, f"{tag}.wav")
    if engine == "flite":
        run(["flite", "-voice", voice, "-t", text, "-o", wav])
    else:
        run(["espeak-ng", "-v", voice, "-w", wav, text])
    raw = os.path.join(tmp, f"{tag}_{rate}.f32")
    run(["sox", wav, "-t", "raw", "-e", "floating-point", "-b", "32", "-c", "1", raw, "rate", "-v", str(rate)])
    return np.fromfile(raw, dtype="<f4").astype(np.float64)


def frame_rms(x, rate):
    n = int(round(FRAME_S * rate))
    frames = len(x) // n
    return np.sqrt(np.mean(x[: frames * n].reshape(frames, n) ** 2, axis=1) + 1e-30)


def activity(x, rate, rel_db, floor_dbfs):
    """Per-10-ms-frame activity: frame RMS within rel_db of the loudest frame and above the floor."""
    r = frame_rms(x, rate)
    threshold = max(r.max() * amp(rel_db), amp(floor_dbfs))
    return r > threshold


def bridge(active, max_gap_frames):
    """Fills inactive runs shorter than max_gap_frames that lie between active frames."""
    a = active.copy()
    idx = np.flatnonzero(a)
    for i, j in zip(idx[:-1], idx[1:]):
        if 1 < j - i <= max_gap_frames:
            a[i:j] = True
    return a


def intervals(active, min_frames=1):
    """[[start_s, end_s], ...] of the runs of True frames at least min_frames long."""
    out, start = [], None
    for i, v in enumerate(list(active) + [False]):
        if v and start is None:
            start = i
        elif not v and start is not None:
            if i - start >= min_frames:
                out.append([round(start * FRAME_S, 2), round(i * FRAME_S, 2)])
            start = None
    return out


def prepare_utterance(x16, x48, level_dbfs):
    """Trims silence (frame resolution) and scales to the active level; returns (x16, x48)."""
    act = activity(x16, 16000, ACTIVITY_REL_DB, ACTIVITY_FLOOR_DBFS)
    first, last = np.flatnonzero(act)[[0, -1]]
    first, last = max(first - 2, 0), min(last + 3, len(act))  # keep 20-30 ms around the active frames
    x16 = x16[first * 160: last * 160]
    x48 = x48[first * 480: last * 480]
    active_rms = frame_rms(x16, 16000)[activity(x16, 16000, ACTIVITY_REL_DB, ACTIVITY_FLOOR_DBFS)]
    gain = amp(level_dbfs) / np.sqrt(np.mean(active_rms ** 2))
    return x16 * gain, x48 * gain


def place(utterances, rate, duration):
    out = np.zeros(int(round(duration * rate)))
    for start, x in utterances:
        s = int(round(start * rate))
        if s < len(out):  # the 48 kHz files are a prefix: what runs past the end is cut
            out[s: s + len(x)] += x[: len(out) - s]
    return out


def impulse_response(rate, seed):
    """Direct path (tap 0, gain 1), five early reflections, then a diffuse tail: Gaussian noise from 4 ms whose
    amplitude decays 60 dB in RT60_S. The reverberant energy (reflections + tail) is set by
    DIRECT_TO_REVERBERANT_DB, of which EARLY_FRACTION goes to the reflections and the rest to the tail."""
    rng = np.random.default_rng(seed)
    n = int(IR_LENGTH_S * rate)
    t = np.arange(n) / rate
    reflections = np.zeros(n)
    for delay_ms, gain in EARLY_REFLECTIONS:
        reflections[int(round(delay_ms * rate / 1000))] += gain * (0.8 + 0.4 * rng.random())
    tail = rng.standard_normal(n) * np.exp(-3 * np.log(10) * t / RT60_S)  # amplitude -60 dB at RT60
    tail[:int(round(TAIL_START_S * rate))] = 0
    reverberant = 10 ** (-DIRECT_TO_REVERBERANT_DB / 10)  # direct energy is 1
    h = reflections * np.sqrt(EARLY_FRACTION / np.sum(reflections ** 2))
    h += tail * np.sqrt((1 - EARLY_FRACTION) / np.sum(tail ** 2))
    h *= np.sqrt(reverberant / np.sum(h ** 2))  # exact DRR (reflections and tail overlap from 4 ms)
    h[0] = 1.0  # direct path
    return h


def decay_time(h, rate):
    """RT60 measured back from the impulse response: Schroeder backward integral, line fit from -5 to -35 dB."""
    edc = np.cumsum(h[::-1] ** 2)[::-1]
    edc_db = 10 * np.log10(edc / edc[0])
    sel = (edc_db <= -5) & (edc_db >= -35)
    slope = np.polyfit(np.flatnonzero(sel) / rate, edc_db[sel], 1)[0]
    return -60 / slope


def convolve(x, h):
    n = len(x) + len(h) - 1
    size = 1 << (n - 1).bit_length()
    return np.fft.irfft(np.fft.rfft(x, size) * np.fft.rfft(h, size), size)[:n]


def pink(n, rate, seed):
    """Pink (1/f power) noise, unit RMS, flat below 20 Hz, seeded."""
    rng = np.random.default_rng(seed)
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.fft.rfftfreq(n, 1 / rate)
    spec /= np.sqrt(np.maximum(f, 20.0))
    spec[0] = 0
    y = np.fft.irfft(spec, n)
    return y / np.sqrt(np.mean(y ** 2))


def quantize(x):
    return np.clip(np.round(x * 32768), -32768, 32767).astype(np.int16)


def fade(x, rate):
    n = int(FADE_S * rate)
    ramp = 0.5 - 0.5 * np.cos(np.pi * np.arange(n) / n)
    x[:n] *= ramp
    x[-n:] *= ramp[::-1]
    return x


def ranges(spans, rate):
    return [(int(round(a * rate)), int(round(b * rate))) for a, b in spans]


def span_power(x, spans, rate):
    idx = np.concatenate([np.arange(a, b) for a, b in ranges(spans, rate)])
    return np.mean(x[idx].astype(np.float64) ** 2)


def mix_exact(clean, interference, spans, rate, target_db, extra=None):
    """int16 clean + g * interference (+ extra) with 10*log10(P(clean)/P(mic - clean)) over spans = target."""
    clean_q = quantize(clean)
    g = 1.0
    for _ in range(8):
        mic = quantize(clean + g * interference + (extra if extra is not None else 0))
        measured = db(span_power(clean_q, spans, rate) / span_power(mic.astype(np.int32) - clean_q, spans, rate))
        if abs(measured - target_db) < 0.005:
            break
        g *= amp(measured - target_db)
    return mic, g, measured


class Writer:
    def __init__(self, directory):
        self.directory = directory
        self.entries = []

    def write(self, name, samples_i16, rate, role, **truth):
        path = os.path.join(self.directory, name)
        with wave.open(path, "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(rate)
            w.writeframes(samples_i16.astype("<i2").tobytes())
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        peak = int(np.max(np.abs(samples_i16.astype(np.int32))))
        if peak >= 32767:
            raise SystemExit(f"{name} clips")
        entry = {"file": name, "sample_rate": rate, "channels": 1, "format": "WAV PCM 16-bit", "sha256": digest,
                 "duration_s": round(len(samples_i16) / rate, 6), "role": role,
                 "peak_dbfs": round(20 * np.log10(max(peak, 1) / 32768), 2)}
        entry.update(truth)
        self.entries.append(entry)
        print(f"{name:32s} {len(samples_i16) / rate:6.2f}s peak {entry['peak_dbfs']:6.2f} dBFS", file=sys.stderr)


def tool_versions():
    flite = subprocess.run(["flite", "--version"], capture_output=True, text=True).stdout  # exits 1
    flite = flite.strip().splitlines()[-1].strip()
    espeak = run(["espeak-ng", "--version"]).split("Data at")[0].strip()
    sox = run(["sox", "--version"]).strip()
    return {"python": sys.version.split()[0], "numpy": np.__version__, "flite": flite, "espeak-ng": espeak,
            "sox": sox}


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "TestVectors")
    os.makedirs(out_dir, exist_ok=True)
    writer = Writer(out_dir)
    tmp = tempfile.mkdtemp(prefix="afe-vectors-")

    # 1-2. Speech timelines.
    near, far = {16000: [], 48000: []}, {16000: [], 48000: []}
    for talker, utterances, voice, level in [(near, NEAR_UTTERANCES, "rms", NEAR_LEVEL_DBFS),
                                             (far, FAR_UTTERANCES, "slt", FAR_LEVEL_DBFS)]:
        for i, (start, text) in enumerate(utterances):
            x16 = tts("flite", voice, text, 16000, tmp, f"{voice}{i}")
            x48 = tts("flite", voice, text, 48000, tmp, f"{voice}{i}")
            x16, x48 = prepare_utterance(x16, x48, level)
            talker[16000].append((start, x16))
            talker[48000].append((start, x48))
    near16, far16 = place(near[16000], 16000, DURATION_16K), place(far[16000], 16000, DURATION_16K)
    near48, far48 = place(near[48000], 48000, DURATION_48K), place(far[48000], 48000, DURATION_48K)

    # Near-end speech labels: energy threshold per placed utterance, short gaps bridged.
    n_frames = int(DURATION_16K / FRAME_S)
    speech_active = np.zeros(n_frames, bool)
    for start, x in near[16000]:
        a = bridge(activity(x, 16000, ACTIVITY_REL_DB, ACTIVITY_FLOOR_DBFS), int(MERGE_GAP_S / FRAME_S))
        s = int(round(start / FRAME_S))
        speech_active[s: s + len(a)] |= a
    speech = intervals(speech_active)
    speech48 = [[a, b] for a, b in speech if a < DURATION_48K]
    if speech48[-1][1] > DURATION_48K - 0.2:
        raise SystemExit("the 48 kHz near end would be cut inside speech")
    far_active = np.zeros(n_frames, bool)
    for start, x in far[16000]:
        a = bridge(activity(x, 16000, ACTIVITY_REL_DB, ACTIVITY_FLOOR_DBFS), int(MERGE_GAP_S / FRAME_S))
        s = int(round(start / FRAME_S))
        far_active[s: s + len(a)] |= a
    farend_speech = intervals(far_active)

    speech_common = {"talker": "flite rms", "active_level_dbfs": NEAR_LEVEL_DBFS,
                     "utterances": [{"start_s": s, "text": t} for s, t in NEAR_UTTERANCES]}
    far_common = {"talker": "flite slt", "active_level_dbfs": FAR_LEVEL_DBFS,
                  "utterances": [{"start_s": s, "text": t} for s, t in FAR_UTTERANCES]}
    writer.write("farend_16k.wav", quantize(far16), 16000, "reference", speech=farend_speech, **far_common)
    writer.write("farend_48k.wav", quantize(far48), 48000, "reference",
                 speech=[[a, min(b, DURATION_48K)] for a, b in farend_speech if a < DURATION_48K], **far_common)
    writer.write("nearend_16k.wav", quantize(near16), 16000, "clean", speech=speech, **speech_common)
    writer.write("nearend_48k.wav", quantize(near48), 48000, "clean", speech=speech48, **speech_common)

    # 3. Room and echo.
    irs = {16000: impulse_response(16000, SEEDS["ir16"]), 48000: impulse_response(48000, SEEDS["ir48"])}
    rt60_measured = {rate: round(decay_time(h, rate), 3) for rate, h in irs.items()}
    room = {"rt60_s": RT60_S,
            "ir_length_s": IR_LENGTH_S, "direct_path_ms": 0.0, "early_reflection_energy_fraction": EARLY_FRACTION,
            "tail_start_ms": TAIL_START_S * 1000,
            "direct_to_reverberant_db": DIRECT_TO_REVERBERANT_DB, "echo_gain_db": ECHO_GAIN_DB,
            "noise_dbfs": NOISE_DBFS, "noise": "pink"}

    def echo_of(reference, rate, delay_ms):
        y = convolve(reference, irs[rate]) * amp(ECHO_GAIN_DB)
        d = int(round(delay_ms * rate / 1000))
        return np.concatenate([np.zeros(d), y])[: len(reference)]

    def background(n, rate, seed):
        return pink(n, rate, seed) * amp(NOISE_DBFS)

    for rate, delays, reference, name_rate in [(16000, ECHO_DELAYS_16K, far16, "16k"),
                                               (48000, ECHO_DELAYS_48K, far48, "48k")]:
        for k, delay in enumerate(delays):
            echo = echo_of(reference, rate, delay)
            echo_act = activity(echo, rate, -40.0, -70.0)
            echo_start = round(float(np.flatnonzero(echo_act)[0]) * FRAME_S, 2)
            mic = quantize(echo + background(len(echo), rate, SEEDS["noise"] + 100 * k + rate))
            active_echo = frame_rms(echo, rate)[echo_act]
            echo_level = db(np.mean(active_echo ** 2))
            ref_level = db(np.mean(frame_rms(reference, rate)[activity(reference, rate, -40.0, -70.0)] ** 2))
            writer.write(f"echo_d{delay}ms_{name_rate}.wav", mic, rate, "mic", reference=f"farend_{name_rate}.wav",
                         delay_ms=delay, echo_start_s=echo_start, echo_active_level_dbfs=round(echo_level, 2),
                         erl_db=round(ref_level - echo_level, 2), rt60_measured_s=rt60_measured[rate], **room)

    # 4a. Double talk at delay 120 ms, 16 kHz.
    echo = echo_of(far16, 16000, DOUBLETALK_DELAY_MS)
    echo_rms = frame_rms(echo, 16000)
    echo_level = np.sqrt(np.mean(echo_rms[echo_rms > np.max(echo_rms) * amp(-40)] ** 2))
    echo_active = bridge(echo_rms > echo_level * amp(ECHO_ACTIVITY_REL_DB), int(MERGE_GAP_S / FRAME_S))
    echo_active = np.pad(echo_active, (0, n_frames - len(echo_active)))
    doubletalk = intervals(speech_active & echo_active, 5)
    farend_only = intervals(echo_active & ~speech_active, 5)
    nearend_only = intervals(speech_active & ~echo_active, 5)
    for k, ser in enumerate(SERS_DB):
        noise = background(len(echo), 16000, SEEDS["noise"] + 1000 + k)
        mic, g, measured = mix_exact(near16, echo, doubletalk, 16000, ser, extra=noise)
        writer.write(f"doubletalk_ser{ser}db_16k.wav", mic, 16000, "mic", reference="farend_16k.wav",
                     clean_nearend="nearend_16k.wav", delay_ms=DOUBLETALK_DELAY_MS, ser_db=float(ser),
                     ser_db_measured=round(measured, 4), speech=speech, doubletalk=doubletalk,
                     farend_only=farend_only, nearend_only=nearend_only, rt60_measured_s=rt60_measured[16000],
                     **dict(room, echo_gain_db=round(ECHO_GAIN_DB + 20 * np.log10(g), 3)))

    # 4b. Near end in noise: pink + babble.
    n = len(near16)
    babble = np.zeros(n)
    rng = np.random.default_rng(SEEDS["babble"])
    for i, (engine, voice, text) in enumerate(BABBLE_TALKERS):
        x = tts(engine, voice, text, 16000, tmp, f"babble{i}")
        x = x / np.sqrt(np.mean(x ** 2))
        loop = np.tile(x, int(np.ceil(2 * n / len(x))))
        offset = int(rng.integers(0, len(x)))
        babble += loop[offset: offset + n]
    babble /= np.sqrt(np.mean(babble ** 2))
    noise = pink(n, 16000, SEEDS["pink"]) + babble * amp(BABBLE_REL_DB)
    noise /= np.sqrt(np.mean(noise ** 2))
    for snr in SNRS_DB:
        mic, g, measured = mix_exact(near16, noise, speech, 16000, snr)
        writer.write(f"noisy_snr{snr}db_16k.wav", mic, 16000, "mic", clean_nearend="nearend_16k.wav",
                     snr_db=float(snr), snr_db_measured=round(measured, 4), speech=speech,
                     noise=f"pink + 4-talker TTS babble at {BABBLE_REL_DB:g} dB re pink",
                     noise_dbfs=round(20 * np.log10(g), 2))

    # 5. Tones and sweeps.
    rate, seg, gap = 48000, 1.0, 0.2
    tones, segments, t = [np.zeros(int(gap * rate))], [], gap
    for f in TONE_FREQUENCIES:
        x = TONE_AMPLITUDE * np.sin(2 * np.pi * f * np.arange(int(seg * rate)) / rate)
        tones += [fade(x, rate), np.zeros(int(gap * rate))]
        segments.append([round(t, 3), round(t + seg, 3), f])
        t += seg + gap
    writer.write("tones_48k.wav", quantize(np.concatenate(tones)), rate, "tones",
                 frequencies_hz=TONE_FREQUENCIES, segments=segments,
                 level_dbfs=round(20 * np.log10(TONE_AMPLITUDE), 2), fade_ms=FADE_S * 1000)
    for name, (rate, f0, f1) in SWEEPS.items():
        tt = np.arange(int(SWEEP_DURATION_S * rate)) / rate
        k = np.log(f1 / f0)
        phase = 2 * np.pi * f0 * SWEEP_DURATION_S / k * (np.exp(tt * k / SWEEP_DURATION_S) - 1)
        x = fade(SWEEP_AMPLITUDE * np.sin(phase), rate)
        writer.write(name, quantize(x), rate, "sweep", start_hz=f0, end_hz=f1, sweep_duration_s=SWEEP_DURATION_S,
                     law="exponential: f(t) = start_hz * (end_hz/start_hz)^(t/sweep_duration_s)",
                     level_dbfs=round(20 * np.log10(SWEEP_AMPLITUDE), 2), fade_ms=FADE_S * 1000)

    manifest = {"generator": "python3 Scripts/generate-test-vectors.py", "generated_with": tool_versions(),
                "vectors": writer.entries}
    with open(os.path.join(out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
