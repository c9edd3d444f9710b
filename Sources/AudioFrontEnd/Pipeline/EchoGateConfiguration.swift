extension FrontEndConfiguration {
    /// How residual echo is kept from counting as near-end speech while the far end plays: the settings of the
    /// front end's echo speech gate (see ``VoiceDetection/echoGate``). A value type: build it on any thread;
    /// the gate itself runs on the processing thread and is real-time safe.
    public struct EchoGate: Sendable, Equatable {
        /// How long echo may follow the reference (the room's tail), ms (0...5000, multiple of 10).
        public var holdMilliseconds: Int
        /// After playback resumes from a pause longer than the hold, no frame counts as speech for this long,
        /// ms (0...5000, multiple of 10).
        public var resumeMilliseconds: Int
        /// After the hold, speech must still stand above the residual level for this long, ms (0...10000,
        /// multiple of 10).
        public var afterPlaybackMilliseconds: Int
        /// Running echo reduction needed before a talker can be told from echo, dB (0...60).
        public var convergedDecibels: Float
        /// A frame counts as speech only if its level fell through the canceller by this much less than the
        /// running echo reduction, dB (0...60).
        public var echoMarginDecibels: Float
        /// During playback speech must stand this far above the running residual-echo level, dB (0...60).
        /// Default 12 (was 8, set on `doubletalk_ser0db_16k.wav`): on the scenario matrix's tuning half, with
        /// every branch of 2026-12-01 merged, 8 / 10 / 11 / 12 / 14 dB give echo-only false-active 4.6 / 2.8 /
        /// 2.3 / 1.7 / 1.1 % mean and 1.21 / 1.21 / 1.01 / 0.90 / 0.50 false starts per minute, at double-talk
        /// and rate onsets within 150 ms of 0.70 / 0.69 / 0.63 / 0.61 / 0.53: 12 is the smallest that meets
        /// the mean and per-minute targets there. What leaks through in reverberant rooms (RT60 0.9 s: 46 % of
        /// echo-only frames at 8 dB, 10 % at 12) is the tail the 128 ms filter does not predict. Re-measured
        /// there with the 160 ms speex tail (branch echo merged): 8 / 10 / 12 / 14 dB give 1.7 / 0.8 / 0.2 / 0.1 %
        /// mean, worst scene 35.5 / 20.4 / 4.2 / 3.1 % (echo_rt09), 0.90 / 0.50 / 0.10 / 0.10 false starts per
        /// minute, onsets 0.73 / 0.72 / 0.64 / 0.56: 12 stays, the smallest that meets all three echo targets.
        public var residualMarginDecibels: Float
        /// While the far end plays (within the hold), a speech segment starts only after this much speech the
        /// gate allowed, instead of the segmenter's onset, ms (10...2000, multiple of 10). Default 400: residual
        /// echo leaks through the gate in bursts shorter than that (canceller transients, reverberant tails),
        /// a talker does not. The start is back-dated (see ``startBackdateMilliseconds``), so only the moment the
        /// start is known moves; a barge-in is known about 400-500 ms after it began.
        public var playbackOnsetMilliseconds: Int
        /// Frames the gate or detector rejects that a playback onset survives, in all, ms (0...1000, multiple of
        /// 10). Default 100: in double talk the gate drops single frames of the talker where the echo is loud.
        public var playbackOnsetGapMilliseconds: Int
        /// A segment start is back-dated over the detector's own run of speech before the first frame the gate
        /// allowed, by at most this much (never before the previous segment's end), ms (0...2000, multiple of
        /// 10). Default 400: the gate passes a talker's first syllable late when the echo is loud.
        public var startBackdateMilliseconds: Int

        /// The defaults of `playbackOnsetMilliseconds` (400), `playbackOnsetGapMilliseconds` (100),
        /// `startBackdateMilliseconds` (400) and `residualMarginDecibels` (12) were chosen on the scenario matrix's
        /// tuning half (Scripts/scenarios, `--half tune`, the VAD rows); the others on `doubletalk_ser0db_16k.wav`
        /// (FrontEndEchoTests).
        public init(holdMilliseconds: Int = 300, resumeMilliseconds: Int = 300, afterPlaybackMilliseconds: Int = 2000,
                    convergedDecibels: Float = 15, echoMarginDecibels: Float = 10, residualMarginDecibels: Float = 12,
                    playbackOnsetMilliseconds: Int = 400, playbackOnsetGapMilliseconds: Int = 100,
                    startBackdateMilliseconds: Int = 400) {
            self.holdMilliseconds = holdMilliseconds
            self.resumeMilliseconds = resumeMilliseconds
            self.afterPlaybackMilliseconds = afterPlaybackMilliseconds
            self.convergedDecibels = convergedDecibels
            self.echoMarginDecibels = echoMarginDecibels
            self.residualMarginDecibels = residualMarginDecibels
            self.playbackOnsetMilliseconds = playbackOnsetMilliseconds
            self.playbackOnsetGapMilliseconds = playbackOnsetGapMilliseconds
            self.startBackdateMilliseconds = startBackdateMilliseconds
        }

        /// Throws ``AudioFrontEndError`` (invalid configuration) naming the first setting out of range.
        func validate() throws {
            for (value, limit, name) in [(holdMilliseconds, 5000, "echo gate holdMilliseconds"),
                                         (resumeMilliseconds, 5000, "echo gate resumeMilliseconds"),
                                         (afterPlaybackMilliseconds, 10000, "echo gate afterPlaybackMilliseconds"),
                                         (playbackOnsetGapMilliseconds, 1000, "echo gate playbackOnsetGapMilliseconds"),
                                         (startBackdateMilliseconds, 2000, "echo gate startBackdateMilliseconds")] {
                try AudioFrontEndError.check(value, in: 0...limit, name)
                try AudioFrontEndError.checkMultiple(value, of: 10, name)
            }
            try AudioFrontEndError.check(playbackOnsetMilliseconds, in: 10...2000, "echo gate playbackOnsetMilliseconds")
            try AudioFrontEndError.checkMultiple(playbackOnsetMilliseconds, of: 10, "echo gate playbackOnsetMilliseconds")
            for (value, name) in [(convergedDecibels, "echo gate convergedDecibels"),
                                  (echoMarginDecibels, "echo gate echoMarginDecibels"),
                                  (residualMarginDecibels, "echo gate residualMarginDecibels")] {
                try AudioFrontEndError.check(value, in: 0...60, name)
            }
        }
    }
}
