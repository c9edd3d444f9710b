#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A broadband residual-echo suppressor after the echo chain, driven by the first canceller's own echo estimate
/// (``EchoCanceller/echoEstimateDecibels``): what the adaptive filter cannot model (reverberation beyond its
/// tail, a nonlinear loudspeaker, a filter still converging) follows the echo it does predict, decaying over the
/// room's reverberation. The stage keeps a leaky sum of the estimate's power that decays by 60 dB over
/// ``Configuration/decayMilliseconds``, learns the chain's output level relative to it (a low quantile of the
/// ratio over playing frames, so near-end speech, which only raises the output, barely moves it), and scales each
/// frame by a Wiener gain on that predicted residual, floored at ``Configuration/maximumSuppressionDecibels``.
/// Near-end speech above the predicted residual passes almost untouched (at 6 dB above it, -1.3 dB).
///
/// Run by the processing chain (``FrontEndConfiguration/lateEchoSuppression``). ``process(_:echoEstimate:active:)`` is real-time safe (no allocation,
/// locks or throwing); one thread at a time (the processing thread).
public struct LateEchoSuppressor: Sendable {
    /// Settings of the stage; every field has a documented default.
    public struct Configuration: Sendable, Equatable {
        /// The deepest attenuation of a frame, dB (-40...0). Default -12.
        public var maximumSuppressionDecibels: Float = -12
        /// How long the predicted residual takes to fall by 60 dB after the echo estimate stops, ms (10...3000).
        /// Default 600.
        public var decayMilliseconds: Float = 600
        /// How far above the learned output-to-estimate ratio the residual is predicted, dB (-10...20). Default 3.
        public var overestimateDecibels: Float = 3
        /// The quantile of the output-to-estimate ratio the stage learns (0.05...0.95). Default 0.3.
        public var quantile: Float = 0.3
        /// Leave frames the echo speech gate lets through as possible near-end speech unattenuated. Default true.
        public var spareNearEnd = true

        public init() {}

        func validate() throws {
            try AudioFrontEndError.check(maximumSuppressionDecibels, in: -40...0, "late echo suppression (dB)")
            try AudioFrontEndError.check(decayMilliseconds, in: 10...3000, "late echo decay (ms)")
            try AudioFrontEndError.check(overestimateDecibels, in: -10...20, "late echo overestimate (dB)")
            try AudioFrontEndError.check(quantile, in: 0.05...0.95, "late echo quantile")
        }
    }

    let configuration: Configuration
    private let decay: Float
    private let floorGain: Float
    private let overestimate: Float
    /// The leaky sum of the echo estimate's power (full scale 1).
    private var envelope: Float = 0
    /// The learned output-to-envelope ratio, dB.
    private var offset: Float = LateEchoSuppressor.initialOffset
    /// The amplitude gain applied at the end of the last frame (ramped from it over the next).
    private var gain: Float = 1
    static let initialOffset: Float = -20
    /// The quantile tracker's step, dB per frame.
    static let step: Float = 0.2

    init(_ configuration: Configuration) {
        self.configuration = configuration
        decay = powf(10, -6 / (configuration.decayMilliseconds / 10))
        floorGain = powf(10, configuration.maximumSuppressionDecibels / 10)
        overestimate = powf(10, configuration.overestimateDecibels / 10)
    }

    mutating func reset() {
        envelope = 0
        offset = Self.initialOffset
        gain = 1
    }

    /// Scales `frame` (the chain's output) by the frame's gain, ramped from the last one. `echoEstimate` is the
    /// first canceller's echo estimate for this frame, dBFS; `active` whether the cancellers run (playback and
    /// its tail): otherwise the gain returns to 1 and nothing is learned. `nearEndPossible`: the echo speech gate
    /// lets the frame through as possible near-end speech (with ``Configuration/spareNearEnd``, gain 1).
    mutating func process(_ frame: UnsafeMutableBufferPointer<Int16>, echoEstimate: Float, active: Bool,
                          nearEndPossible: Bool = false) {
        var target: Float = 1
        if active {
            envelope = envelope * decay + powf(10, echoEstimate / 10)
            var sum: Float = 0
            for x in frame { let v = Float(x); sum += v * v }
            let power = sum / Float(frame.count) / (32768 * 32768)
            if envelope > 1e-10, power > 1e-10 {
                let ratio = 10 * log10f(power / envelope)
                offset += ratio > offset ? Self.step * configuration.quantile : -Self.step * (1 - configuration.quantile)
                let residual = envelope * powf(10, offset / 10) * overestimate
                target = nearEndPossible && configuration.spareNearEnd ? 1 : max(floorGain, 1 - residual / power).squareRoot()
            }
        }
        gain = GainRamp.apply(frame, from: gain, to: target)
    }
}
