/// The per-frame side of ``FrontEndConfiguration/SpeechEdges``: whether the search runs on a frame (steady noise)
/// and whether the frame stands above the lower threshold, from what the energy detector measured in it; it also
/// follows the recent peak of what the detector called speech. Fed by ``OutputStages`` outside playback, on frames
/// the echo gate allows.
///
/// Real-time safe (a value type of a few numbers); processing thread.
struct SpeechEdgeSearch {
    let settings: FrontEndConfiguration.SpeechEdges
    /// The search's limits in frames, put into the segmenter's onset on frames where it runs.
    let leadFrames: Int, trailFrames: Int, gapFrames: Int
    /// The recent peak (dBFS) of what the detector called speech; its memory falls 10 dB a second.
    private var speechPeak: Float = -160

    init(_ settings: FrontEndConfiguration.SpeechEdges) {
        self.settings = settings
        leadFrames = settings.maximumLeadMilliseconds / 10
        trailFrames = settings.maximumTrailMilliseconds / 10
        gapFrames = settings.maximumGapMilliseconds / 10
    }

    /// Takes the frame `detector` just judged: nil when the search is off for it (the noise's deviation above
    /// ``FrontEndConfiguration/SpeechEdges/maximumNoiseDeviationDecibels``), else whether it stands above the
    /// edge threshold (the noise mean plus the margin, the detector's minimum level, and within the peak range of
    /// the speech's recent peak).
    mutating func judge(_ detector: EnergyVoiceActivityDetector) -> Bool? {
        let energy = detector.frameDecibels
        speechPeak = max(detector.isSpeech ? energy : -160, speechPeak - 0.1)
        guard detector.noiseDeviationDecibels <= settings.maximumNoiseDeviationDecibels else { return nil }
        return energy > speechPeak - settings.peakRangeDecibels && energy >= detector.configuration.minimumSpeechDecibels
            && energy > detector.noiseDecibels + settings.marginDecibels
    }
}
