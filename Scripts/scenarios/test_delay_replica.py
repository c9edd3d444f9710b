#!/usr/bin/env python3
"""Tests of delay_replica.py: it finds a known delay, and it shows the first-estimate weakness it was written to
study (chance peaks at short lags while the reference has just started after silence)."""
import os
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import delay_replica as D  # noqa: E402

RATE = 16000


def far_end(seed):
    """1 s of silence, then 4 s of white noise: a far end that starts."""
    g = np.random.default_rng(seed)
    ref = np.zeros(RATE * 5)
    ref[RATE:] = g.normal(0, 3000, RATE * 4)
    return ref, g


class DelayReplicaTests(unittest.TestCase):
    def test_finds_a_known_delay_under_both_rules(self):
        for seed in range(3):
            ref, g = far_end(seed)
            mic = 0.3 * np.concatenate([np.zeros(3200), ref[:-3200]]) + g.normal(0, 30, len(ref))
            series = D.correlation_series(mic.astype(np.int16), ref.astype(np.int16), RATE, until=4)
            for rule in (D.flat_threshold, D.early_threshold):
                t, lag = D.first_estimate(series, rule)
                self.assertIsNotNone(t, f"seed {seed}: no estimate")
                self.assertAlmostEqual(lag, 200.0, delta=0.5, msg=f"seed {seed}")
                self.assertLess(t, 2.0, f"seed {seed}: the estimate came late")
            # After a few seconds the echo's peak stands far above the flat threshold.
            self.assertGreater(series[-1][1], 20)

    def test_a_reference_that_has_just_started_makes_short_lag_chance_peaks(self):
        # A mic of noise alone (no echo): under the flat threshold the replica, like the front end, takes a chance
        # peak at a lag shorter than the time the far end has played; the early schedule takes none.
        taken = 0
        for seed in range(6):
            ref, g = far_end(seed)
            mic = g.normal(0, 100, len(ref))
            series = D.correlation_series(mic.astype(np.int16), ref.astype(np.int16), RATE, until=4)
            t, lag = D.first_estimate(series)
            if t is not None:
                taken += 1
                self.assertLess(lag, (t - 1.0) * 1000, f"seed {seed}: a chance peak beyond the far end's age")
            self.assertEqual(D.first_estimate(series, D.early_threshold), (None, None), f"seed {seed}")
        self.assertGreaterEqual(taken, 4, "the weakness is not shown")

    def test_early_threshold_falls_to_the_flat_one(self):
        self.assertAlmostEqual(D.early_threshold(1), 28.0)
        self.assertGreater(D.early_threshold(5), D.early_threshold(9))
        self.assertLess(D.early_threshold(40), 9.03)
        self.assertAlmostEqual(D.early_threshold(100), D.FLAT_THRESHOLD, places=4)


if __name__ == "__main__":
    unittest.main()
