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
        public var residualMarginDecibels: Float

        public init(holdMilliseconds: Int = 300, resumeMilliseconds: Int = 300, afterPlaybackMilliseconds: Int = 2000,
                    convergedDecibels: Float = 15, echoMarginDecibels: Float = 10, residualMarginDecibels: Float = 8) {
            self.holdMilliseconds = holdMilliseconds
            self.resumeMilliseconds = resumeMilliseconds
            self.afterPlaybackMilliseconds = afterPlaybackMilliseconds
            self.convergedDecibels = convergedDecibels
            self.echoMarginDecibels = echoMarginDecibels
            self.residualMarginDecibels = residualMarginDecibels
        }

        /// Throws ``AudioFrontEndError`` (invalid configuration) naming the first setting out of range.
        func validate() throws {
            for (value, limit, name) in [(holdMilliseconds, 5000, "echo gate holdMilliseconds"),
                                         (resumeMilliseconds, 5000, "echo gate resumeMilliseconds"),
                                         (afterPlaybackMilliseconds, 10000, "echo gate afterPlaybackMilliseconds")] {
                try AudioFrontEndError.check(value, in: 0...limit, name)
                try AudioFrontEndError.checkMultiple(value, of: 10, name)
            }
            for (value, name) in [(convergedDecibels, "echo gate convergedDecibels"),
                                  (echoMarginDecibels, "echo gate echoMarginDecibels"),
                                  (residualMarginDecibels, "echo gate residualMarginDecibels")] {
                try AudioFrontEndError.check(value, in: 0...60, name)
            }
        }
    }
}
