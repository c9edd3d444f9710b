"""The barge-in scoring of bargein.py on hand-made truths."""
import json
import os
import sys
import tempfile
import unittest
from unittest import mock

import numpy as np
import soundfile as sf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bargein  # noqa: E402
import bargein_coherence  # noqa: E402
import bargein_wer  # noqa: E402
import generate  # noqa: E402
import matrix  # noqa: E402
import render  # noqa: E402
import rooms  # noqa: E402


class ScoringTests(unittest.TestCase):
    truth = {"near_speech": [[2.0, 3.0], [6.0, 7.0], [10.0, 11.0]], "echo_active": [[1.0, 6.5], [9.0, 9.8]]}

    def test_latency_per_onset_during_playback_and_misses(self):
        onsets, latencies, false = bargein.score_interrupts(self.truth, [2.2, 8.0])
        self.assertEqual(onsets, [2.0, 6.0, 10.0])  # 10.0 is within 300 ms of the echo's end at 9.8
        self.assertAlmostEqual(latencies[0], 0.21)  # 200 ms + one 10 ms device buffer
        self.assertEqual(latencies[1:], [float("inf")] * 2)
        self.assertEqual(false, [8.0])  # outside every utterance and its 500 ms tail

    def test_a_decision_in_the_utterance_tail_counts_and_after_it_is_false(self):
        onsets, latencies, false = bargein.score_interrupts(self.truth, [3.4, 4.5])
        self.assertAlmostEqual(latencies[0], 1.41)  # within 2 s of the onset and 500 ms of the end
        self.assertEqual(false, [4.5])

    def test_percentile_ranks_misses_last(self):
        self.assertEqual(bargein.percentile([0.1, 0.3, 0.2], 50), 0.2)
        self.assertEqual(bargein.percentile([0.1] * 19 + [float("inf")], 95), 0.1)
        self.assertEqual(bargein.percentile([0.1] * 18 + [float("inf")] * 2, 95), float("inf"))
        self.assertIsNone(bargein.percentile([], 50))


class StoppedPlaybackTests(unittest.TestCase):
    """The closed loop of `--after-decision stop`: the far end stops after a decision and resumes 500 ms after the
    user's utterance; the echo of what was not played leaves the mic exactly."""
    near = [[2.0, 3.0], [6.0, 7.0]]

    def test_stop_one_buffer_after_and_resume_after_the_utterance(self):
        stop, resume = bargein.stop_interval(2.3, self.near)
        self.assertAlmostEqual(stop, 2.31)
        self.assertAlmostEqual(resume, 3.5)
        stop, resume = bargein.stop_interval(4.5, self.near)  # a false one: resumes 500 ms after the stop
        self.assertAlmostEqual(resume, 5.01)

    def test_onsets_while_stopped_do_not_count(self):
        playing = bargein.playing_intervals([[1.0, 8.0]], [(2.31, 6.2)], 0.1)
        self.assertEqual(playing, [[1.0, 2.41], [6.3, 8.0]])
        onsets, _, _ = bargein.score_interrupts({"near_speech": [[2.0, 3.0], [5.0, 5.5], [7.0, 7.5]],
                                                 "echo_active": playing}, [2.3, 7.2])
        self.assertEqual(onsets, [2.0, 7.0])

    def scene(self, folder, rate=8000, seconds=4.0):
        room = {"dims_m": [3.0, 2.8, 2.5], "rt60_s": 0.3, "mic_m": [1.0, 1.0, 1.0], "speaker_m": [1.3, 1.1, 1.0],
                "talker_m": [2.0, 2.0, 1.0]}
        truth = {"spec": {"delay_ms": 50.0, "channels": 1}, "room": room, "near_speech": [[1.0, 1.5]]}
        n = int(seconds * rate)
        rng = np.random.default_rng(1)
        reference = 0.1 * rng.standard_normal(n)
        h = rooms.impulse_responses(room, rate, "speaker", 1)[0]
        delay = int(0.05 * rate)
        echo = 0.3 * np.convolve(np.concatenate([np.zeros(delay), reference])[:n], h)[:n]
        near = np.zeros(n)
        near[rate:int(1.5 * rate)] = 0.05 * rng.standard_normal(int(0.5 * rate))
        for name, x in (("reference", reference), ("echo", echo), ("mic", echo + near)):
            sf.write(os.path.join(folder, name + ".wav"), x, rate, subtype="PCM_16")
        return truth, near, h, delay

    def test_the_echo_of_what_was_not_played_leaves_the_mic(self):
        with tempfile.TemporaryDirectory() as folder:
            truth, near, h, delay = self.scene(folder)
            scene = bargein.StoppedScene(folder, truth)
            self.assertLess(scene.fit_error, 0.01)
            mic_path, reference_path = scene.write([(1.2, 2.0)], os.path.join(folder, "stopped"))
            mic, rate = sf.read(mic_path)
            reference = sf.read(reference_path)[0]
            self.assertTrue(np.all(reference[int(1.2 * rate):int(2.0 * rate)] == 0))
            played = sf.read(os.path.join(folder, "reference.wav"))[0]
            self.assertTrue(np.array_equal(reference[:int(1.2 * rate)], played[:int(1.2 * rate)]))
            # Echo of the played part only: from 1.2 s + the delay + the room's tail on the mic is the near end.
            tail = int(1.2 * rate) + delay + len(h)
            quiet = mic[tail:int(2.0 * rate)] - near[tail:int(2.0 * rate)]
            self.assertLess(np.sqrt(np.mean(quiet ** 2)), 2e-4)
            # Before the stop's echo arrives nothing changed.
            before = int(1.2 * rate) + delay
            self.assertLess(np.max(np.abs(mic[:before] - sf.read(os.path.join(folder, "mic.wav"))[0][:before])), 1e-4)

    def test_closed_loop_acts_on_the_first_decision_and_none_while_stopped(self):
        calls = []

        def fake_afe(afe, mic, reference, args, out_dir):
            calls.append(reference)
            return [1.2, 1.3, 2.5], 4.0  # 1.3 falls while stopped (1.21 to 2.0): nothing to stop

        with tempfile.TemporaryDirectory() as folder, mock.patch.object(bargein, "run_afe", fake_afe):
            truth, _, _, _ = self.scene(folder)
            acted, stops, _ = bargein.closed_loop("afe", folder, truth, [], os.path.join(folder, "out"))
        self.assertEqual(acted, [1.2, 2.5])
        self.assertAlmostEqual(stops[0][0], 1.21)
        self.assertAlmostEqual(stops[0][1], 2.0)
        self.assertEqual(len(calls), 3)  # as rendered, after the first stop, after the second
        self.assertTrue(calls[1].endswith(os.path.join("stopped", "reference.wav")))


