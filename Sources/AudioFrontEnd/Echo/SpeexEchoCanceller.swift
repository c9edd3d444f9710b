import CSpeexDSP

/// Echo cancellation by speexdsp's multidelay block frequency-domain adaptive filter (MDF), optionally followed
/// by speexdsp's preprocessor for residual-echo suppression and denoising.
///
/// The filter covers ``Configuration/tailMilliseconds`` of echo path starting at the reference as given: speexdsp
/// has no delay input, so the caller shifts the reference by the bulk delay first (``streamDelayMilliseconds`` is
/// ignored). There is no double-talk detector; the filter adapts slowly instead. With the preprocessor on, the
/// output lags the capture by one 10 ms frame.
///
/// Threading: one thread at a time (the invariant behind `@unchecked Sendable`); create and ``reset()`` off the
/// audio thread, ``process(capture:reference:output:)`` on it.
public final class SpeexEchoCanceller: EchoCanceller, @unchecked Sendable {
    /// Settings of a ``SpeexEchoCanceller``. Every field has a documented default.
    public struct Configuration: Sendable, Equatable {
        /// The rate in Hz: 8000...48000 with a whole number of samples in 10 ms. Default 16000.
        public var sampleRate: Int = 16000
        /// The echo path the adaptive filter covers after the (caller-removed) bulk delay, 20...500 ms.
        /// Default 128 ms, about half the test room's reverberation time (RT60 0.25 s; the room's echo path
        /// holds -38 dB of its energy beyond 128 ms). Longer tails adapt more slowly: through the front end on
        /// the 0 dB SER double-talk vector, with residual suppression, far-end-only echo falls by
        /// 27.3 / 26.8 / 24.8 dB with a 64 / 128 / 256 ms tail. With the residual suppressor, 2 s after the echo
        /// starts, the 128 ms tail reaches 34 dB at 16 kHz and 18.6 dB at 48 kHz (EchoCancellerTests).
        public var tailMilliseconds: Int = 128
        /// Run the preprocessor's residual-echo suppressor after the filter. Default true. It matters after
        /// double talk, which disturbs the filter: on the 0 dB SER test vector it raises far-end-only echo
        /// reduction from 20.5 to 32.8 dB, at a cost to the near end during double talk (magnitude SDR
        /// 17.4 → 11.0 dB, level -0.2 → -1.5 dB) and one frame of latency (``latencySamples``).
        public var residualEchoSuppression: Bool = true
        /// With ``residualEchoSuppression``: nil runs speexdsp's preprocessor (one block of delay, its weighted
        /// overlap-add); 1...5 runs ``LowDelayEchoSuppressor`` instead, whose output lags by this many ms (its
        /// gains found on the same two-block window, applied by a filter of twice this length). Default nil.
        public var lowDelayResidualMilliseconds: Int?
        /// Maximum residual-echo attenuation while only the far end talks, -100...0 dB. Default -40 (speexdsp's).
        public var echoSuppressDecibels: Int = -40
        /// Maximum residual-echo attenuation while the near end talks too, -100...0 dB. Default -15 (speexdsp's).
        public var echoSuppressActiveDecibels: Int = -15
        /// Also denoise in the same preprocessor. Default false (noise suppression is its own stage).
        public var denoise: Bool = false
        /// Maximum noise attenuation when ``denoise`` is on, -100...0 dB. Default -15 (speexdsp's).
        public var noiseSuppressDecibels: Int = -15
        /// Blocks each 10 ms frame is processed in (1, 2, 4, 5 or 8, dividing the frame): the filter and the
        /// preprocessor work on blocks of 10 / ``blocksPerFrame`` ms, and the preprocessor's delay is one block
        /// (``latencySamples``), for a front end with less algorithmic delay. Default 1. Measured through the
        /// default chain at 16 kHz with 4 (2.5 ms blocks; 152 instead of 272 samples of delay, 9.5 ms): double
        /// talk at SER 0 dB keeps magnitude SDR 9.1 dB (9.5 with 1), but the worst one-second ERLE on
        /// `echo_d40ms_16k.wav` falls to 22.3 dB (32.6 with 1), below `FrontEndEchoTests`' 25 dB, and the
        /// filter's instructions grow with tail / block (1.6 × the default chain's). Tails of 72-96 ms pass both
        /// tests in 2.5 ms blocks but lose echo in the scenario matrix's longer rooms (README, latency table).
        /// With 2: delay 192 samples, SDR 7.8 dB, worst second 23.4 dB at 250 ms. With 5 (2 ms blocks, 144
        /// samples, 9 ms): worst second 30.3 dB, SDR 8.5 dB, 1.68 × the chain's instructions; with 5 and the
        /// residual suppressor off (112 samples, 7 ms, AEC2's alone): 29.5 dB, SDR 9.4 dB, 1.55 × (README).
        public var blocksPerFrame: Int = 1
        /// A longer tail the filter grows to, once, when the room's echo outlasts ``tailMilliseconds`` (nil, or
        /// not above ``tailMilliseconds``: never; 20...500). Default nil. Once a second of playback (from 3 s of it) the
        /// short filter's impulse response is read; when its last quarter holds more than ``growLimitDecibels``
        /// of its energy twice in a row, a second filter of this length starts adapting beside it, and 3 s of
        /// playback later it replaces the short one (``reset()`` goes back). Both filters are created with the
        /// canceller; while both run the stage costs their sum.
        public var grownTailMilliseconds: Int?
        /// The share of the short filter's impulse-response energy in its last quarter above which the tail
        /// grows, dB (-60...0). Default -20.
        public var growLimitDecibels: Float = -20
        /// Clear the filter when, after it converged, its output (before the preprocessor) stands this many dB
        /// above the mic for ``divergenceFrames`` frames in a row while the far end plays: the echo path changed
        /// under it (``SpeexDivergenceWatch``). nil: never (speexdsp's own check alone, 6 dB for 50 frames).
        /// Default nil; the front end's chain sets it (``FrontEndConfiguration/defaultEchoCancellation``).
        public var divergenceResetDecibels: Float?
        /// Frames in a row for ``divergenceResetDecibels``, 1...50. Default 3.
        public var divergenceFrames: Int = 3

