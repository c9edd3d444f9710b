extension FrontEndConfiguration {
    /// Where a speech segment begins and ends, found with a second, lower threshold (outside playback, energy
    /// detector only): a segment still *starts* only when the detector's margin and the onset are met, but its
    /// start is back-dated over the frames just before that stand at least ``marginDecibels`` above the
    /// detector's noise mean (up to ``maximumLeadMilliseconds``), and its end is moved past the last speech frame
    /// over the frames after it that do (up to ``maximumTrailMilliseconds``). The two-threshold endpoint search of
    /// Rabiner and Sambur: in loud noise a sentence's first and last syllables stand only a few dB above the noise,
    /// under the detector's margin, and were cut off. Only the segment times move: the detector's decisions, the
    /// moment a start or end is known, the barge-in decision and the audio are unchanged (with a maximum segment
    /// length, a start back-dated by the lead reaches that length sooner). Frames the detector calls speech count
    /// as such frames too. While the far end plays, and in fluctuating noise, the search is off and the segmenter
    /// works as without it. Used with the energy detector only. A value type: any thread.
    public struct SpeechEdges: Sendable, Equatable {
        /// How far above the energy detector's noise mean a frame's band energy must stand to extend a segment,
        /// dB (0...20).
        public var marginDecibels: Float
        /// The furthest a start is back-dated before the first speech frame, ms (0...1000, multiple of 10).
        public var maximumLeadMilliseconds: Int
        /// The furthest an end is moved past the last speech frame, ms (0...1000, multiple of 10); never further
        /// than the segmenter's end silence, which ends the segment.
        public var maximumTrailMilliseconds: Int
        /// Frames under the threshold a run above it may include, ms (0...100, multiple of 10).
        public var maximumGapMilliseconds: Int
        /// The search is off while the noise's deviation (``EnergyVoiceActivityDetector/noiseDeviationDecibels``)
        /// stands above this, dB (0...20): in fluctuating noise (babble, street) frames above the noise mean are
        /// mostly noise.
        public var maximumNoiseDeviationDecibels: Float
        /// A frame extends a segment only within this many dB of the speech's recent peak (the loudest frame the
        /// detector called speech outside playback, its memory falling 10 dB a second; for a lead, the previous
        /// sentence's), dB (0...120): in a quiet room a talker's own reverberation stands above the noise long
        /// after the sentence.
        public var peakRangeDecibels: Float

        /// The defaults, chosen on the scenario matrix's tuning half and its extra renderings (Scripts/scenarios,
        /// `--half tune --vad-only`; 9 pink 0 dB, 9 babble 10 dB, the 5 near-end-only scenes, 23 double-talk and
        /// the scenes with a far end): 0.5 dB, 200 ms, 200 ms, 30 ms, 1.8 dB, 15 dB. Pink 0 dB F1 0.928 -> 0.941
        /// (onsets within 150 ms 0.70 -> 0.86), babble 10 dB 0.857 unchanged, near-end-only 0.903 unchanged; every
        /// row with a far end unchanged. 1 dB: pink 0.939; no gap: 0.933; no deviation limit: babble 0.852;
        /// 300-500 ms limits: no better; no peak range: near-end-only 0.900, and on `doubletalk_ser0db_16k.wav`
        /// (noise at -60 dBFS) an end moved 190 ms into the talker's reverberation (30 dB or less: at the label).
        public init(marginDecibels: Float = 0.5, maximumLeadMilliseconds: Int = 200, maximumTrailMilliseconds: Int = 200,
                    maximumGapMilliseconds: Int = 30, maximumNoiseDeviationDecibels: Float = 1.8,
                    peakRangeDecibels: Float = 15) {
            self.peakRangeDecibels = peakRangeDecibels
            self.maximumNoiseDeviationDecibels = maximumNoiseDeviationDecibels
            self.marginDecibels = marginDecibels
            self.maximumLeadMilliseconds = maximumLeadMilliseconds
            self.maximumTrailMilliseconds = maximumTrailMilliseconds
            self.maximumGapMilliseconds = maximumGapMilliseconds
        }

        /// Throws ``AudioFrontEndError`` (invalid configuration) naming the first setting out of range.
        func validate() throws {
            for (value, limit, name) in [(maximumLeadMilliseconds, 1000, "maximumLeadMilliseconds"),
                                         (maximumTrailMilliseconds, 1000, "maximumTrailMilliseconds"),
                                         (maximumGapMilliseconds, 100, "maximumGapMilliseconds")] {
                try AudioFrontEndError.check(value, in: 0...limit, "speech edges " + name)
                try AudioFrontEndError.checkMultiple(value, of: 10, "speech edges " + name)
            }
            for (value, limit, name) in [(marginDecibels, 20, "marginDecibels"),
                                         (maximumNoiseDeviationDecibels, 20, "maximumNoiseDeviationDecibels"),
                                         (peakRangeDecibels, 120, "peakRangeDecibels")] as [(Float, Float, String)] {
                try AudioFrontEndError.check(value, in: 0...limit, "speech edges " + name)
            }
        }
    }
}
