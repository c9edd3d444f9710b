"""Deterministic signal sources for the scenario matrix: TTS (flite, espeak-ng), synthesized music and noises,
loudspeaker nonlinearities, clock drift and level helpers. Every random draw comes from a numpy Generator the
caller seeds; the same tools and package versions give the same samples."""
import os
import subprocess
import tempfile
from fractions import Fraction

import numpy as np
import soundfile as sf
from scipy import signal

FRAME_S = 0.01
# Every level the matrix sets or reports (dBFS, SNR, SER) is measured in the 0-8 kHz band that every mic rate
# shares: the band the metrics score (at 16 kHz) and the front end processes. A real mic's self-noise has one
# spectral density whatever the ADC's rate, so a 48 kHz capture of the same room carries the same noise under
# 8 kHz as a 16 kHz one, plus more above it; levelling over each rate's full band instead put 1.4-4.8 dB less
# noise in band at 44.1 / 48 kHz (white: 10 log10(24 / 8)) than in the same scene at 16 kHz.
BAND_RATE = 16000


def db(x):
    return 10.0 * np.log10(np.maximum(x, 1e-20))


def amp(dbfs):
    return 10.0 ** (dbfs / 20.0)


def in_band(x, rate):
    """x (1-D) as the shared band sees it: resampled to BAND_RATE (0-8 kHz); unchanged at 16 kHz and below."""
    return resample(x, rate, BAND_RATE) if rate > BAND_RATE else x


def band_rate(rate):
    return min(rate, BAND_RATE)


def band_unit(x, rate):
    """x (unit RMS over its full band, as the sources here return it) rescaled to unit RMS in the shared band.
    At 16 kHz the full band is the shared band: x itself (bit for bit)."""
    if rate <= BAND_RATE:
        return x
    return x / np.sqrt(np.mean(in_band(x, rate) ** 2))


def resample(x, rate_in, rate_out):
    if rate_in == rate_out:
        return np.asarray(x, dtype=np.float64)
    f = Fraction(rate_out, rate_in)
    return signal.resample_poly(np.asarray(x, dtype=np.float64), f.numerator, f.denominator, axis=0)


_TTS_CACHE = {}


def tts(engine, voice, text, rate):
    """Speech from flite (`-voice`) or espeak-ng (`-v`), resampled to `rate`, float64 mono, peak-normalized."""
    key = (engine, voice, text, rate)
    if key in _TTS_CACHE:
        return _TTS_CACHE[key]
    with tempfile.TemporaryDirectory() as tmp:
        wav = os.path.join(tmp, "u.wav")
        if engine == "flite":
            cmd = ["flite", "-voice", voice, "-t", text, "-o", wav]
        else:
            cmd = ["espeak-ng", "-v", voice, "-s", "160", "-w", wav, text]
        subprocess.run(cmd, check=True, capture_output=True)
        x, r = sf.read(wav, dtype="float64")
    if x.ndim > 1:
        x = x[:, 0]
    x = resample(x, r, rate)
    x = trim_silence(x, rate)
    x = x / max(np.max(np.abs(x)), 1e-9)
    _TTS_CACHE[key] = x
    return x


def trim_silence(x, rate):
    f = frame_rms(x, rate)
    active = np.nonzero(db(f ** 2) > db(np.max(f) ** 2) - 40)[0]
    if len(active) == 0:
        return x
    n = int(round(rate * FRAME_S))
    return x[active[0] * n:(active[-1] + 1) * n]


def frame_rms(x, rate):
    n = int(round(rate * FRAME_S))
    frames = len(x) // n
    y = np.asarray(x[:frames * n])
    if y.ndim > 1:
        y = y[:, 0]
    return np.sqrt(np.mean(y.reshape(frames, n) ** 2, axis=1))


def active_level_dbfs(x, rate):
    """Mean power (dBFS) over 10 ms frames within 30 dB of the loudest frame (a simple active speech level), in
    the shared 0-8 kHz band."""
    p = frame_rms(in_band(x, rate), band_rate(rate)) ** 2
    if len(p) == 0 or np.max(p) <= 0:
        return -200.0
    keep = p > np.max(p) * 1e-3
    return float(db(np.mean(p[keep])))


