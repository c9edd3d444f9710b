"""The scenario matrix: the same template of scenario kinds for both halves, every value drawn from the half's own
seed and pools (voices, sentences, rooms, noises). The test half is the one that counts; defaults are tuned on the
tuning half only."""
import hashlib

import numpy as np

NEAR_SENTENCES = [
    "turn the kitchen lights off and set an alarm for seven tomorrow morning",
    "what is the weather going to be like this weekend",
    "play some quiet music in the living room please",
    "remind me to call my sister when I get home",
    "how long does it take to drive to the airport right now",
    "add milk eggs and bread to my shopping list",
    "stop the music and tell me the news headlines",
    "set a timer for twenty minutes for the pasta",
    "what time does the pharmacy on the corner close today",
    "send a message to david saying I will be late",
    "turn the volume down a little bit",
    "how many ounces are there in a cup",
    "call the office and put it on the speaker",
    "lock the front door and turn on the porch light",
    "what was the score of the football game last night",
    "read me the next item on my calendar",
    "open the garage door please",
    "find a recipe for chicken soup with rice",
    "skip this song and play something by the beatles",
    "is it going to rain in the afternoon",
    "what is the capital of australia",
    "wake me up at half past six on weekdays",
    "turn up the heating in the bedroom",
    "how far is the moon from the earth",
    "book a table for four people at eight tonight",
    "cancel my meeting with the dentist on friday",
    "tell me a joke about cats",
    "pause the movie and dim the lights",
    "what is the traffic like on the way to work",
    "order more coffee filters from the usual shop",
    "show me the photos from the beach trip",
    "translate good morning into spanish",
    "how do you spell necessary",
    "start the vacuum cleaner in the hallway",
    "what is on television tonight after the news",
    "check if my package has been delivered",
    "play the radio station from yesterday",
    "turn off all the lights downstairs",
    "how much is one hundred dollars in euros",
    "set the thermostat to twenty one degrees",
]

FAR_SENTENCES = {
    "en": [
        "Here is the forecast for today. Expect sunny spells in the morning with a chance of showers later on.",
        "Your next appointment is tomorrow at nine thirty with the bank, and after that you have lunch with Anna.",
        "I found three recipes for vegetable curry. The first one takes about forty minutes to prepare.",
        "The train to the city centre leaves from platform four in twelve minutes and it is running on time.",
        "Now playing the evening news. The government announced new plans for public transport today.",
        "Sure, I have added that to your list. You now have seven items, including apples and dish soap.",
        "The museum opens at ten in the morning and closes at six, except on Mondays when it is closed.",
        "Traffic is heavy on the ring road because of roadworks, so it might be faster to take the bridge.",
        "Here is a fun fact. Octopuses have three hearts and their blood is blue because of copper.",
        "Your package was delivered this afternoon and left at the front door next to the flower pot.",
        "The match ended two to one after a late goal in the final minute of extra time.",
        "I set a reminder for Thursday at five, to pick up the dry cleaning on the way home.",
    ],
    "cmn": [
        "今天天气晴朗，最高气温二十五度，下午可能有小雨。",
        "您明天上午九点有一个会议，请提前十分钟到达。",
        "正在为您播放新闻，今天的主要内容是交通和天气。",
        "已经为您设置了闹钟，明天早上七点会准时提醒您。",
        "附近有三家餐厅还在营业，最近的一家步行五分钟。",
        "您的快递已经送到门口，请记得及时取回。",
    ],
    "de": [
        "Das Wetter morgen wird sonnig und warm, am Abend kann es aber Gewitter geben.",
        "Ich habe den Termin beim Zahnarzt auf Donnerstag um zehn Uhr verschoben.",
        "Der nächste Bus fährt in sieben Minuten von der Haltestelle am Marktplatz ab.",
        "Hier sind die Nachrichten des Tages, zuerst ein Blick auf die Wirtschaft.",
    ],
    "fr": [
        "Demain il fera beau sur toute la région, avec des températures agréables.",
        "Votre rendez-vous chez le médecin est confirmé pour lundi à quinze heures.",
        "Le prochain train pour Lyon part dans vingt minutes du quai numéro trois.",
        "Voici les informations du jour, avec un point sur la circulation.",
    ],
    "es": [
        "Mañana hará sol por la mañana y lloverá un poco por la tarde.",
        "Su pedido ha sido enviado y llegará el jueves antes del mediodía.",
        "El restaurante abre a las ocho y tiene mesas libres en la terraza.",
        "Estas son las noticias más importantes de hoy en la ciudad.",
    ],
}

