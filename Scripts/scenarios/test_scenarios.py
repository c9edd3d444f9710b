"""Tests of the scenario matrix: bit-for-bit regeneration against the recorded hashes, the metrics on signals
with a known answer, and the HTML report rendered by headless Chromium (the screenshot must not be blank).

  .venv/bin/python -m unittest discover -s Scripts/scenarios -p 'test_*.py'

The report test needs the release `afe` (.build/release/afe; skipped without it)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import tune_summary  # noqa: E402
import shifts  # noqa: E402
import generate  # noqa: E402
import matrix  # noqa: E402
import metrics as M  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
AFE = os.path.join(ROOT, ".build", "release", "afe")


class RegenerationTests(unittest.TestCase):
    def test_two_scenarios_regenerate_as_recorded(self):
        with open(os.path.join(HERE, "hashes", "test.json")) as f:
            recorded = json.load(f)
        with open(os.path.join(HERE, "hashes", "test.levels.json")) as f:
            recorded_levels = json.load(f)
        with tempfile.TemporaryDirectory() as out:
            for spec in matrix.by_id("test", ["near_fan", "echo_small_speaker"]):
                sid, files = generate.write_scenario((spec, out))
                ok, _ = generate.compare(recorded[sid], files, recorded_levels[sid], generate.scene_levels(out, spec))
                self.assertTrue(ok, f"{sid} differs from hashes/test.json beyond rounding")

    def test_check_allows_rounding_flips_and_nothing_more(self):
        import soundfile as sf
        rng = np.random.default_rng(5)
        x = np.round(rng.normal(0, 1000, 3 * 16000)).astype(np.int16)
        with tempfile.TemporaryDirectory() as d:
            def record(y, name):
                path = os.path.join(d, name)
                sf.write(path, y, 16000, subtype="PCM_16")
                return generate.sha256(path), generate.levels(path)
            digest, level = record(x, "a.wav")
            flipped = x.copy()
            flipped[rng.integers(0, len(x), 40)] += 1
            louder = np.round(x * 10 ** (0.01 / 20)).astype(np.int16)
            for y, ok in ((x, True), (flipped, True), (louder, False)):
                d2, l2 = record(y, "b.wav")
                self.assertEqual(generate.compare({"mic.wav": digest}, {"mic.wav": d2}, {"mic.wav": level},
                                                  {"mic.wav": l2})[0], ok)
            self.assertEqual(generate.compare({"mic.wav": digest}, {"mic.wav": digest + "0"}, {"mic.wav": level},
                                              {"mic.wav": level}), (True, ["mic.wav"]))
            self.assertFalse(generate.compare({"labels.csv": "a"}, {"labels.csv": "b"}, {}, {})[0], "not audio")
            self.assertFalse(generate.compare({"mic.wav": digest}, {"mic.wav": digest, "x.wav": digest}, {}, {})[0])
            self.assertFalse(generate.compare(None, {"mic.wav": digest}, {}, {})[0])

    def test_halves_differ_in_voices_sentences_and_rooms(self):
        test, tune = matrix.scenarios("test"), matrix.scenarios("tune")
        self.assertEqual([s["id"] for s in test], [s["id"] for s in tune])
        voices = lambda specs, k: {tuple(s[k]) for s in specs if s["near" if k == "near_voice" else "far"]}
        self.assertFalse(voices(test, "near_voice") & voices(tune, "near_voice"))
        self.assertFalse(voices(test, "far_voice") & voices(tune, "far_voice"))
        sentences = lambda specs: {x for s in specs for x in s["near_sentences"]}
        self.assertFalse(sentences(test) & sentences(tune))
        self.assertTrue(all(a["seed"] != b["seed"] for a, b in zip(test, tune)))

    def test_rate_scenes_are_one_scene(self):
        specs = {s["id"]: s for s in matrix.scenarios("test")}
        keep = lambda s: {k: v for k, v in s.items() if k not in ("id", "rate")}
        self.assertEqual(keep(specs["rate_16k"]), keep(specs["rate_48k"]))
        self.assertEqual(keep(specs["rate_16k"]), keep(specs["rate_44k"]))


    def test_bargein_summary_counts_misses_as_never(self):
        import bargein_summary
        with tempfile.TemporaryDirectory() as out:
            with open(os.path.join(out, "tune.log"), "w") as f:
                f.write("dt_ser0      latency ms [120, 'miss', 300]\n"
                        "echo_music              90.0 s  false barge-ins 2 [1.5, 30.4]\n"
                        "echo_car                90.0 s  false barge-ins 0 \n"
                        'echo_summary {"minutes": 3.0, "false_barge_ins": 2, "per_30_min": 20.0}\n')
            latencies, missed, false, minutes, scenes = bargein_summary.summary(out)
        self.assertEqual((sorted(latencies), missed), ([120.0, 300.0], 1))
        self.assertEqual((false, minutes), ({"tune": 2}, {"tune": 3.0}))
        self.assertEqual(scenes, ["tune/echo_music 2 [1.5, 30.4]"])

    def test_other_far_voices_belong_to_neither_half(self):
        pooled = {v[:2] for half in matrix.POOLS.values() for k in ("far", "babble") for v in half[k]}
        self.assertFalse({v[:2] for v in matrix.OTHER_FAR_VOICES} & pooled)
        self.assertTrue(all(v[2] in matrix.FAR_SENTENCES for v in matrix.OTHER_FAR_VOICES))
        specs = matrix.extra_echo("tune", 2, matrix.OTHER_FAR_VOICES)
        self.assertEqual(specs[0]["id"], "echo_music_v1")
        self.assertTrue({tuple(s["far_voice"]) for s in specs} <= set(matrix.OTHER_FAR_VOICES))
        self.assertGreater(len({tuple(s["far_voice"]) for s in specs}), 2)
        plain = matrix.extra_echo("tune", 2)
        self.assertTrue(all(s["seed"] != p["seed"] for s, p in zip(specs, plain)))
        self.assertTrue(all(tuple(p["far_voice"]) in set(matrix.POOLS["tune"]["far"]) for p in plain))

    def test_extra_path_scenes_are_new_tuning_draws_in_four_rooms(self):
        specs = matrix.extra_path("tune", 4)
        self.assertEqual([s["id"] for s in specs[:2]], ["path_moved_x1", "path_door_x1"])
        self.assertEqual({s["room"] for s in specs}, set(matrix.PATH_ROOMS))
        self.assertEqual({s["path_change"] for s in specs}, {"moved", "door"})
        self.assertFalse({s["id"] for s in specs} & {s["id"] for s in matrix.scenarios("tune")})
        self.assertEqual(json.dumps(specs), json.dumps(matrix.extra_path("tune", 4)))  # deterministic
        base = {s["id"]: s for s in matrix.scenarios("tune")}
        self.assertNotEqual(specs[0]["delay_ms"], base["path_moved"]["delay_ms"])


class MetricTests(unittest.TestCase):
    def test_wer_counts_substitutions_insertions_deletions(self):
        self.assertEqual(M.wer("turn the lights off", "turn the lights off"), 0.0)
        self.assertEqual(M.wer("turn the lights off", "turn a lights"), 0.5)
        self.assertEqual(M.wer("stop", "please stop it now"), 3.0)

    def test_erle_of_a_known_attenuation(self):
        rng = np.random.default_rng(1)
        mic = rng.standard_normal(16000 * 3)
        out = mic * 10 ** (-30 / 20)
        mask = np.ones(300, dtype=bool)
        self.assertAlmostEqual(M.erle(M.frames_power(mic), M.frames_power(out), mask), 30.0, places=6)
        series = M.erle_series(M.frames_power(mic), M.frames_power(out), mask, 100)
        self.assertEqual(len(series), 3)

    def test_vad_f1_false_starts_and_onsets(self):
        truth = np.zeros(1000, dtype=bool)
        truth[200:400] = True
        vad = truth.copy()
        self.assertEqual(M.vad_scores(vad, truth), 1.0)
        vad[600:650] = True
        self.assertLess(M.vad_scores(vad, truth), 1.0)
        self.assertEqual(M.false_starts([2.0, 6.0], truth), 1)
        self.assertEqual(M.onset_offsets([(2.1, 4.0), (6.0, 6.5)], [[2.0, 4.0]]), [0.10000000000000009])

    def test_onset_inside_a_segment_open_from_the_previous_utterance_is_covered(self):
        near = [[1.0, 2.0], [2.8, 3.5], [6.0, 7.0], [9.0, 9.5]]
        # one segment over the first two utterances (pause 0.8 s < end silence), one that starts 0.4 s early
        # over the third, none at the fourth
        segs = M.segments([{"start_ms": 1050, "end_ms": 3500}, {"start_ms": 5600, "end_ms": 7000}])
        self.assertEqual(M.covered_onsets(segs, near), [False, True, False, False])
        offsets = M.onset_offsets(segs, near)
        self.assertAlmostEqual(offsets[0], 0.05)
        self.assertEqual(offsets[1], 0.0)  # captured: the open segment holds it
        self.assertAlmostEqual(offsets[2], -0.4)  # inside a segment, but one that began on no utterance: early
        self.assertIsNone(offsets[3])
        self.assertEqual(M.covered_onsets(M.segments([{"start_ms": 1050, "end_ms": None}]), near),
                         [False, True, True, True])

    def test_delay_lock_and_reconvergence(self):
        errors = [(1.0, 30.0), (2.0, 1.0), (3.0, 5.0), (4.0, 0.5), (5.0, 0.2)]
        self.assertEqual(M.delay_lock_s(errors, first_echo_s=1.0), 3.0)
        self.assertIsNone(M.delay_lock_s([(1.0, 9.0)], 0.0))

    def test_reconvergence_counts_far_end_time(self):
        # 10 ms frames: mic power 1 on far-end-only frames, output 30 dB down (converged) except where set
        def case(far_only, bad_frames, change_s=5.0):
            mic = np.ones(len(far_only))
            out = np.full(len(far_only), 1e-3)
            out[bad_frames] = 0.5  # 3 dB: the canceller lost the path (the target: 24 dB)
            return M.reconvergence_s(mic, out, far_only, change_s)
        far = np.ones(1000, bool)
        self.assertEqual(case(far, slice(0, 0)), 0.0)  # never lost
        self.assertEqual(case(far, slice(500, 530)), 0.3)  # 0.3 s of far-end time lost after the change
        # the far end pauses 1 s right after the change: the pause does not count
        paused = far.copy()
        paused[500:600] = False
        self.assertEqual(case(paused, slice(0, 0)), 0.0)
        self.assertEqual(case(paused, slice(600, 620)), 0.2)
        # lost 0.2 s, then again at 0.5-0.6 s (within the 1 s hold): back for good at 0.6 s
        lost = np.zeros(1000, bool)
        lost[500:520] = lost[550:560] = True
        self.assertEqual(case(far, lost), 0.6)
        self.assertIsNone(case(far, slice(500, 1000)))  # never back
        mic, out = np.ones(1000), np.full(1000, 0.5)  # nothing converged before the change
        self.assertIsNone(M.reconvergence_s(mic, out, far, 5.0))
        # the target is at most 25 dB: 26 dB after 40 dB before is back, 24 dB is not
        out = np.full(1000, 1e-4)
        out[500:] = 10 ** -2.6
        self.assertEqual(M.reconvergence_s(np.ones(1000), out, far, 5.0), 0.0)
        out[500:] = 10 ** -2.4
        self.assertIsNone(M.reconvergence_s(np.ones(1000), out, far, 5.0))


class JudgeTests(unittest.TestCase):
    """The WER judge (asr.py) on three matrix sentences rendered by flite at the matrix's near-end level over a
    -50 dBFS pink floor: the task judge must hear them (measured 0 %; the general judge 13.8 %), and must not hear
    them under white noise at 0 dB SNR (measured 100 %: nothing recognized)."""

    @classmethod
    def setUpClass(cls):
        import synth
        rng = np.random.default_rng(5)
        cls.text = " ".join(matrix.NEAR_SENTENCES[i] for i in (0, 13, 26))
        pause = np.zeros(8000)
        x = np.concatenate([pause] + [np.concatenate([synth.tts("flite", "slt", t, M.RATE), pause])
                                      for t in (matrix.NEAR_SENTENCES[i] for i in (0, 13, 26))])
        cls.speech = x * synth.amp(-26) / np.sqrt(np.mean(x[np.abs(x) > 1e-3] ** 2))
        floor = synth.pink(len(x), M.RATE, rng)
        cls.clean = cls.speech + synth.amp(-50) * floor / np.std(floor)
        cls.noisy = cls.speech + synth.amp(-26) * rng.standard_normal(len(x))

    def test_task_judge_hears_clean_speech_and_not_speech_under_white_noise(self):
        self.assertLessEqual(M.wer(self.text, M.recognize(self.clean, judge="task")), 0.15)
        self.assertGreaterEqual(M.wer(self.text, M.recognize(self.noisy, judge="task")), 0.5)

    def test_task_lm_is_the_whole_sentence_pool_of_both_halves(self):
        import asr
        lm = asr.task_lm_text()
        unigrams = lm.split("\\1-grams:")[1].split("\\2-grams:")[0].strip().splitlines()
        vocab = {line.split()[1] for line in unigrams} - {"<s>", "</s>"}
        self.assertEqual(vocab, {w for s in matrix.NEAR_SENTENCES for w in M.words(s)})
        for half in ("test", "tune"):
            self.assertTrue({w for s in matrix.scenarios(half) for x in s["near_sentences"] for w in M.words(x)} <= vocab)

    def test_cache_key_names_the_judge_and_its_settings(self):
        import asr
        with tempfile.TemporaryDirectory() as cache:
            M.recognize(self.clean[:16000], cache, judge="task")
            M.recognize(self.clean[:16000], cache, judge="general")
            M.recognize(self.clean[:16000], cache, judge="task")
            self.assertEqual(len(os.listdir(cache)), 2)
        self.assertNotEqual(asr.settings("task")[1], asr.settings("general")[1])
        with self.assertRaises(ValueError):
            asr.use("nope")


class EnforceTests(unittest.TestCase):
    def test_enforced_threshold_that_fails_or_is_missing_fails_ci(self):
        import evaluate
        rows = [("a", "1", "≤ 2", True), ("b", "3", "≤ 2", False), ("c", "n/a", "≤ 2", None)]
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump({"enforced": ["a"]}, f)
        try:
            self.assertEqual(evaluate.enforce(f.name, rows), 0)
            for wanted in (["a", "b"], ["c"], ["missing"]):
                with open(f.name, "w") as g:
                    json.dump({"enforced": wanted}, g)
                self.assertEqual(evaluate.enforce(f.name, rows), 1, wanted)
        finally:
            os.unlink(f.name)

    def test_ci_enforced_names_exist(self):
        import tables
        with open(os.path.join(HERE, "ci-enforced.json")) as f:
            wanted = json.load(f)["enforced"]
        names = {n for n, _, _, _ in tables.thresholds(FAKE_RESULTS, ["default", "webrtc", "speex", "aecm", "raw"])}
        self.assertTrue(set(wanted) <= names, set(wanted) - names)


def fake_result(sid, kind, **metrics):
    spec = {"id": sid, "kind": kind, "ser_db": 0, "drift_ppm": 0}
    return {"id": sid, "kind": kind, "truth": {"spec": spec, "echo_active": [[1, 2]]},
            "systems": {s: dict(metrics) for s in ("default", "webrtc", "speex", "aecm", "raw")}}


# What each row needs: the echo-only false-active rows (enforced in CI) read vad_false_active, false_starts and
# far_only_min.
FAKE_RESULTS = [fake_result("near_x", "near", wer=0.2, pesq_wb=2.0),
                fake_result("echo_music", "echo_hard", erle_db=30.0, vad_false_active=0.02, false_starts=0, far_only_min=0.5)]


@unittest.skipUnless(os.path.exists(AFE) and shutil.which("chromium"), "needs .build/release/afe and chromium")
class ReportRenderTests(unittest.TestCase):
    def test_report_renders_non_blank(self):
        from matplotlib import image
        with tempfile.TemporaryDirectory() as tmp:
            scen, ev = os.path.join(tmp, "scenarios"), os.path.join(tmp, "evaluation")
            for spec in matrix.by_id("test", ["echo_living_tv"]):
                generate.write_scenario((spec, scen))
            subprocess.run([sys.executable, os.path.join(HERE, "evaluate.py"), "--half", "test", "--only", "echo_living_tv",
                            "--systems", "default,raw", "--scenarios", scen, "--out", ev, "--afe", AFE, "--jobs", "1"],
                           check=True, capture_output=True)
            page = os.path.join(ev, "test", "report", "echo_living_tv.html")
            shot = os.path.join(tmp, "shot.png")
            subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                            "--window-size=1400,2400", f"--screenshot={shot}", "file://" + page],
                           check=True, capture_output=True, timeout=120)
            pixels = image.imread(shot)[:, :, :3]
            not_white = np.mean(np.any(pixels < 0.9, axis=2))
            colors = len(np.unique((pixels[::4, ::4] * 15).astype(int).reshape(-1, 3), axis=0))
            self.assertGreater(not_white, 0.05, "screenshot is (nearly) blank")
            self.assertGreater(colors, 50, "screenshot has too few colours to hold the plots")
            with open(os.path.join(ev, "test", "table.json")) as f:
                table = json.load(f)
            self.assertTrue(any(t["name"].startswith("far-end-only ERLE") for t in table["thresholds"]))


if __name__ == "__main__":
    unittest.main()


class ShiftTests(unittest.TestCase):
    def test_a_shifted_copy_delays_every_wav_alike_and_keeps_the_rest(self):
        import soundfile as sf
        with tempfile.TemporaryDirectory() as d:
            scene, out = os.path.join(d, "scene"), os.path.join(d, "out")
            os.makedirs(scene)
            mic = (np.arange(100) + 1).astype(np.int16)
            stereo = np.stack([mic, -mic], 1)
            sf.write(os.path.join(scene, "mic.wav"), mic, 48000, subtype="PCM_16")
            sf.write(os.path.join(scene, "reference.wav"), stereo, 48000, subtype="PCM_16")
            with open(os.path.join(scene, "truth.json"), "w") as f:
                json.dump({"delay_ms": 10}, f)
            shifts.shifted_copy(scene, out, 3)
            got, rate = sf.read(os.path.join(out, "mic.wav"), dtype="int16")
            self.assertEqual(rate, 48000)
            self.assertEqual(list(got), [0, 0, 0] + list(mic[:97]))
            got2, _ = sf.read(os.path.join(out, "reference.wav"), dtype="int16", always_2d=True)
            self.assertEqual(got2.shape, (100, 2))
            self.assertEqual(list(got2[:5, 1]), [0, 0, 0, -1, -2])
            with open(os.path.join(out, "truth.json")) as f:
                self.assertEqual(json.load(f), {"delay_ms": 10})
            shifts.shifted_copy(scene, os.path.join(d, "none"), 0)
            same, _ = sf.read(os.path.join(d, "none", "mic.wav"), dtype="int16")
            self.assertEqual(list(same), list(mic))

    def test_the_summary_counts_passes_and_missing_values(self):
        self.assertEqual(shifts.summarize([0.2, 1.5, 0.4, None], lambda v: v <= 0.5),
                         "0.2 / 0.4 / 1.5, 2 of 4 pass, 1 none")
        self.assertEqual(shifts.summarize([None, None], None), "none")
        self.assertEqual(shifts.summarize([0.9286, 21.49], None), "0.929 / 11.2 / 21.5")


class TuneSummaryTests(unittest.TestCase):
    """tune_summary.summarize on hand-made result records."""

    def test_pools_onsets_false_activity_and_starts_over_scenes(self):
        scenes = [
            {"id": "dt_ser0", "kind": "doubletalk", "systems": {"a": {
                "onset_offsets_s": [0.1, -0.2, None], "vad_f1": 0.6, "vad_false_active": 0.02, "false_starts": 1,
                "far_only_min": 0.5}}},
            {"id": "echo_rt09", "kind": "echo_hard", "systems": {"a": {
                "vad_false_active": 0.10, "false_starts": 2, "far_only_min": 0.5, "erle_db": 20.0}}},
            {"id": "vad_pink0_x1", "kind": "vad_noise", "systems": {"a": {"vad_f1": 0.9}}},
            {"id": "path_moved", "kind": "path_change", "systems": {"a": {
                "vad_false_active": 0.0, "far_only_min": 1.0, "reconvergence_s": 0.4, "erle_db": 30.0}}},
        ]
        f = tune_summary.summarize(scenes)["a"]
        self.assertAlmostEqual(f["onsets_within_150ms"], 1 / 3)  # -0.2 s and a missed onset do not count
        self.assertEqual(f["onsets"], 3)
        self.assertAlmostEqual(f["false_active_mean"], 0.04)
        self.assertEqual((f["false_active_worst"], f["worst_scene"]), (0.10, "echo_rt09"))
        self.assertEqual(f["false_starts"], 3)
        self.assertAlmostEqual(f["false_starts_per_min"], 1.5)
        self.assertEqual(f["pink0_f1"], 0.9)
        self.assertIsNone(f["babble10_f1"])
        self.assertEqual(f["erle_db"], {"echo_hard": 20.0, "path_change": 30.0})
        self.assertEqual(f["reconvergence_max_s"], 0.4)
        self.assertIn("false starts 3 in 2.0 min", tune_summary.line("a", f))