        public init() {}

        /// A configuration at `sampleRate` with every other field at its default.
        public init(sampleRate: Int, tailMilliseconds: Int = 128) {
            self.sampleRate = sampleRate
            self.tailMilliseconds = tailMilliseconds
        }
    }

    /// The settings the stage was created with.
    public let configuration: Configuration
    public var sampleRate: Int { configuration.sampleRate }
    public let frameLength: Int
    /// Ignored: speexdsp takes no delay; align the reference before ``process(capture:reference:output:)``.
    public var streamDelayMilliseconds: Int = 0

    /// The filter in use: the short one, or the grown one after the switch.
    private var echoState: OpaquePointer
    private let shortState: OpaquePointer
    /// The grown filter, when ``Configuration/grownTailMilliseconds`` is set, and what decides to use it.
    private let grownState: OpaquePointer?
    private var monitor: SpeexTailMonitor?
    private var growth = Growth.short
    private enum Growth: Equatable { case short, warming(framesLeft: Int), grown }
    /// Frames of playback the grown filter adapts beside the short one before it replaces it.
    static let warmUpFrames = 300
    private let grownScratch: UnsafeMutableBufferPointer<Int16>
    private var preprocessor: SpeexPreprocessor?
    /// The residual-echo suppressor when ``Configuration/lowDelayResidualMilliseconds`` is set.
    private let suppressor: LowDelayEchoSuppressor?
    /// The filter's output before the preprocessor, so `output` may alias `capture`.
    private let scratch: UnsafeMutableBufferPointer<Int16>