def activity(x, rate, rel_db=40.0, floor_dbfs=-60.0, bridge_s=0.2):
    """Per 10 ms frame: within rel_db of the loudest frame and above floor; gaps under bridge_s bridged."""
    p = db(frame_rms(x, rate) ** 2)
    a = (p > np.max(p) - rel_db) & (p > floor_dbfs)
    gap = int(round(bridge_s / FRAME_S))
    idx = np.nonzero(a)[0]
    for i, j in zip(idx[:-1], idx[1:]):
        if 1 < j - i <= gap:
            a[i:j] = True
    return a


def intervals(active):
    out, start = [], None
    for i, v in enumerate(list(active) + [False]):
        if v and start is None:
            start = i
        elif not v and start is not None:
            out.append([round(start * FRAME_S, 2), round(i * FRAME_S, 2)])
            start = None
    return out


# --- noises -----------------------------------------------------------------------------------------------------

def shaped_noise(n, rate, rng, slope_db_per_octave):
    """Gaussian noise with a power slope per octave (-3: pink, -6: brown), unit RMS."""
    spec = rng.standard_normal(n // 2 + 1) + 1j * rng.standard_normal(n // 2 + 1)
    f = np.fft.rfftfreq(n, 1.0 / rate)
    f[0] = f[1]
    spec *= (f / 1000.0) ** (slope_db_per_octave / 6.0206)
    x = np.fft.irfft(spec, n)
    return x / np.sqrt(np.mean(x ** 2))


def pink(n, rate, rng):
    return shaped_noise(n, rate, rng, -3.0)


def fan(n, rate, rng):
    """Fan / HVAC: brown rumble + pink hiss + a blade-pass tone and mains hum with slow wobble."""
    t = np.arange(n) / rate
    x = shaped_noise(n, rate, rng, -6.0) + 0.3 * pink(n, rate, rng)
    f0 = rng.uniform(35, 90)
    wobble = 1 + 0.2 * np.sin(2 * np.pi * rng.uniform(0.1, 0.4) * t)
    for k in range(1, 6):
        x += 0.4 / k * wobble * np.sin(2 * np.pi * f0 * k * t + rng.uniform(0, 2 * np.pi))
    x += 0.15 * np.sin(2 * np.pi * 50 * t) + 0.08 * np.sin(2 * np.pi * 100 * t)
    return x / np.sqrt(np.mean(x ** 2))


def street(n, rate, rng):
    """Street: low-passed traffic rumble, cars passing (swept band noise), now and then a horn."""
    t = np.arange(n) / rate
    sos = signal.butter(2, 800, "low", fs=rate, output="sos")
    x = signal.sosfilt(sos, pink(n, rate, rng)) * (1 + 0.3 * np.sin(2 * np.pi * 0.07 * t))
    x /= np.sqrt(np.mean(x ** 2))
    pos = rng.uniform(0, 4)
    while pos < n / rate:
        width = rng.uniform(1.5, 3.0)
        env = np.exp(-0.5 * ((t - pos) / (width / 2.5)) ** 2)
        lo = rng.uniform(150, 400)
        band = signal.sosfilt(signal.butter(2, [lo, min(lo * 6, rate / 2.2)], "band", fs=rate, output="sos"),
                              rng.standard_normal(n))
        x += 2.0 * env * band / np.sqrt(np.mean(band ** 2))
        if rng.uniform() < 0.3:
            start = int((pos + rng.uniform(-1, 1)) * rate)
            m = int(0.35 * rate)
            if 0 <= start < n - m:
                tt = np.arange(m) / rate
                horn = np.sin(2 * np.pi * 420 * tt) + np.sin(2 * np.pi * 525 * tt)
                x[start:start + m] += 1.5 * horn * np.minimum(1, np.minimum(tt, tt[::-1]) / 0.02)
        pos += rng.uniform(5, 11)
    return x / np.sqrt(np.mean(x ** 2))


def kitchen(n, rate, rng):
    """Kitchen: intermittent running water plus clatter (dishes, cutlery: decaying resonant modes)."""
    t = np.arange(n) / rate
    water = signal.sosfilt(signal.butter(2, [1500, min(6000, rate / 2.2)], "band", fs=rate, output="sos"),
                           rng.standard_normal(n))
    gate = (np.sin(2 * np.pi * rng.uniform(0.03, 0.06) * t + rng.uniform(0, 6)) > 0.2).astype(float)
    gate = signal.sosfilt(signal.butter(1, 3, "low", fs=rate, output="sos"), gate)
    x = 0.5 * water / np.sqrt(np.mean(water ** 2)) * gate + 0.1 * pink(n, rate, rng)
    pos = rng.uniform(0, 0.5)
    while pos < n / rate - 0.5:
        start, m = int(pos * rate), int(0.4 * rate)
        tt = np.arange(m) / rate
        hit = np.zeros(m)
        for _ in range(rng.integers(3, 7)):
            f = rng.uniform(1200, min(9000, rate / 2.3))
            hit += rng.uniform(0.3, 1) * np.sin(2 * np.pi * f * tt) * np.exp(-tt / rng.uniform(0.02, 0.15))
        x[start:start + m] += rng.uniform(1, 4) * hit
        pos += rng.exponential(0.7) + 0.15
    return x / np.sqrt(np.mean(x ** 2))


def babble(n, rate, rng, talkers):
    """Babble: the (engine, voice, text) talkers, each looped from a random offset, summed."""
    x = np.zeros(n)
    for engine, voice, text in talkers:
        u = tts(engine, voice, text, rate)
        u = u / np.sqrt(np.mean(u ** 2))
        reps = np.tile(np.concatenate([u, np.zeros(int(0.3 * rate))]), n // len(u) + 2)
        off = int(rng.integers(0, len(u)))
        x += reps[off:off + n]
    return x / np.sqrt(np.mean(x ** 2))


def floor_noise(n, rate, rng):
    """The mic's own floor: white self-noise plus a little pink room tone, unit RMS in the shared band. Each part
    is levelled in that band first: white spreads its power over the full band and pink does not, so levelled
    over 0-24 kHz the floor would be pink-dominated under 8 kHz at 48 kHz and white-dominated at 16 kHz."""
    x = band_unit(rng.standard_normal(n), rate) + 0.7 * band_unit(pink(n, rate, rng), rate)
    return x / np.sqrt(np.mean(in_band(x, rate) ** 2))


NOISES = {"pink": pink, "fan": fan, "street": street, "kitchen": kitchen}


# --- music ------------------------------------------------------------------------------------------------------

def music(n, rate, rng):
    """A loop with drums (kick, snare, hi-hat), a bass line and sustained pad chords and a held lead tone."""
    t = np.arange(n) / rate
    bpm = rng.uniform(90, 124)
    beat = 60.0 / bpm
    x = np.zeros(n)

    def add(sig, at):
        i = int(at * rate)
        if i >= n:
            return
        m = min(len(sig), n - i)
        x[i:i + m] += sig[:m]

    kick_t = np.arange(int(0.25 * rate)) / rate
    kick = np.sin(2 * np.pi * (50 * kick_t + 60 * (1 - np.exp(-kick_t / 0.03)) * 0.03)) * np.exp(-kick_t / 0.08)
    snare_n = int(0.18 * rate)
    hat_n = int(0.05 * rate)
    hp = signal.butter(2, min(7000, rate / 2.5), "high", fs=rate, output="sos")
    b = 0
    while b * beat < n / rate:
        at = b * beat
        if b % 2 == 0:
            add(0.9 * kick, at)
        else:
            s = rng.standard_normal(snare_n) * np.exp(-np.arange(snare_n) / rate / 0.05)
            add(0.5 * s + 0.3 * np.sin(2 * np.pi * 190 * np.arange(snare_n) / rate) * np.exp(-np.arange(snare_n) / rate / 0.03), at)
        for half in (0, 0.5):
            h = signal.sosfilt(hp, rng.standard_normal(hat_n)) * np.exp(-np.arange(hat_n) / rate / 0.012)
            add(0.25 * h, at + half * beat)
        b += 1
    roots = [rng.choice([45, 48, 50, 52, 53, 55, 57]) for _ in range(4)]
    bar = 4 * beat
    for k in range(int(n / rate / bar) + 1):
        root = roots[k % 4]
        start, m = k * bar, int(bar * rate)
        tt = np.arange(m) / rate
        env = np.minimum(1, tt / 0.4) * np.minimum(1, (bar - tt) / 0.3).clip(0)
        pad = np.zeros(m)
        for interval in (12, 16, 19, 24):
            f = 440 * 2 ** ((root + interval - 69) / 12)
            for h in (1, 2, 3):
                pad += 0.12 / h * (np.sin(2 * np.pi * f * h * 1.002 * tt) + np.sin(2 * np.pi * f * h * 0.998 * tt))
        add(env * pad, start)
        fb = 440 * 2 ** ((root - 69) / 12)
        for q in range(4):
            bt = np.arange(int(beat * 0.9 * rate)) / rate
            saw = 2 * ((fb * bt) % 1) - 1
            add(0.35 * saw * np.exp(-bt / 0.25), start + q * beat)
        if k % 2 == 1:
            fl = 440 * 2 ** ((root + 24 + rng.choice([0, 4, 7]) - 69) / 12)
            lead = np.sin(2 * np.pi * fl * tt + 0.3 * np.sin(2 * np.pi * 5.5 * tt)) * env
            add(0.3 * lead, start)
    x = signal.sosfilt(signal.butter(1, 30, "high", fs=rate, output="sos"), x)
    return x / np.sqrt(np.mean(x ** 2))


# --- loudspeaker and clocks -------------------------------------------------------------------------------------

def soft_clip(x, drive):
    peak = np.max(np.abs(x)) + 1e-12
    return np.tanh(drive * x / peak) / np.tanh(drive) * peak


def small_speaker(x, rate):
    """A small loudspeaker: no bass below ~250 Hz, a resonance near 900 Hz, asymmetric distortion, clipping."""
    peak = np.max(np.abs(x)) + 1e-12
    y = signal.sosfilt(signal.butter(2, 250, "high", fs=rate, output="sos"), x / peak)
    b, a = signal.iirpeak(900, 2.0, fs=rate)
    y = y + 0.5 * signal.lfilter(b, a, y)
    y = y / (np.max(np.abs(y)) + 1e-12)
    y = y + 0.25 * y ** 2 - 0.15 * y ** 3
    return np.tanh(1.8 * y) / np.tanh(1.8) * peak


def volume_steps(n, rate, steps):
    """A gain curve with (time_s, gain_db) steps, each ramped over 50 ms (hardware volume after the reference)."""
    g = np.zeros(n)
    ramp = int(0.05 * rate)
    for at, gain_db in steps:
        i = int(at * rate)
        g[i:] = gain_db
    g = np.convolve(np.pad(g, (ramp, 0), mode="edge"), np.ones(ramp) / ramp, mode="valid")[:n]
    return amp(g)


def drifted(x, ppm, n_out, taps=16):
    """x read by a clock `ppm` faster: y[n] = x(n * (1 + ppm 1e-6)), windowed-sinc interpolation."""
    if ppm == 0:
        return np.pad(x, (0, max(0, n_out - len(x))))[:n_out]
    pos = np.arange(n_out) * (1 + ppm * 1e-6)
    y = np.zeros(n_out)
    half = taps // 2
    xp = np.pad(x, (half, half + int(n_out * abs(ppm) * 1e-6) + taps + n_out))
    win = np.kaiser(taps, 8.0)
    for s in range(0, n_out, 65536):
        p = pos[s:s + 65536]
        i0 = np.floor(p).astype(np.int64)
        frac = p - i0
        k = np.arange(-half + 1, half + 1)
        idx = i0[:, None] + k[None, :] + half
        w = np.sinc(k[None, :] - frac[:, None]) * win[None, :]
        y[s:s + 65536] = np.sum(xp[idx] * w, axis=1)
    return y


def quantize(x):
    """float (-1..1) → int16, round half to even (numpy's rounding), clipped."""
    return np.clip(np.round(x * 32767.0), -32768, 32767).astype(np.int16)
