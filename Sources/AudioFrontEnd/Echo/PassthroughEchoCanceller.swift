/// The null echo canceller: copies the capture to the output and ignores the reference.
///
/// For devices with hardware echo cancellation, headsets, and as the baseline the tests compare against.
/// Threading: one thread at a time calls ``process(capture:reference:output:)``; it holds no C state.
public final class PassthroughEchoCanceller: EchoCanceller, @unchecked Sendable {
    /// Settings of a ``PassthroughEchoCanceller``.
    public typealias Configuration = PassthroughConfiguration

    /// The settings the stage was created with.
    public let configuration: Configuration
    public var sampleRate: Int { configuration.sampleRate }
    public let frameLength: Int
    /// Ignored.
    public var streamDelayMilliseconds: Int = 0

    /// - Throws: ``AudioFrontEndError/Code/unsupportedSampleRate`` for a rate outside 8000...48000 Hz or without
    ///   whole 10 ms frames.
    public init(configuration: Configuration = Configuration()) throws {
        frameLength = try SampleRates.frameLength(configuration.sampleRate, for: "passthrough echo canceller")
        self.configuration = configuration
    }

    /// Copies `capture` to `output`. Real-time safe; audio thread.
    /// - Returns: ``StageStatus/ok``, or ``StageStatus/wrongFrameLength`` for buffers of another length
    ///   (output then holds as much of capture as fits).
    public func process(capture: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>,
                        output: UnsafeMutableBufferPointer<Int16>) -> StageStatus {
        guard checkFrame(capture: capture, reference: reference, output: output) else { return .wrongFrameLength }
        copyCapture(capture, to: output, count: frameLength)
        return .ok
    }

    /// 0: the capture is copied as it is.
    public var latencySamples: Int { 0 }

    /// Every field nil. Real-time safe.
    public func metrics() -> EchoMetrics { EchoMetrics() }

    /// Nothing to clear.
    public func reset() {}
}