# Voices per half (disjoint). Near ends speak English (PocketSphinx's en-us model scores them). The bundled
# TestVectors, on which the defaults were tuned so far, have flite rms as their near end: rms is in the tuning
# half only (slt, their far end, is a near end of the test half here).
POOLS = {
    "test": {
        "near": [("flite", "awb"), ("flite", "slt")],
        "far": [("espeak-ng", "en-us+f3", "en"), ("espeak-ng", "cmn", "cmn"), ("espeak-ng", "de+m2", "de")],
        "babble": [("espeak-ng", "en-gb+f2", "en"), ("espeak-ng", "es+m1", "es"), ("espeak-ng", "it+f1", "en"),
                   ("espeak-ng", "cmn+m3", "cmn"), ("espeak-ng", "en-us+m4", "en"), ("espeak-ng", "fr+f4", "fr")],
    },
    "tune": {
        "near": [("flite", "rms"), ("flite", "kal16")],
        "far": [("espeak-ng", "en-gb+m3", "en"), ("espeak-ng", "cmn+f2", "cmn"), ("espeak-ng", "fr+m1", "fr")],
        "babble": [("espeak-ng", "en-us+m2", "en"), ("espeak-ng", "de+f3", "de"), ("espeak-ng", "pt+m4", "es"),
                   ("espeak-ng", "cmn+f4", "cmn"), ("espeak-ng", "nl+m1", "en"), ("espeak-ng", "ru+f1", "en")],
    },
}

# Far-end voices of neither half, for extra tuning renderings only (`generate.py --extra-... --far-voices
# other`): the tuning material's far ends otherwise hold three voices, and a false barge-in that depends on the
# voice (its pitch, its fricatives through a clipping loudspeaker) cannot show on them.
OTHER_FAR_VOICES = [("espeak-ng", "en+m8", "en"), ("espeak-ng", "es+m6", "es"), ("espeak-ng", "de+m4", "de"),
                    ("espeak-ng", "cmn+m1", "cmn"), ("espeak-ng", "fr+f5", "fr"), ("espeak-ng", "en-us+m7", "en")]

RATES = [16000, 44100, 48000]
NOISE_KINDS = ["pink", "babble", "fan", "street", "kitchen"]

