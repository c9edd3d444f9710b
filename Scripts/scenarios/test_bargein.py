"""The barge-in scoring of bargein.py on hand-made truths."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bargein  # noqa: E402


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


if __name__ == "__main__":
    unittest.main()
