/// Settings of the null stages (``PassthroughEchoCanceller``, ``PassthroughNoiseSuppressor``): only the rate.
public struct PassthroughConfiguration: Sendable, Equatable {
    /// The rate in Hz: 8000...48000 with a whole number of samples in 10 ms. Default 16000.
    public var sampleRate: Int = 16000

    public init(sampleRate: Int = 16000) { self.sampleRate = sampleRate }
}