# The template: (id, kind, fixed settings). Everything not fixed is drawn per half.
TEMPLATE = [
    # far end only, linear loudspeaker, speech: ERLE >= 30 dB at every delay <= 500 ms, RT60 <= 0.6 s
    ("echo_car", "echo", {"room": "car", "delay_bin": 0}),
    ("echo_bedroom", "echo", {"room": "bedroom", "delay_bin": 1}),
    ("echo_living_tv", "echo", {"room": "living", "delay_bin": 2}),
    ("echo_kitchen", "echo", {"room": "kitchen", "rt60_range": (0.5, 0.6), "delay_bin": 3}),
    ("echo_meeting", "echo", {"room": "meeting", "rt60_range": (0.45, 0.6), "delay_bin": 4}),
    # far end only, harder: ERLE >= 25 dB
    ("echo_music", "echo_hard", {"room": "living", "far": "music"}),
    ("echo_speech_music", "echo_hard", {"room": "bedroom", "far": "speech+music"}),
    ("echo_softclip", "echo_hard", {"room": "kitchen", "speaker_mic_m": 0.05, "rt60_range": (0.5, 0.6),
                                    "nonlinearity": "softclip"}),
    ("echo_small_speaker", "echo_hard", {"room": "bedroom", "speaker_mic_m": 0.04, "nonlinearity": "small_speaker",
                                         "volume_changes": True}),
    ("echo_rt09", "echo_hard", {"room": "kitchen", "rt60_range": (0.85, 0.9)}),
    # clock drift, 60 s
    ("drift_p100", "drift", {"room": "living", "drift_ppm": 100}),
    ("drift_m100", "drift", {"room": "bedroom", "drift_ppm": -100}),
    ("drift_200", "drift", {"room": "meeting", "drift_ppm": {"test": 200, "tune": -200}}),
    ("drift_50", "drift", {"room": "kitchen", "drift_ppm": {"test": -50, "tune": 50}, "rt60_range": (0.5, 0.6)}),
    # echo path change mid-file
    ("path_moved", "path_change", {"room": "living", "path_change": "moved"}),
    ("path_door", "path_change", {"room": "meeting", "path_change": "door", "rt60_range": (0.45, 0.6)}),
    # near end only, no far end, each noise
    ("near_pink", "near", {"room": "bedroom", "noise": "pink"}),
    ("near_babble", "near", {"room": "living", "noise": "babble"}),
    ("near_fan", "near", {"room": "car", "noise": "fan"}),
    ("near_street", "near", {"room": "meeting", "noise": "street"}),
    ("near_kitchen", "near", {"room": "kitchen", "noise": "kitchen", "rt60_range": (0.5, 0.7)}),
    # double talk at every SER
    ("dt_ser-15", "doubletalk", {"room": "bedroom", "ser_db": -15}),
    ("dt_ser-10", "doubletalk", {"room": "living", "ser_db": -10}),
    ("dt_ser-5", "doubletalk", {"room": "kitchen", "ser_db": -5, "rt60_range": (0.5, 0.6)}),
    ("dt_ser0", "doubletalk", {"room": "meeting", "ser_db": 0, "rt60_range": (0.45, 0.6)}),
    ("dt_ser5", "doubletalk", {"room": "car", "ser_db": 5}),
    ("dt_ser10", "doubletalk", {"room": "bedroom", "ser_db": 10}),
    # VAD in noise, exact SNR
    ("vad_pink0", "vad_noise", {"room": "bedroom", "noise": "pink", "snr_db": 0, "rate": 16000}),
    ("vad_babble10", "vad_noise", {"room": "living", "noise": "babble", "snr_db": 10, "rate": 16000}),
    # one double-talk scene at each mic rate (same seed)
    ("rate_16k", "rate", {"room": "bedroom", "ser_db": 0, "rate": 16000, "scene": "rate"}),
    ("rate_44k", "rate", {"room": "bedroom", "ser_db": 0, "rate": 44100, "scene": "rate"}),
    ("rate_48k", "rate", {"room": "bedroom", "ser_db": 0, "rate": 48000, "scene": "rate"}),
]

DELAY_BINS = [(0, 0), (20, 120), (120, 250), (250, 400), (500, 500)]

# A few minutes of the test half evaluated in CI (Scripts/scenarios/ci-slice.sh).
CI_SLICE = ["echo_living_tv", "echo_music", "path_moved", "near_babble", "dt_ser-10", "dt_ser0", "vad_pink0"]


def seed_of(*parts):
    return int(hashlib.sha256("/".join(str(p) for p in parts).encode()).hexdigest()[:12], 16)


def scenarios(half):
    """The half's scenario specs (dicts), in template order; deterministic."""
    near_sentences = _near_sentences(half)
    return [_spec(half, sid, kind, fixed, near_sentences) for sid, kind, fixed in TEMPLATE]


def _near_sentences(half):
    sentences = list(NEAR_SENTENCES)
    np.random.default_rng(99).shuffle(sentences)  # one fixed split of the sentences
    return sentences[:20] if half == "test" else sentences[20:]