    /// Creates the canceller. Allocates; not real-time safe. The corresponding C functions are
    /// `speex_echo_state_init`, `speex_echo_ctl(SPEEX_ECHO_SET_SAMPLING_RATE)` and, for the preprocessor,
    /// `speex_preprocess_state_init` and `speex_preprocess_ctl` (`SPEEX_PREPROCESS_SET_ECHO_STATE`).
    /// - Throws: ``AudioFrontEndError/Code/unsupportedSampleRate`` for a rate outside 8000...48000 Hz or without
    ///   whole 10 ms frames; ``AudioFrontEndError/Code/invalidConfiguration`` for a tail outside 20...500 ms or a
    ///   dB value outside -100...0; ``AudioFrontEndError/Code/libraryFailure`` when speexdsp refuses.
    public init(configuration: Configuration = Configuration()) throws {
        let c = configuration
        let length = try SampleRates.frameLength(c.sampleRate, for: "speex echo canceller")
        try AudioFrontEndError.check(c.tailMilliseconds, in: 20...500, "speex echo canceller tail (ms)")
        try AudioFrontEndError.check(c.echoSuppressDecibels, in: -100...0, "speex echo suppress (dB)")
        try AudioFrontEndError.check(c.echoSuppressActiveDecibels, in: -100...0, "speex echo suppress active (dB)")
        try AudioFrontEndError.check(c.noiseSuppressDecibels, in: -100...0, "speex noise suppress (dB)")
        let filterLength = c.tailMilliseconds * c.sampleRate / 1000
        guard [1, 2, 4, 5, 8].contains(c.blocksPerFrame), length % c.blocksPerFrame == 0 else {
            throw AudioFrontEndError(.invalidConfiguration, "speex echo canceller blocks per frame must be 1, 2, 4, 5 or 8 and divide \(length)")
        }
        let block = length / c.blocksPerFrame
        try AudioFrontEndError.check(c.divergenceFrames, in: 1...50, "speex echo canceller divergence frames")
        if let grown = c.grownTailMilliseconds {
            try AudioFrontEndError.check(grown, in: 20...500, "speex echo canceller grown tail (ms)")
            try AudioFrontEndError.check(c.growLimitDecibels, in: -60...0, "speex echo canceller grow limit (dB)")
        }
        let state = try Self.makeState(block: block, filterLength: filterLength, sampleRate: c.sampleRate)
        var grownState: OpaquePointer?
        if let grown = c.grownTailMilliseconds, grown > c.tailMilliseconds {
            do {
                grownState = try Self.makeState(block: block, filterLength: grown * c.sampleRate / 1000,
                                                sampleRate: c.sampleRate)
            } catch {
                speex_echo_state_destroy(state)
                throw error
            }
        }
        if let ms = c.lowDelayResidualMilliseconds {
            try AudioFrontEndError.check(ms, in: 1...5, "speex echo canceller low-delay residual (ms)")
            if c.denoise {
                throw AudioFrontEndError(.invalidConfiguration, "speex echo canceller: the low-delay residual suppressor does not denoise; use a noise suppression stage")
            }
        }
        let lowDelay = c.residualEchoSuppression ? c.lowDelayResidualMilliseconds : nil
        suppressor = lowDelay.map {
            LowDelayEchoSuppressor(settings: .init(sampleRate: c.sampleRate, frameLength: length, delayMilliseconds: $0,
                                                   suppressDecibels: c.echoSuppressDecibels,
                                                   suppressActiveDecibels: c.echoSuppressActiveDecibels))
        }
        if (c.residualEchoSuppression && lowDelay == nil) || c.denoise {
            let settings = SpeexPreprocessor.Settings(
                sampleRate: c.sampleRate, frameLength: block, denoise: c.denoise,
                noiseSuppressDecibels: c.noiseSuppressDecibels, echoSuppressDecibels: c.echoSuppressDecibels,
                echoSuppressActiveDecibels: c.echoSuppressActiveDecibels)
            do {
                preprocessor = try SpeexPreprocessor(settings: settings,
                                                     echoState: c.residualEchoSuppression && lowDelay == nil ? state : nil,
                                                     component: "speex echo canceller")
            } catch {
                speex_echo_state_destroy(state)
                grownState.map(speex_echo_state_destroy)
                throw error
            }
        } else {
            preprocessor = nil
        }
        echoState = state
        shortState = state
        self.grownState = grownState
        monitor = grownState == nil ? nil : SpeexTailMonitor(filterLength: filterLength + block, limitDecibels: c.growLimitDecibels)
        grownScratch = .zeroed(capacity: grownState == nil ? 0 : length)
        divergence = c.divergenceResetDecibels.map { SpeexDivergenceWatch(limitDecibels: $0, frames: c.divergenceFrames) }
        self.configuration = c
        frameLength = length
        blockLength = block
        scratch = .zeroed(capacity: length)
    }

    deinit {
        preprocessor = nil // it refers to the echo state, so it goes first
        speex_echo_state_destroy(shortState)
        grownState.map(speex_echo_state_destroy)
        monitor?.deallocate()
        scratch.deallocate()
        grownScratch.deallocate()
    }

    private static func makeState(block: Int, filterLength: Int, sampleRate: Int) throws -> OpaquePointer {
        guard let state = speex_echo_state_init(Int32(block), Int32(filterLength)) else {
            throw AudioFrontEndError(.libraryFailure, "speex_echo_state_init(\(block), \(filterLength)) failed")
        }
        var rate = Int32(sampleRate)
        let status = speex_echo_ctl(state, SPEEX_ECHO_SET_SAMPLING_RATE, &rate)
        guard status == 0 else {
            speex_echo_state_destroy(state)
            throw AudioFrontEndError(.libraryFailure, "speex echo canceller refused \(sampleRate) Hz",
                                     libraryStatus: status)
        }
        return state
    }

