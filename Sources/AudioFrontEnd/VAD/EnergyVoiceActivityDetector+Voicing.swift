extension EnergyVoiceActivityDetector.Configuration {
    /// Voiced frames in steady noise: a frame whose periodicity (``VoicingMeter``: the highest normalized
    /// autocorrelation over 60–400 Hz pitch lags of the detector's band, 40 ms) stands ``periodicityAboveNoise``
    /// above the noise's own (learned with the noise mean) is speech at only ``marginDecibels`` over the noise
    /// mean instead of the detector's full margin, while the noise is steady (its deviation, see
    /// ``EnergyVoiceActivityDetector/noiseDeviationDecibels``, at most ``maximumNoiseDeviationDecibels``).
    /// In pink noise at 0 dB SNR voiced speech stands only 1–6 dB above the noise, under the 5 dB margin, but
    /// pink noise has no pitch; babble has other talkers' pitch, and its deviation keeps the rule off.
    /// A value type: any thread.
    public struct Voicing: Hashable, Sendable {
        /// How far a voiced frame's periodicity must exceed the noise's, 0...1.
        public var periodicityAboveNoise: Float
        /// The margin over the noise mean a voiced frame needs, dB, 0...20.
        public var marginDecibels: Float
        /// The rule applies while the noise deviation is at most this, dB, 0...20.
        public var maximumNoiseDeviationDecibels: Float
        /// The rule applies while the noise's own periodicity (``EnergyVoiceActivityDetector/noisePeriodicity``)
        /// is at most this, 0...1: noise without pitch.
        public var maximumNoisePeriodicity: Float
        /// Upper edge of the band the periodicity is measured in, Hz, 300...4000.
        public var cutoffHz: Double
        /// Whether the rule applies while the far end plays too. In a front end with echo cancellation the
        /// detector is told when the far end plays (``EnergyVoiceActivityDetector/suspendsVoicing``); residual echo
        /// is voiced speech, so there a lower margin lets echo through. Default true.
        public var whilePlaying = true

        /// Defaults chosen on the scenario matrix's tuning half only (Scripts/scenarios, `--half tune --vad-only`,
        /// the 7 near-end-only scenes and 16 extra tuning-pool renderings from `generate.py --extra-vad 8`):
        /// 0.15, 1 dB, 1.8 dB, 0.4, 1000 Hz. Pink 0 dB F1 (9 scenes) 0.842 -> 0.928, babble 10 dB (9) 0.857 = 0.857.
        /// Not the detector's own default (it does not know when a far end plays); the front end's default
        /// detector runs it outside playback (``FrontEndConfiguration/VoiceDetection/quietVoicing``): applied
        /// during playback too, it cost double-talk onsets (Scripts/scenarios/README.md, "Voicing rule").
        public init(periodicityAboveNoise: Float = 0.15, marginDecibels: Float = 1,
                    maximumNoiseDeviationDecibels: Float = 1.8, maximumNoisePeriodicity: Float = 0.4, cutoffHz: Double = 1000) {
            self.periodicityAboveNoise = periodicityAboveNoise
            self.marginDecibels = marginDecibels
            self.maximumNoiseDeviationDecibels = maximumNoiseDeviationDecibels
            self.maximumNoisePeriodicity = maximumNoisePeriodicity
            self.cutoffHz = cutoffHz
        }

        /// Throws ``AudioFrontEndError`` (invalid configuration) naming the first setting out of range.
        func validate() throws {
            try AudioFrontEndError.check(periodicityAboveNoise, in: 0...1, "voicing periodicityAboveNoise")
            try AudioFrontEndError.check(marginDecibels, in: 0...20, "voicing marginDecibels")
            try AudioFrontEndError.check(maximumNoiseDeviationDecibels, in: 0...20, "voicing maximumNoiseDeviationDecibels")
            try AudioFrontEndError.check(maximumNoisePeriodicity, in: 0...1, "voicing maximumNoisePeriodicity")
            try AudioFrontEndError.check(cutoffHz, in: 300...4000, "voicing cutoffHz")
        }

        /// Whether a frame counts as voiced speech under this rule. Real-time safe.
        func isVoiced(periodicity: Float, noisePeriodicity: Float, energyAboveNoise: Float, noiseDeviation: Float) -> Bool {
            noiseDeviation <= maximumNoiseDeviationDecibels && noisePeriodicity <= maximumNoisePeriodicity
                && energyAboveNoise > marginDecibels
                && periodicity > noisePeriodicity + periodicityAboveNoise
        }
    }
}
