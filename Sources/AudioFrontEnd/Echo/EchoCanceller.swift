/// Removes the echo of the far-end reference (what the device plays) from the capture (microphone) signal,
/// one 10 ms frame at a time.
///
/// Lifecycle: create (allocates, may throw) → ``process(capture:reference:output:)`` (real-time safe) →
/// ``reset()`` → deinit. One thread at a time calls ``process(capture:reference:output:)``; the pipeline's
/// processing thread in practice. Backends: ``WebRTCEchoCanceller`` (AEC2 or AECM), ``SpeexEchoCanceller``
/// (MDF), ``PassthroughEchoCanceller``.
public protocol EchoCanceller: AnyObject {
    /// The rate the canceller works at, in Hz.
    var sampleRate: Int { get }
    /// Samples in one 10 ms frame at ``sampleRate``.
    var frameLength: Int { get }

    /// Cancels the echo of `reference` in `capture` and writes the result to `output`.
    ///
    /// `reference` must be the far-end audio aligned to `capture` as well as the caller knows
    /// (see ``streamDelayMilliseconds`` for what remains). All three buffers hold exactly ``frameLength`` samples;
    /// `output` may be the same memory as `capture`.
    /// Real-time safe: no allocation, no locks, no throwing. Returns ``StageStatus/wrongFrameLength`` for
    /// buffers of another length (output then holds a copy of capture, when lengths allow).
    func process(capture: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>,
                 output: UnsafeMutableBufferPointer<Int16>) -> StageStatus

    /// The delay still left between `reference` and its echo in `capture`, in milliseconds, for backends that
    /// use it (WebRTC AEC2/AECM); ignored by the others. Real-time safe to set between frames.
    var streamDelayMilliseconds: Int { get set }

    /// How many samples the output lags the capture (the backend's internal buffering): output sample
    /// `n + latencySamples` carries capture sample `n`. Constant for an instance; any thread.
    var latencySamples: Int { get }

    /// Echo metrics as far as the backend computes them. Real-time safe.
    func metrics() -> EchoMetrics

    /// Level (dBFS) of the echo the backend's linear filter predicted in the last frame processed (capture
    /// minus the filter's output, before any residual-echo suppression), or nil when the backend does not
    /// expose it. Real-time safe; the thread that calls ``process(capture:reference:output:)``.
    var echoEstimateDecibels: Float? { get }

    /// Clears the adaptive state (filters, history) and keeps the configuration. Not real-time safe.
    func reset()
}

extension EchoCanceller {
    /// nil: the backend exposes no echo estimate (speex MDF does, ``SpeexEchoCanceller/echoEstimateDecibels``).
    public var echoEstimateDecibels: Float? { nil }
}

/// Echo metrics in dB. A value is nil when the backend does not compute it or has not computed it yet.
public struct EchoMetrics: Sendable, Equatable {
    /// A WebRTC statistic: instantaneous value and long-term average, maximum and minimum, in dB.
    public struct Statistic: Sendable, Equatable {
        public var instant: Int
        public var average: Int
        public var maximum: Int
        public var minimum: Int
        public init(instant: Int, average: Int, maximum: Int, minimum: Int) {
            self.instant = instant; self.average = average; self.maximum = maximum; self.minimum = minimum
        }
    }

    /// Echo return loss: far-end power over echo power.
    public var echoReturnLoss: Statistic?
    /// Echo return loss enhancement: echo power over output power.
    public var echoReturnLossEnhancement: Statistic?
    /// ERL + ERLE.
    public var residualEchoReturnLoss: Statistic?
    /// Suppression before the non-linear processor.
    public var aNLP: Statistic?
    /// The backend's own delay estimate (median and spread), in ms.
    public var delayMedianMilliseconds: Int?
    public var delayStandardDeviationMilliseconds: Int?
    /// Fraction of delay estimates bad enough to hurt the canceller (0...1).
    public var fractionPoorDelays: Float?
    /// Whether the last frame held echo, per the backend.
    public var hasEcho: Bool?

    public init() {}
}
