"""Rooms by image-source simulation (pyroomacoustics ShoeBox): archetypes, seeded geometry, impulse responses."""
import numpy as np
import pyroomacoustics as pra

SOUND_SPEED = 343.0

# name: (dimension ranges [m], RT60 range [s], loudspeaker-mic distance range [m], talker-mic distance range [m])
ARCHETYPES = {
    "car": (([2.4, 2.8], [1.4, 1.6], [1.1, 1.25]), (0.15, 0.2), (0.5, 1.0), (0.4, 0.8)),
    "bedroom": (([3.0, 4.0], [2.6, 3.4], [2.4, 2.6]), (0.3, 0.45), (0.03, 0.3), (0.8, 2.5)),
    "living": (([4.8, 6.5], [3.8, 5.0], [2.5, 2.8]), (0.4, 0.6), (1.5, 2.0), (1.0, 3.0)),
    "kitchen": (([3.2, 4.5], [2.8, 3.8], [2.4, 2.7]), (0.5, 0.9), (0.03, 0.5), (0.8, 2.5)),
    "meeting": (([5.0, 8.0], [3.5, 5.0], [2.6, 3.0]), (0.45, 0.8), (0.05, 1.2), (1.0, 3.0)),
}
MIC_SPACING_M = 0.06


def draw_room(rng, archetype, rt60=None, speaker_mic_m=None):
    """Seeded geometry: dimensions, RT60, device (mic) position, loudspeaker and talker positions."""
    dims_r, rt_r, spk_r, talk_r = ARCHETYPES[archetype]
    dims = [float(rng.uniform(*r)) for r in dims_r]
    rt = float(rt60 if rt60 is not None else rng.uniform(*rt_r))
    d_spk = float(speaker_mic_m if speaker_mic_m is not None else rng.uniform(*spk_r))
    d_talk = float(rng.uniform(*talk_r))
    mic = [float(rng.uniform(0.3, dims[0] - 0.3)), float(rng.uniform(0.3, dims[1] - 0.3)),
           float(min(rng.uniform(0.7, 1.2), dims[2] - 0.2))]
    speaker = place_at(rng, dims, mic, d_spk)
    talker = place_at(rng, dims, mic, d_talk)
    return {"archetype": archetype, "dims_m": rounded(dims), "rt60_s": round(rt, 3), "mic_m": rounded(mic),
            "speaker_m": rounded(speaker), "talker_m": rounded(talker)}


def place_at(rng, dims, origin, distance):
    """A point at `distance` from origin inside the room (0.1 m from walls); shortens the distance if needed."""
    for _ in range(200):
        v = rng.standard_normal(3)
        v[2] *= 0.3
        v /= np.linalg.norm(v)
        p = np.array(origin) + distance * v
        if all(0.1 < p[i] < dims[i] - 0.1 for i in range(3)):
            return [float(c) for c in p]
        distance *= 0.99
    return [float(c) for c in np.array(origin) + [0.03, 0, 0]]


def rounded(v):
    return [round(float(c), 3) for c in v]


def impulse_responses(room, rate, source, channels, absorption_scale=1.0):
    """RIRs (list per mic) from `source` ("speaker" or "talker") to the device's 1 or 2 mics, tap 0 = emission.

    pyroomacoustics delays every RIR by half its fractional-delay filter; that offset is removed, so the direct
    path sits at distance / c. Mic 2 is 6 cm from mic 1 along x."""
    dims = room["dims_m"]
    e_abs, max_order = pra.inverse_sabine(room["rt60_s"], dims)
    e_abs = min(0.99, e_abs * absorption_scale)
    shoebox = pra.ShoeBox(dims, fs=rate, materials=pra.Material(e_abs), max_order=min(max_order, 100),
                          air_absorption=False)
    shoebox.add_source(room[source + "_m"])
    mics = [room["mic_m"]]
    if channels == 2:
        m2 = list(room["mic_m"])
        m2[0] = m2[0] + MIC_SPACING_M if m2[0] + MIC_SPACING_M < dims[0] - 0.05 else m2[0] - MIC_SPACING_M
        mics.append(m2)
    shoebox.add_microphone_array(np.array(mics).T)
    shoebox.compute_rir()
    offset = pra.constants.get("frac_delay_length") // 2
    return [np.asarray(shoebox.rir[m][0][offset:], dtype=np.float64) for m in range(len(mics))]


def direct_path_ms(room, source):
    d = np.linalg.norm(np.array(room[source + "_m"]) - np.array(room["mic_m"]))
    return float(d / SOUND_SPEED * 1000.0)


def measured_rt60(h, rate):
    try:
        return round(float(pra.experimental.measure_rt60(h, fs=rate, decay_db=30)), 3)
    except Exception:  # too short a decay to fit
        return None
