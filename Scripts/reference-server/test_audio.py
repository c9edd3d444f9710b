"""Tests of the reference server's audio decoding: Ogg pages and CRC, Ogg Opus round trips, resampling."""

from __future__ import annotations

import random
import unittest

import numpy as np

import support as s
from refserver.audio import PcmDecoder, Resampler, WavDecoder
from refserver.errors import AudioError
from refserver.ogg import OggPageReader
from refserver.opus import OggOpusDecoder


def decode_in_pieces(data: bytes, seed: int, largest: int) -> np.ndarray:
    rng = random.Random(seed)
    decoder = OggOpusDecoder()
    out, position = [], 0
    while position < len(data):
        size = rng.randint(1, largest)
        out.append(decoder.feed(data[position:position + size]))
        position += size
    decoder.finish()
    return np.concatenate(out)


class OggOpusTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pcm = np.frombuffer(s.flite_pcm("turn on the kitchen lights"), dtype="<i2")
        cls.opus = s.ogg_opus(cls.pcm.tobytes())

    def test_every_opusenc_page_passes_and_any_flipped_body_bit_fails_the_crc(self):
        pages = OggPageReader().feed(self.opus)
        self.assertGreater(len(pages), 3)
        body_bytes = [page.offset + 27 + len(page.lacing) + i for page in pages for i in range(len(page.body))]
        rng = random.Random(7)
        for position in rng.sample(body_bytes, 40):
            broken = bytearray(self.opus)
            broken[position] ^= 1 << rng.randrange(8)
            with self.subTest(position=position):
                with self.assertRaises(AudioError) as caught:
                    OggPageReader().feed(bytes(broken))
                self.assertIn("CRC mismatch", caught.exception.message)

    def test_round_trip_keeps_length_and_waveform(self):
        decoded = decode_in_pieces(self.opus, seed=1, largest=len(self.opus))
        self.assertEqual(decoded.size, self.pcm.size, "pre-skip and end trimming must restore the length")
        a = self.pcm.astype(np.float64)
        b = decoded.astype(np.float64)
        correlation = float(np.dot(a, b) / np.sqrt(np.dot(a, a) * np.dot(b, b)))
        self.assertGreater(correlation, 0.9, f"correlation of the Opus round trip at 32 kbit/s: {correlation:.3f}")

    def test_arbitrary_chunking_gives_identical_samples(self):
        whole = decode_in_pieces(self.opus, seed=0, largest=len(self.opus))
        for seed, largest in ((1, 1), (2, 7), (3, 300), (4, 5000)):
            with self.subTest(seed=seed, largest=largest):
                self.assertTrue(np.array_equal(decode_in_pieces(self.opus, seed, largest), whole))

    def test_structure_errors(self):
        reader_pages = OggPageReader().feed(self.opus)
        second = reader_pages[1].offset
        third = reader_pages[2].offset
        cases = {
            "missing tags page": self.opus[:second] + self.opus[third:],
            "page missing (sequence gap)": self.opus[:third] + self.opus[reader_pages[3].offset:],
        }
        for name, data in cases.items():
            with self.subTest(name):
                with self.assertRaises(AudioError) as caught:
                    decoder = OggOpusDecoder()
                    decoder.feed(data)
                    decoder.finish()
                self.assertTrue(caught.exception.message)


class PcmTests(unittest.TestCase):
    def test_resampler_keeps_frequency_and_length(self):
        rate = 8000
        t = np.arange(rate * 2) / rate
        tone = (8000 * np.sin(2 * np.pi * 440 * t)).astype(np.int16)
        whole = Resampler(rate).process(tone)
        resampler = Resampler(rate)
        pieces = np.concatenate([resampler.process(tone[i:i + 77]) for i in range(0, tone.size, 77)])
        self.assertLessEqual(abs(whole.size - 2 * tone.size), 2)
        self.assertTrue(np.array_equal(whole, pieces[:whole.size]))
        spectrum = np.abs(np.fft.rfft(whole.astype(np.float64)))
        peak = np.argmax(spectrum) * 16000 / whole.size
        self.assertAlmostEqual(peak, 440, delta=2)

    def test_pcm_carries_odd_bytes(self):
        data = np.arange(-500, 500, dtype="<i2").tobytes()
        decoder = PcmDecoder(16000)
        out = np.concatenate([decoder.feed(data[i:i + 3]) for i in range(0, len(data), 3)])
        decoder.finish()
        self.assertTrue(np.array_equal(out, np.arange(-500, 500, dtype=np.int16)))

    def test_wav_header_split_anywhere(self):
        pcm = np.arange(1000, dtype="<i2")
        data = s.wav_bytes(pcm.tobytes())
        decoder = WavDecoder(16000)
        out = np.concatenate([decoder.feed(data[i:i + 5]) for i in range(0, len(data), 5)])
        decoder.finish()
        self.assertTrue(np.array_equal(out, pcm))
        self.assertEqual(decoder.sample_rate, 16000)


if __name__ == "__main__":
    unittest.main()
