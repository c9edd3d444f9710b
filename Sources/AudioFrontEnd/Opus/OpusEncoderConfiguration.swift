extension Opus.Encoder {
    /// Settings for an ``Opus/Encoder``; the defaults suit uploading 16 kHz mono speech to a speech recogniser.
    ///
    /// Defaults and why:
    /// - 16 kHz mono, ``Opus/Application/voip``, ``Opus/Signal/voice``: wideband speech is what recognisers
    ///   are trained on, and the VOIP application tunes SILK for intelligibility.
    /// - 24 kb/s, ``Opus/BitrateMode/variable``: libopus documents 16–20 kb/s as the wideband speech sweet
    ///   spot; 24 kb/s buys headroom for noisy or far-field speech for about 3 kB/s while someone talks.
    ///   Measured on nearend_16k.wav (correlation above 300 Hz, see OpusTests): 0.91 at 16 kb/s, 0.95 at
    ///   24 kb/s, 0.97 at 32 kb/s; about 58 bytes per 20 ms speech packet at 24 kb/s and 8 in pauses.
    ///   Unconstrained VBR gives the best quality per byte, and the upload runs over TCP, where bursts cost nothing.
    /// - 20 ms packets: the usual speech packet; shorter packets cost more header bytes and CPU per second, and
    ///   2.5/5 ms packets force the CELT mode, which is poor for speech at these rates.
    /// - Complexity 5: half the CPU of complexity 10 (measured about 78 against 156 µs CPU per 20 ms packet on
    ///   speech here); the round-trip measure reads 0.95 at both 0 and 10, higher complexity buying mostly
    ///   perceptual refinements, so the middle keeps them at half the cost.
    /// - No DTX, no in-band FEC, 0 % expected loss: a TCP upload loses nothing, and a recogniser wants a
    ///   continuous stream.
    public struct Configuration: Sendable, Hashable {
        /// Input sample rate: 8000, 12000, 16000, 24000 or 48000 Hz. Default 16000.
        public var sampleRate: Int = 16000
        /// 1 (mono) or 2 (interleaved stereo). Default 1.
        public var channelCount: Int = 1
        /// What to optimise for. Default ``Opus/Application/voip``.
        public var application: Opus.Application = .voip
        /// Target bitrate in bits per second, 6000...510000. Default 24000.
        public var bitrate: Int = 24000
        /// CPU spent for quality, 0...10. Default 5.
        public var complexity: Int = 5
        /// Packet duration; every ``Opus/Encoder/encode(frame:into:)`` call takes this much audio. Default 20 ms.
        public var frameDuration: Opus.FrameDuration = .milliseconds20
        /// Constant, constrained-variable or variable bitrate. Default ``Opus/BitrateMode/variable``.
        public var bitrateMode: Opus.BitrateMode = .variable
        /// Discontinuous transmission: in silence, packets shrink to 1–2 bytes that need not be sent. Default off.
        public var discontinuousTransmission: Bool = false
        /// In-band forward error correction: each packet also carries a coarse copy of the one before, which
        /// a decoder can use when that one is lost (SILK and hybrid modes only). Default off.
        public var inbandFEC: Bool = false
        /// Expected packet loss in percent, 0...100: with FEC on, the encoder spends more on redundancy. Default 0.
        public var expectedPacketLossPercent: Int = 0
        /// A hint about the input. Default ``Opus/Signal/voice``.
        public var signal: Opus.Signal = .voice

        public init() {}

        /// Samples per channel the encoder takes per packet.
        public var frameLength: Int { frameDuration.samples(atSampleRate: sampleRate) }

        /// Checks every value against its documented range.
        /// - Throws: ``AudioFrontEndError`` with code ``AudioFrontEndError/Code/unsupportedSampleRate`` or
        ///   ``AudioFrontEndError/Code/invalidConfiguration`` naming the first value out of range.
        public func validate() throws {
            try Opus.checkSampleRate(sampleRate, for: "The Opus encoder")
            try Opus.checkChannelCount(channelCount, for: "The Opus encoder")
            try AudioFrontEndError.check(bitrate, in: 6000...510_000, "Opus bitrate (bits per second)")
            try AudioFrontEndError.check(complexity, in: 0...10, "Opus complexity")
            try AudioFrontEndError.check(expectedPacketLossPercent, in: 0...100, "Opus expected packet loss (%)")
        }
    }
}