def _spec(half, sid, kind, fixed, near_sentences, seed=None, far_voices=None):
    """One spec of the template entry (sid, kind, fixed), every value drawn from `seed` (default: the half and id);
    the far-end voice from `far_voices` instead of the half's pool when given."""
    pools = dict(POOLS[half], far=far_voices) if far_voices else POOLS[half]
    s = {"id": sid, "half": half, "kind": kind, "seed": seed_of(half, sid)}
    if fixed.get("scene"):
        s["seed"] = seed_of(half, fixed["scene"])
    if seed is not None:
        s["seed"] = seed
    r = np.random.default_rng(s["seed"])
    s["room"] = fixed["room"]
    s["rt60_range"] = list(fixed.get("rt60_range", ())) or None
    s["speaker_mic_m"] = fixed.get("speaker_mic_m")
    s["duration_s"] = 60.0 if kind == "drift" else 30.0
    rate_draw, channels_draw = int(RATES[int(r.integers(0, 3))]), int(r.choice([1, 1, 2]))
    s["rate"] = fixed.get("rate") or rate_draw
    s["channels"] = 1 if kind in ("rate", "vad_noise") else channels_draw
    has_far = kind not in ("near", "vad_noise")
    s["far"] = fixed.get("far", "speech") if has_far else None
    far_voice = pools["far"][int(r.integers(0, len(pools["far"])))]
    s["far_voice"] = list(far_voice)
    s["near"] = kind in ("near", "vad_noise", "doubletalk", "rate")
    s["near_voice"] = list(pools["near"][int(r.integers(0, len(pools["near"])))])
    s["near_sentences"] = [near_sentences[int(i)] for i in r.permutation(len(near_sentences))[:8]]
    db_ = fixed.get("delay_bin")
    s["delay_ms"] = float(round(r.uniform(*DELAY_BINS[db_]))) if db_ is not None else float(round(r.uniform(0, 500)))
    drift = fixed.get("drift_ppm", 0)
    s["drift_ppm"] = drift[half] if isinstance(drift, dict) else drift
    s["nonlinearity"] = fixed.get("nonlinearity")
    s["volume_changes"] = bool(fixed.get("volume_changes"))
    s["path_change"] = fixed.get("path_change")
    s["ser_db"] = fixed.get("ser_db")
    s["echo_dbfs"] = round(float(r.uniform(-26, -16)), 1) if kind in ("echo", "echo_hard", "drift", "path_change") else None
    s["near_dbfs"] = round(float(r.uniform(-30, -24)), 1)
    noise = fixed.get("noise")
    if kind in ("doubletalk", "rate"):
        noise = ["pink", "fan", "babble"][int(r.integers(0, 3))]
    s["noise"] = noise
    if kind == "near":
        s["snr_db"] = round(float(r.uniform(0, 30)), 1)
    elif kind in ("doubletalk", "rate"):
        s["snr_db"] = round(float(r.uniform(15, 30)), 1)
    else:
        s["snr_db"] = fixed.get("snr_db")
    # the floor: -55..-40 dBFS; far-end-only scenarios keep it at -55..-50 so ERLE up to ~30-40 dB is visible
    lo, hi = (-55, -50) if kind in ("echo", "echo_hard", "drift", "path_change") else (-55, -40)
    s["floor_dbfs"] = round(float(r.uniform(lo, hi)), 1)
    s["far_level_dbfs"] = round(float(r.uniform(-22, -16)), 1)
    if fixed.get("scene"):
        s["rate_scene"] = fixed["scene"]
    return s


def _extra(half, n, template, far_voices=None):
    """`n` extra renderings (ids ID_xK, seeds (half, ID, "extra", K)) of each entry of `template`; with
    `far_voices` (``OTHER_FAR_VOICES``) the far ends speak those voices, ids ID_vK, seeds (half, ID, "voices", K)."""
    near_sentences = _near_sentences(half)
    tag, mark = ("voices", "v") if far_voices else ("extra", "x")
    return [_spec(half, f"{sid}_{mark}{k}", kind, fixed, near_sentences, seed=seed_of(half, sid, tag, k),
                  far_voices=far_voices)
            for k in range(1, n + 1) for sid, kind, fixed in template]