class InterruptingSpeechWerTests(unittest.TestCase):
    """bargein_wer.py judges the closed loop's last output when the device stops, the scene as rendered otherwise."""

    def judged(self, scene):
        ran = []

        def fake_closed_loop(afe, scene_dir, truth, args, out_dir):
            ran.append(("closed", scene_dir))
            sf.write(os.path.join(out_dir, "out.wav"), np.full(1600, 0.25), 16000, subtype="PCM_16")
            return [1.2], [(1.21, 2.0)], 4.0

        def fake_afe(afe, mic, reference, args, out_dir):
            ran.append(("open", mic))
            sf.write(os.path.join(out_dir, "out.wav"), np.zeros(1600), 16000, subtype="PCM_16")
            return [], 4.0

        def fake_recognize(x, cache_dir=None):
            return "one two" if np.max(np.abs(x)) > 0.1 else "one"

        with tempfile.TemporaryDirectory() as folder, \
                mock.patch.object(bargein, "closed_loop", fake_closed_loop), \
                mock.patch.object(bargein, "run_afe", fake_afe), \
                mock.patch.object(bargein_wer.asr, "recognize", fake_recognize):
            os.makedirs(os.path.join(folder, "out"))
            result = bargein_wer.output_wer("afe", "mic.wav", "reference.wav", os.path.join(folder, "out"),
                                            "one two", None, [], scene)
        return result, ran

    def test_stop_judges_the_closed_loop_output(self):
        (wer, words, acted), ran = self.judged(("scene", {}))
        self.assertEqual((wer, words, acted), (0.0, 2, [1.2]))
        self.assertEqual(ran, [("closed", "scene")])

    def test_continue_judges_the_scene_as_rendered(self):
        (wer, words, acted), ran = self.judged(None)
        self.assertEqual((wer, words, acted), (0.5, 2, []))
        self.assertEqual(ran, [("open", "mic.wav")])


