extension FrontEndConfiguration {
    /// A longer segmenter onset in fluctuating noise (babble, street), outside playback: the onset (and the run
    /// that counts as speech again inside a segment) grows by ``millisecondsPerDecibel`` for each dB the energy
    /// detector's noise deviation (``EnergyVoiceActivityDetector/noiseDeviationDecibels``) stands above
    /// ``deviationDecibels``, up to ``maximumMilliseconds``. Stationary noise (pink, fan, hum: a deviation under
    /// about 1.6 dB) keeps the segmenter's onset, so weak speech in it still starts segments; in babble the
    /// short bursts of other talkers no longer start segments or keep one open across a pause. Starts stay
    /// back-dated over the detector's run (``EchoGate/startBackdateMilliseconds``), so only the moment a start is
    /// known moves. Used with the energy detector only. A value type: any thread.
    public struct FluctuatingNoiseOnset: Sendable, Equatable {
        /// Noise deviation above which the onset grows, dB (0...20).
        public var deviationDecibels: Float
        /// Onset added per dB of deviation above ``deviationDecibels``, ms (0...1000).
        public var millisecondsPerDecibel: Float
        /// The longest onset, ms (10...500, multiple of 10); the segmenter's own onset if that is longer.
        public var maximumMilliseconds: Int

        /// Defaults chosen on the scenario matrix's tuning half (Scripts/scenarios, `--half tune --vad-only`,
        /// the near-end-only scenes): 1.8 dB, 200 ms/dB, 300 ms. The tuning half's deviations: pink, fan and
        /// kitchen noise 0.6-1.2 dB median (90th percentile ≤ 1.55 dB), babble and street 2.0-2.3 dB.
        public init(deviationDecibels: Float = 1.8, millisecondsPerDecibel: Float = 200, maximumMilliseconds: Int = 300) {
            self.deviationDecibels = deviationDecibels
            self.millisecondsPerDecibel = millisecondsPerDecibel
            self.maximumMilliseconds = maximumMilliseconds
        }

        /// Throws ``AudioFrontEndError`` (invalid configuration) naming the first setting out of range.
        func validate() throws {
            try AudioFrontEndError.check(deviationDecibels, in: 0...20, "fluctuating noise onset deviationDecibels")
            try AudioFrontEndError.check(millisecondsPerDecibel, in: 0...1000, "fluctuating noise onset millisecondsPerDecibel")
            try AudioFrontEndError.check(maximumMilliseconds, in: 10...500, "fluctuating noise onset maximumMilliseconds")
            try AudioFrontEndError.checkMultiple(maximumMilliseconds, of: 10, "fluctuating noise onset maximumMilliseconds")
        }

        /// The onset in frames for a noise deviation of `deviation` dB, never below `baseFrames`. Real-time safe.
        func frames(deviation: Float, baseFrames: Int) -> Int {
            let extra = max(0, deviation - deviationDecibels) * millisecondsPerDecibel / 10
            return max(baseFrames, min(maximumMilliseconds / 10, baseFrames + Int(extra.rounded())))
        }
    }
}