    /// Cancels the echo of `reference` in `capture` into `output` (which may be the same memory as `capture`),
    /// then runs the preprocessor when configured. Real-time safe: no allocation, locks or throwing; audio thread.
    /// The corresponding C functions are `speex_echo_cancellation` and `speex_preprocess_run`.
    /// - Returns: ``StageStatus/ok``, or ``StageStatus/wrongFrameLength`` for buffers of another length
    ///   (output then holds capture).
    public func process(capture: UnsafeBufferPointer<Int16>, reference: UnsafeBufferPointer<Int16>,
                        output: UnsafeMutableBufferPointer<Int16>) -> StageStatus {
        guard checkFrame(capture: capture, reference: reference, output: output),
              let mic = capture.baseAddress, let far = reference.baseAddress, let out = output.baseAddress,
              let filtered = scratch.baseAddress else { return .wrongFrameLength }
        var sum: Float = 0, micSum: Float = 0, errorSum: Float = 0
        var start = 0
        while start < frameLength {
            defer { start += blockLength }
            // The preprocessor reads the filter's residual of the block just cancelled: one block at a time.
            speex_echo_cancellation(echoState, mic + start, far + start, filtered + start)
            if case .warming = growth, let grown = grownState, let spare = grownScratch.baseAddress {
                speex_echo_cancellation(grown, mic + start, far + start, spare + start)
            }
            for i in start..<(start + blockLength) {
                let x = Float(mic[i]), e = Float(filtered[i])
                sum += (x - e) * (x - e)
                micSum += x * x
                errorSum += e * e
            }
            preprocessor?.run(filtered + start)
        }
        suppressor?.process(filtered, mic: mic)
        estimate = LevelMeter.decibels(meanSquare: Double(sum) / Double(frameLength) / (32768.0 * 32768.0))
        out.update(from: filtered, count: frameLength)
        if monitor != nil || divergence != nil {
            let active = reference.contains { $0 != 0 }
            if monitor != nil { grow(referenceActive: active) }
            let n = Float(frameLength)
            if divergence?.observe(mic: micSum / n, error: errorSum / n, estimate: sum / n, referenceActive: active) == true {
                clearFilters()
            }
        }
        return .ok
    }

    /// Clears the filter(s) in use after a divergence (``Configuration/divergenceResetDecibels``), keeping the
    /// preprocessor and the tail's growth. Real-time safe: `speex_echo_state_reset` only zeroes the state.
    private func clearFilters() {
        speex_echo_state_reset(echoState)
        if case .warming = growth, let grown = grownState { speex_echo_state_reset(grown) }
    }

    /// Times the filter was cleared after a divergence (``Configuration/divergenceResetDecibels``).
    /// Processing thread.
    public var divergenceResets: Int { divergence?.count ?? 0 }
    private var divergence: SpeexDivergenceWatch?

    /// The tail's growth, one frame on (see ``Configuration/grownTailMilliseconds``). Real-time safe.
    private func grow(referenceActive: Bool) {
        switch growth {
        case .short:
            if monitor?.observe(shortState, referenceActive: referenceActive) == true {
                growth = .warming(framesLeft: Self.warmUpFrames)
            }
        case .warming(let left):
            guard referenceActive else { return }
            if left > 1 {
                growth = .warming(framesLeft: left - 1)
            } else if let grown = grownState {
                echoState = grown
                preprocessor?.attach(echoState: grown)
                growth = .grown
            }
        case .grown: break
        }
    }

    /// Whether the filter has grown to ``Configuration/grownTailMilliseconds``. Processing thread.
    public var tailGrown: Bool { growth == .grown }

    /// One block (``Configuration/blocksPerFrame``) with the preprocessor (its overlap-add window spans two
    /// blocks), ``LowDelayEchoSuppressor/delay`` with that suppressor instead (the two never run together: it
    /// refuses denoise), else 0 (measured by `EchoCancellerContractTests.testDeclaredLatencyIsMeasured`).
    public var latencySamples: Int { suppressor?.delay ?? (preprocessor == nil ? 0 : blockLength) }
    private let blockLength: Int

    /// Level (dBFS) of the MDF filter's echo estimate in the last frame (capture minus the filter's output,
    /// before the preprocessor); the floor before the first frame. Real-time safe; processing thread.
    public var echoEstimateDecibels: Float? { estimate }
    private var estimate = LevelMeter.floorDecibels

    /// speexdsp computes no echo metrics: every field is nil. Real-time safe.
    public func metrics() -> EchoMetrics { EchoMetrics() }

    /// Clears the adaptive filter and the preprocessor's estimates, keeps the configuration. Not real-time safe.
    /// The corresponding C function is `speex_echo_state_reset`.
    public func reset() {
        speex_echo_state_reset(shortState)
        grownState.map(speex_echo_state_reset)
        echoState = shortState
        growth = .short
        monitor?.reset()
        divergence?.reset()
        preprocessor?.attach(echoState: shortState)
        preprocessor?.reset()
        suppressor?.reset()
        scratch.update(repeating: 0)
        estimate = LevelMeter.floorDecibels
    }
}