class LoopSeamTests(unittest.TestCase):
    """bargein.looped's seams: the next loop's mic also holds the echo the previous loop's playback still produces
    (the render cuts it off at the scene's end), re-rendered from the scene's spec (render.echo_continuation)."""
    scenes = (("tune", "echo_music"), ("test", "echo_small_speaker"), ("test", "path_moved"), ("test", "drift_m100"))

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.TemporaryDirectory()
        for half, sid in cls.scenes:
            generate.write_scenario((matrix.by_id(half, [sid])[0], cls.folder.name))

    @classmethod
    def tearDownClass(cls):
        cls.folder.cleanup()

    def scene(self, half, sid):
        d = os.path.join(self.folder.name, half, sid)
        with open(os.path.join(d, "truth.json")) as f:
            return d, json.load(f)

    def test_the_continued_echo_is_the_scenes_echo_then_its_tail(self):
        # Music; small speaker with volume steps, 2 channels and headroom scaling; a path change; clock drift.
        for half, sid in self.scenes:
            d, truth = self.scene(half, sid)
            spec = truth["spec"]
            rate, n = spec["rate"], int(round(spec["duration_s"] * spec["rate"]))
            extra = int((truth["bulk_delay_ms"] / 1000 + truth["ir_length_s"] + 0.5) * rate)
            continued = render.echo_continuation(spec, extra)
            stored = sf.read(os.path.join(d, "echo.wav"), dtype="int16", always_2d=True)[0]
            self.assertEqual(continued.shape, (n + extra, spec["channels"]))
            # Before 16-bit quantization: within float rounding of half an LSB.
            self.assertLess(np.max(np.abs(continued[:n] * 32767 - stored)), 0.5001, sid)
            self.assertLess(np.max(np.abs(continued[-int(0.05 * rate):])) * 32767, 0.01, sid)  # the tail has ended
        d, truth = self.scene("tune", "echo_music")
        rate = truth["spec"]["rate"]
        tail = render.echo_continuation(truth["spec"], rate)[30 * rate:, 0]
        self.assertGreater(np.sqrt(np.mean(tail[:rate // 4] ** 2)), 0.01)  # music plays to the end: a loud tail

    def test_one_loop_is_the_scene_as_before(self):
        d, truth = self.scene("tune", "echo_music")
        with tempfile.TemporaryDirectory() as out, \
                mock.patch.object(bargein.render, "echo_continuation", side_effect=AssertionError("rendered")):
            mic, ref = bargein.looped(d, 1, out, truth)
            self.assertTrue(np.array_equal(sf.read(mic, dtype="int16")[0], bargein.load16(os.path.join(d, "mic.wav"))))
            self.assertTrue(np.array_equal(sf.read(ref, dtype="int16")[0],
                                           bargein.load16(os.path.join(d, "reference.wav"))))

    def test_the_echo_goes_on_over_the_seams(self):
        d, truth = self.scene("tune", "echo_music")
        scene_mic = bargein.load16(os.path.join(d, "mic.wav"))
        n, lead, quarter = len(scene_mic), int(bargein.TAIL_LEAD_S * bargein.RATE), bargein.RATE // 4
        with tempfile.TemporaryDirectory() as out:
            mic_path, ref_path = bargein.looped(d, 3, out, truth)
            mic = sf.read(mic_path, dtype="int16")[0].astype(np.float64)
            ref = sf.read(ref_path, dtype="int16")[0]
            level = lambda x: 10 * np.log10(np.mean((x / 32768) ** 2))
            for seam in (n, 2 * n):
                before, after = level(mic[seam - quarter:seam]), level(mic[seam:seam + quarter])
                # The echo is there on both sides (the scene's own start holds no echo for the bulk delay: the
                # mic's first 250 ms are over 20 dB below its last).
                self.assertGreater(after, before - 6, f"seam at {seam / bargein.RATE} s")
            self.assertLess(level(scene_mic[:quarter].astype(np.float64)), level(mic[n - quarter:n]) - 20)
            self.assertTrue(os.path.exists(os.path.join(out, "echo_tail.wav")))
            with mock.patch.object(bargein.render, "echo_continuation", side_effect=AssertionError("not cached")):
                again = sf.read(bargein.looped(d, 3, out, truth)[0], dtype="int16")[0]
        self.assertTrue(np.array_equal(again, mic))
        self.assertTrue(np.array_equal(ref, np.tile(bargein.load16(os.path.join(d, "reference.wav")), 3)))
        self.assertTrue(np.array_equal(mic[:n - lead], scene_mic[:n - lead]))  # the first loop as the scene
        # After the tail the next loop is the scene again.
        self.assertTrue(np.array_equal(mic[2 * n + 3 * bargein.RATE:], scene_mic[3 * bargein.RATE:]))

    def test_the_ducking_loop_carries_the_echo_over_the_seams_too(self):
        import bargein_duck
        d, truth = self.scene("tune", "echo_music")
        with tempfile.TemporaryDirectory() as out:
            scene = bargein_duck.looped_scene(d, truth, 3, out)
            single = bargein_duck.looped_scene(d, truth, 1, out)
        n, quarter = len(single.reference), bargein.RATE // 4
        level = lambda x: 10 * np.log10(np.mean(x ** 2))
        for seam in (n, 2 * n):
            for x in (scene.mic[:, 0], scene.echo):
                self.assertGreater(level(x[seam:seam + quarter]), level(x[seam - quarter:seam]) - 6, seam)
        self.assertTrue(np.array_equal(scene.reference, np.tile(single.reference, 3)))

    def test_an_echo_that_the_spec_does_not_reproduce_is_refused(self):
        d, truth = self.scene("test", "echo_small_speaker")
        with tempfile.TemporaryDirectory() as out:
            changed = os.path.join(out, "scene")
            os.makedirs(changed)
            for name in ("mic.wav", "reference.wav"):
                os.symlink(os.path.join(d, name), os.path.join(changed, name))
            echo, rate = sf.read(os.path.join(d, "echo.wav"), always_2d=True)
            sf.write(os.path.join(changed, "echo.wav"), 0.99 * echo, rate, subtype="PCM_16")
            with self.assertRaisesRegex(RuntimeError, "no faithful continuation"):
                bargein.looped(changed, 2, os.path.join(out, "looped"), truth)


if __name__ == "__main__":
    unittest.main()


class DuckLoopTests(unittest.TestCase):
    """bargein_duck.py's closed loop: a suspicion ducks the far end from one buffer after it, a decision stops it."""

    def test_volume_curve_ducks_with_ramps_and_a_stop_cuts_the_duck(self):
        import bargein_duck
        v = bargein_duck.volume_curve(4000, 1000, [(1.5, 2.5)], [[1.0, 2.0], [3.0, 3.5]], 0.1)
        self.assertEqual(v[500], 1)
        self.assertAlmostEqual(v[1009], 0.1)  # ramped down over one 10 ms buffer
        self.assertLess(v[1000], 1)
        self.assertGreater(v[1000], 0.9)
        self.assertAlmostEqual(v[1400], 0.1)
        self.assertTrue(np.all(v[1500:2500] == 0))  # the stop, which also ends the first duck
        self.assertEqual(v[2600], 1)  # no duck left after the resume
        self.assertAlmostEqual(v[3200], 0.1)
        self.assertEqual(v[3600], 1)

    def test_next_event_takes_the_earliest_while_playing_a_stop_first_on_a_tie(self):
        import bargein_duck
        self.assertEqual(bargein_duck.next_event([2.0], [1.0, 2.0], 0.0, [], []), ("duck", 1.0))
        self.assertEqual(bargein_duck.next_event([2.0], [2.0], 1.5, [], []), ("stop", 2.0))
        self.assertEqual(bargein_duck.next_event([2.0], [3.0], 0.0, [(1.8, 2.5)], []), ("duck", 3.0))
        self.assertIsNone(bargein_duck.next_event([1.0], [0.5], 1.1, [], []))

    def test_the_loop_acts_on_a_suspicion_then_on_the_decision_it_made_possible(self):
        import bargein_duck

        class Scene:
            rate = 1000
            reference = np.ones(5000)

            def __init__(self):
                self.volumes = []

            def write_volume(self, volume, out_dir):
                self.volumes.append(volume.copy())
                return "mic", "ref"

        scene = Scene()

        def run(mic, reference):
            # The talker (from 1.0 s) is suspected at 1.2 s; decided at 1.5 s only once the far end is ducked there.
            ducked = scene.volumes[-1][1400] < 0.5
            return ([1.5] if ducked else []), [1.2]

        stops, ducks, stopped, ducked, seconds = bargein_duck.duck_loop(run, scene, [[1.0, 2.0]], 0.1, 1.0, "out")
        self.assertEqual(ducks, [1.2])
        self.assertEqual(stops, [1.5])
        self.assertEqual(len(stopped), 1)
        self.assertAlmostEqual(stopped[0][0], 1.51)
        self.assertAlmostEqual(stopped[0][1], 2.5)  # resumes 500 ms after the utterance
        self.assertAlmostEqual(ducked[0][0], 1.21)
        self.assertEqual(seconds, 5.0)
        final = scene.volumes[-1]
        self.assertAlmostEqual(final[1300], 0.1)
        self.assertTrue(np.all(final[1510:2500] == 0))
        self.assertEqual(final[2600], 1)

    def test_echo_only_counts_a_decision_and_plays_on(self):
        import bargein_duck

        class Scene:
            rate = 1000
            reference = np.ones(3000)
            volumes = []

            def write_volume(self, volume, out_dir):
                self.volumes.append(volume.copy())
                return "mic", "ref"

        scene = Scene()
        stops, ducks, stopped, _, _ = bargein_duck.duck_loop(lambda m, r: ([1.5, 2.5], []), scene, [], 0.1, 1.0, "out",
                                                             stops_silence=False)
        self.assertEqual(stops, [1.5, 2.5])
        self.assertEqual((ducks, stopped), ([], []))
        self.assertTrue(np.all(scene.volumes[-1] == 1))


class CoherenceTests(unittest.TestCase):
    """bargein_coherence.coherence: high where the output is the reference delayed within the lags, at the floor
    where it is independent of it or delayed outside them."""

    def setUp(self):
        rng = np.random.default_rng(7)
        self.ref = rng.standard_normal(16000 * 4)
        self.noise = rng.standard_normal(16000 * 4)
        self.frames = len(self.ref) // bargein_coherence.HOP - 4

    def late(self, coh, out):
        with mock.patch.object(bargein_coherence, "FIRST_LAG", 10), mock.patch.object(bargein_coherence, "LAGS", 30), \
                mock.patch.object(bargein_coherence, "SMOOTH_MS", 400.0):
            c = coh(bargein_coherence.stft(out, self.frames), bargein_coherence.stft(self.ref, self.frames))
        return float(np.median(c[200:]))  # after the smoothing has settled

    def delayed(self, ms):
        n = int(16 * ms)
        return np.concatenate([np.zeros(n), self.ref[:-n]])

    def test_a_late_echo_is_coherent_and_a_talker_is_not(self):
        coh = bargein_coherence.coherence
        self.assertGreater(self.late(coh, self.delayed(150) + 0.1 * self.noise), 0.5)
        self.assertLess(self.late(coh, self.noise), 0.08)
        self.assertLess(self.late(coh, self.noise + 0.1 * self.delayed(150)), 0.1)  # a talker 20 dB over a leak

    def test_an_echo_inside_the_first_lags_is_not_counted(self):
        self.assertLess(self.late(bargein_coherence.coherence, self.delayed(30)), 0.08)

    def test_a_veto_takes_away_decisions_over_the_threshold(self):
        truth = {"near_speech": [[2.0, 3.0]], "echo_active": [[0.0, 9.0]]}
        scored = [(truth, [(2.2, 0.03), (6.0, 0.2)]), (truth, [(2.4, 0.15)])]
        rows = {limit: row for limit, *row in bargein_coherence.veto_rows(scored, (None, 0.1))}
        self.assertEqual(rows[None][:2], [2, 2])  # two onsets, both decided
        self.assertEqual(rows[None][3], 1)  # the decision at 6.0 s is false
        self.assertEqual(rows[0.1][:2], [2, 1])  # the 0.15 decision vetoed: its onset missed
        self.assertEqual(rows[0.1][3], 0)  # and the false one (0.2)

    def test_a_decisions_run_ends_at_the_frame_the_detector_judged(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "scenes", "s"))
            os.makedirs(os.path.join(d, "runs", "s", "x"))
            with open(os.path.join(d, "scenes", "s", "truth.json"), "w") as f:
                json.dump({"near_speech": [], "echo_active": []}, f)
            with open(os.path.join(d, "runs", "s", "x", "report.json"), "w") as f:
                json.dump({"output": {"processing_delay_ms": 17}, "barge_ins": [{"ms": 1000, "speech_start_ms": 800}]}, f)
            made, _ = bargein_coherence.scene_decisions(os.path.join(d, "scenes"), os.path.join(d, "runs"), "x", "s",
                                                        np.arange(300, dtype=float))
        self.assertEqual(made[0][0], 1.0)
        self.assertAlmostEqual(made[0][1], np.mean(np.arange(80, 98)))  # frames 80-97: 1000 - 17 ms ends in 98
