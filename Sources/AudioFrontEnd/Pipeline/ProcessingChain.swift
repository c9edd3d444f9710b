/// The per-frame work of the front end at the processing rate: alignment, echo cancellation, noise suppression,
/// levels and telemetry, then the output stages.
///
/// Created on the control thread (allocates, may throw); ``process(frame:)`` runs on the processing thread only
/// and is real-time safe.
final class ProcessingChain {
    let sampleRate: Int
    let frameLength: Int
    private let echo: (any EchoCanceller)?
    private let secondEcho: (any EchoCanceller)?
    private let noise: (any NoiseSuppressor)?
    private let estimator: DelayEstimator?
    private var alignment: EchoAlignment
    private let references: ReferenceHistory
    private let events: EventChannel
    let output: OutputStages
    private let reference: UnsafeMutableBufferPointer<Int16>
    private let unshifted: UnsafeMutableBufferPointer<Int16>
    private let processed: UnsafeMutableBufferPointer<Int16>
    private let tailFrames: Int
    private var framesSincePlayback = Int.max / 2
    private(set) var framesProcessed = 0
    private var telemetry: EchoTelemetryMeter
    private var lastDrops = DropCounts()

    init(configuration: FrontEndConfiguration, references: ReferenceHistory, events: EventChannel,
         output: OutputStages) throws {
        let rate = configuration.processingRate
        sampleRate = rate
        frameLength = rate / 100
        self.references = references
        self.events = events
        self.output = output
        (echo, secondEcho) = try Self.makeEcho(configuration.echoCancellation, rate: rate)
        noise = try Self.makeNoise(configuration.noiseSuppression, rate: rate)
        if case .automatic(let maximum) = configuration.alignment, echo != nil {
            try AudioFrontEndError.check(maximum, in: 10...2000, "maximum echo delay (ms)")
            estimator = DelayEstimator(sampleRate: rate, maximumDelayMilliseconds: maximum)
        } else {
            estimator = nil
        }
        alignment = EchoAlignment(sampleRate: rate, alignment: configuration.alignment)
        tailFrames = configuration.echoTailAfterPlaybackMilliseconds / 10
        telemetry = EchoTelemetryMeter(sampleRate: rate)
        reference = .allocate(capacity: frameLength)
        unshifted = .allocate(capacity: frameLength)
        processed = .allocate(capacity: frameLength)
        for buffer in [reference, unshifted, processed] { buffer.initialize(repeating: 0) }
    }

    deinit {
        reference.deallocate()
        unshifted.deallocate()
        processed.deallocate()
    }

    /// The delay estimate, ms, or nil. Processing thread.
    var delayMilliseconds: Double? { estimator?.delayMilliseconds }

    /// Processes one 10 ms mic frame at the processing rate; its position is `framesProcessed × frameLength`.
    /// `isPlaying` is the app's playback hint. Real-time safe; the caller has checked the event rings have room.
    /// `validCount` is less than a frame only for the zero-padded last frame: only that many samples are output.
    func process(frame mic: UnsafeBufferPointer<Int16>, validCount: Int? = nil, isPlaying: Bool) {
        let position = framesProcessed * frameLength
        framesSincePlayback = isPlaying ? 0 : framesSincePlayback + 1
        let echoActive = echo != nil && framesSincePlayback <= tailFrames
        let shift = alignment.shiftSamples
        references.read(from: position - shift, into: reference)
        if let estimator {
            references.peek(from: position, into: unshifted)
            estimator.process(mic: mic, reference: UnsafeBufferPointer(unshifted))
            if let estimate = estimator.delayMilliseconds { _ = alignment.update(estimateMilliseconds: estimate) }
        }
        if echoActive, let echo {
            let residual = alignment.residualMilliseconds(estimate: estimator?.delayMilliseconds)
            echo.streamDelayMilliseconds = residual
            _ = echo.process(capture: mic, reference: UnsafeBufferPointer(reference), output: processed)
            if let secondEcho {
                secondEcho.streamDelayMilliseconds = residual
                _ = secondEcho.process(capture: UnsafeBufferPointer(processed), reference: UnsafeBufferPointer(reference),
                                       output: processed)
            }
        } else {
            _ = processed.update(fromContentsOf: mic)
        }
        if let noise { _ = noise.process(processed) }
        let milliseconds = position * 1000 / sampleRate
        let inputLevel = LevelMeter.rmsDecibels(mic)
        let outputLevel = LevelMeter.rmsDecibels(UnsafeBufferPointer(processed))
        events.emitLevel(milliseconds: milliseconds, input: inputLevel, output: outputLevel)
        telemetry.add(mic: inputLevel, output: outputLevel, reference: LevelMeter.rmsDecibels(UnsafeBufferPointer(reference)))
        output.process(UnsafeBufferPointer(rebasing: processed[0..<(validCount ?? frameLength)]), position: position)
        framesProcessed += 1
        if framesProcessed % 25 == 0 {
            events.emitTelemetry(milliseconds: milliseconds, delay: estimator?.delayMilliseconds,
                                 alignment: alignment.shiftMilliseconds, erle: telemetry.erleDecibels,
                                 doubleTalk: telemetry.isDoubleTalk, drift: estimator?.driftPartsPerMillion)
            telemetry.startPeriod()
        }
    }

    /// Emits a drops event when the counts changed. Processing thread; real-time safe.
    func reportDrops(_ drops: DropCounts) {
        guard drops != lastDrops else { return }
        lastDrops = drops
        events.emitDrops(drops)
    }

    private static func makeEcho(_ choice: FrontEndConfiguration.EchoCancellation, rate: Int) throws
        -> ((any EchoCanceller)?, (any EchoCanceller)?) {
        switch choice {
        case .off:
            return (nil, nil)
        case .webRTC(var configuration):
            configuration.sampleRate = rate
            return (try WebRTCEchoCanceller(configuration: configuration), nil)
        case .speex(var configuration):
            configuration.sampleRate = rate
            return (try SpeexEchoCanceller(configuration: configuration), nil)
        case .speexThenWebRTC(var speex, var webRTC):
            speex.sampleRate = rate
            webRTC.sampleRate = rate
            return (try SpeexEchoCanceller(configuration: speex), try WebRTCEchoCanceller(configuration: webRTC))
        }
    }

    private static func makeNoise(_ choice: FrontEndConfiguration.NoiseSuppression, rate: Int) throws
        -> (any NoiseSuppressor)? {
        switch choice {
        case .off:
            return nil
        case .webRTC(var configuration):
            configuration.sampleRate = rate
            return try WebRTCNoiseSuppressor(configuration: configuration)
        case .speex(var configuration):
            configuration.sampleRate = rate
            return try SpeexNoiseSuppressor(configuration: configuration)
        }
    }
}
