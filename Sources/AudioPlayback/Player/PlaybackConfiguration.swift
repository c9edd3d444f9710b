import AudioFrontEnd

/// Settings of a ``SynthesisPlayer``. A value type: build it on any thread.
public struct PlaybackConfiguration: Sendable, Equatable {
    /// The device's rate, Hz (8000...48000). Decoded speech is resampled to it. Default 16000.
    public var sampleRate: Int
    /// The device's channels, 1 or 2 (the mono speech in each). Default 1.
    public var channelCount: Int
    /// Decoded audio held between the decoding thread and the device, ms (1000...60000). Default 3000: several
    /// seconds of slack for a network that pauses, 96 KiB at 16 kHz.
    public var bufferMilliseconds: Int
    /// Compressed input held before it is decoded, bytes (64 KiB...256 MiB). Synthesis arrives 2–10× faster
    /// than real time, so this holds whole answers: default 16 MiB (about 5.8 minutes of 24 kHz pcm, hours of
    /// opus). Input beyond it is refused and counted (``PlaybackCounts/refusedInputBytes``).
    public var inputCapacityBytes: Int
    /// The most frames one render piece handles; longer render calls are split. 64...16384, default 4800
    /// (100 ms at 48 kHz). Sizes the render scratch at creation.
    public var maximumRenderFrames: Int
    /// The mic re-arm hook: ``PlaybackEvent/micRearmed(utterance:)`` follows ``PlaybackEvent/drained(utterance:position:)``
    /// or ``PlaybackEvent/stopped(utterance:position:)`` once this much more time was rendered with nothing
    /// playing, ms (0...5000). Default 600, the front end's ``FrontEndConfiguration/echoTailAfterPlaybackMilliseconds``:
    /// the room's tail has died away by then. The barge-in logic decides what re-arming means.
    public var rearmAfterMilliseconds: Int
    /// speexdsp resampler quality 0...10, default 5 (see ``SpeexResampler/Configuration/quality``).
    public var resamplerQuality: Int

    public init(sampleRate: Int = 16000, channelCount: Int = 1, bufferMilliseconds: Int = 3000,
                inputCapacityBytes: Int = 16 << 20, maximumRenderFrames: Int = 4800,
                rearmAfterMilliseconds: Int = 600, resamplerQuality: Int = 5) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bufferMilliseconds = bufferMilliseconds
        self.inputCapacityBytes = inputCapacityBytes
        self.maximumRenderFrames = maximumRenderFrames
        self.rearmAfterMilliseconds = rearmAfterMilliseconds
        self.resamplerQuality = resamplerQuality
    }

    /// Throws ``AudioFrontEndError/Code/invalidConfiguration`` (or `unsupportedSampleRate`) naming the value out of range.
    func validate() throws {
        guard SampleRates.supported.contains(sampleRate) else {
            throw AudioFrontEndError(.unsupportedSampleRate, "playback takes 8000...48000 Hz, not \(sampleRate) Hz")
        }
        let checks: [(String, Int, ClosedRange<Int>)] = [
            ("channelCount", channelCount, 1...2), ("bufferMilliseconds", bufferMilliseconds, 1000...60000),
            ("inputCapacityBytes", inputCapacityBytes, (64 << 10)...(256 << 20)),
            ("maximumRenderFrames", maximumRenderFrames, 64...16384),
            ("rearmAfterMilliseconds", rearmAfterMilliseconds, 0...5000), ("resamplerQuality", resamplerQuality, 0...10),
        ]
        for (name, value, range) in checks where !range.contains(value) {
            throw AudioFrontEndError(.invalidConfiguration, "playback \(name) must be in \(range.lowerBound)...\(range.upperBound), not \(value)")
        }
    }
}