# Template entries whose far end plays while the user talks (the barge-in scenes), for extra_bargein.
BARGEIN_TEMPLATE = [t for t in TEMPLATE if t[1] == "doubletalk" or t[0] == "rate_16k"]


def extra_bargein(half, n, far_voices=None):
    """`n` extra renderings of each barge-in template entry (double talk at every SER, and the 16 kHz rate
    scene), ids ID_xK (K = 1..n): the same fixed settings and the half's own pools and sentences, every other
    value drawn from a new seed (half, ID, "extra", K) — more scenes with several interruptions each, beside the
    matrix and never in it. For barge-in tuning material from the tuning half (`generate.py --extra-bargein`).
    With `far_voices` (``OTHER_FAR_VOICES``, `--far-voices other`) the far ends speak those voices instead, ids ID_vK."""
    return _extra(half, n, BARGEIN_TEMPLATE, far_voices)


VAD_TEMPLATE = [t for t in TEMPLATE if t[1] == "vad_noise"]


def extra_vad(half, n):
    """`n` extra renderings of each VAD-in-noise template entry (pink at 0 dB, babble at 10 dB), ids ID_xK
    (K = 1..n): the same fixed settings and the half's own pools and sentences, every other value (talker,
    sentences, room, levels, noise realization) drawn from a new seed (half, ID, "extra", K). VAD tuning material
    from the tuning half (`generate.py --extra-vad`), beside the matrix and never in it."""
    return _extra(half, n, VAD_TEMPLATE)


ECHO_HARD_TEMPLATE = [t for t in TEMPLATE if t[1] == "echo_hard"]


def extra_echo(half, n, far_voices=None):
    """`n` extra renderings of each hard far-end-only template entry (music, speech+music, soft clipping, the
    small loudspeaker, RT60 0.9 s), ids ID_xK (K = 1..n): the same fixed settings and the half's own pools, every
    other value (far-end voice, room, delay, levels) drawn from a new seed (half, ID, "extra", K). False barge-in
    tuning material from the tuning half (`generate.py --extra-echo`), beside the matrix and never in it. With
    `far_voices` (``OTHER_FAR_VOICES``, `--far-voices other`) the far ends speak those voices instead, ids ID_vK."""
    return _extra(half, n, ECHO_HARD_TEMPLATE, far_voices)

PATH_TEMPLATE = [t for t in TEMPLATE if t[1] == "path_change"]
PATH_ROOMS = ["living", "bedroom", "kitchen", "meeting"]


def extra_path(half, n):
    """`n` extra renderings of each echo-path-change template entry (device moved, door opened), ids ID_xK
    (K = 1..n), the K-th in room PATH_ROOMS[(K - 1) % 4] (the template's RT60 range kept only in its own room):
    the half's own pools, every other value drawn from a new seed (half, ID, "extra", K). Reconvergence tuning
    material from the tuning half (`generate.py --extra-path`), beside the matrix and never in it."""
    near_sentences = _near_sentences(half)
    specs = []
    for k in range(1, n + 1):
        for sid, kind, fixed in PATH_TEMPLATE:
            room = PATH_ROOMS[(k - 1) % len(PATH_ROOMS)]
            f = dict(fixed) if room == fixed["room"] else {a: v for a, v in fixed.items() if a != "rt60_range"}
            f["room"] = room
            specs.append(_spec(half, f"{sid}_x{k}", kind, f, near_sentences, seed=seed_of(half, sid, "extra", k)))
    return specs

def by_id(half, ids=None):
    specs = scenarios(half)
    if ids:
        want = set(ids)
        specs = [s for s in specs if s["id"] in want]
    return specs
