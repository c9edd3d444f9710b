/// The null noise suppressor ("off"): leaves the frame as it is.
///
/// Threading: any thread; it holds no state. Real-time safe.
public final class PassthroughNoiseSuppressor: NoiseSuppressor, @unchecked Sendable {
    /// Settings of a ``PassthroughNoiseSuppressor``.
    public typealias Configuration = PassthroughConfiguration

    /// The settings the stage was created with.
    public let configuration: Configuration
    public var sampleRate: Int { configuration.sampleRate }
    public let frameLength: Int
    /// 0: the frame is left as it is.
    public var latencySamples: Int { 0 }

    /// - Throws: ``AudioFrontEndError/Code/unsupportedSampleRate`` for a rate outside 8000...48000 Hz or without
    ///   whole 10 ms frames.
    public init(configuration: Configuration = Configuration()) throws {
        frameLength = try SampleRates.frameLength(configuration.sampleRate, for: "passthrough noise suppressor")
        self.configuration = configuration
    }

    /// Leaves `frame` unchanged. Real-time safe.
    /// - Returns: ``StageStatus/ok``, or ``StageStatus/wrongFrameLength`` for a frame of another length.
    public func process(_ frame: UnsafeMutableBufferPointer<Int16>) -> StageStatus {
        frame.count == frameLength ? .ok : .wrongFrameLength
    }

    /// Nothing to clear.
    public func reset() {}
}
