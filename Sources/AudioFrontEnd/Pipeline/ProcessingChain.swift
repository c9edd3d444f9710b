#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The per-frame work of the front end at the processing rate: alignment, echo cancellation, noise suppression,
/// levels and telemetry, then the output stages. Each frame's output goes to the output stages as soon as the
/// stages produce it: it lags the mic by ``delaySamples`` (reported as ``processingDelay``, never held back).
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
    /// The mic delayed by ``estimatorLagFrames`` for the delay estimator (see ``process(frame:validCount:isPlaying:)``).
    private let estimatorMic: SampleDelay
    private let laggedMic: UnsafeMutableBufferPointer<Int16>
    private let processed: UnsafeMutableBufferPointer<Int16>
    private let tailFrames: Int
    /// Samples (processing rate) the echo canceller(s) and noise suppressor delay their output by.
    let delaySamples: Int
    /// ``delaySamples`` at the output rate.
    let processingDelay: ProcessingDelay
    /// The mic delayed by the echo cancellers' latency, for frames where they pause.
    private let pausedPath: SampleDelay
    /// The mic and the aligned reference delayed by ``delaySamples``: the input the frame coming out of the
    /// stages belongs to, whose levels the speech gate compares with it.
    private let gateMic: SampleDelay
    private let gateReference: SampleDelay
    private let delayedMic: UnsafeMutableBufferPointer<Int16>
    private let delayedReference: UnsafeMutableBufferPointer<Int16>
    /// Per frame, by frame number modulo the count (a frame's output comes out of the stages up to
    /// ``delaySamples`` later): whether the canceller ran with the far end playing, and the echo it predicted
    /// (``EchoCanceller/echoEstimateDecibels``, else the mic level), dBFS.
    private let recentFrames: UnsafeMutableBufferPointer<(playing: Bool, echo: Float)>
    /// Mic samples processed that are owed output (the zero padding of the last frame excluded).
    private var validInput = 0
    /// Samples passed to the output stages.
    private var emitted = 0
    private var speechGate: EchoSpeechGate
    /// How many frames the delay estimator lags the newest mic frame.
    static let estimatorLagFrames = 2
    private var framesSincePlayback = Int.max / 2
    private(set) var framesProcessed = 0
    private var telemetry: EchoTelemetryMeter
    private var lastDrops = DropCounts()

    init(configuration: FrontEndConfiguration, references: ReferenceHistory, events: EventChannel) throws {
        let rate = configuration.processingRate
        sampleRate = rate
        frameLength = rate / 100
        self.references = references
        self.events = events
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
        let gate = configuration.voiceDetection?.echoGate ?? FrontEndConfiguration.EchoGate()
        try gate.validate()
        speechGate = EchoSpeechGate(gate)
        telemetry = EchoTelemetryMeter(sampleRate: rate)
        let echoLatency = (echo?.latencySamples ?? 0) + (secondEcho?.latencySamples ?? 0)
        pausedPath = SampleDelay(delay: echoLatency)
        estimatorMic = SampleDelay(delay: Self.estimatorLagFrames * frameLength)
        laggedMic = .zeroed(capacity: frameLength)
        let delay = echoLatency + (noise?.latencySamples ?? 0)
        delaySamples = delay
        output = try OutputStages(configuration: configuration, events: events, processingDelaySamples: delay)
        let outputRate = configuration.effectiveOutputRate
        processingDelay = ProcessingDelay(samples: (delay * outputRate + rate / 2) / rate, sampleRate: outputRate)
        gateMic = SampleDelay(delay: delay)
        gateReference = SampleDelay(delay: delay)
        delayedMic = .zeroed(capacity: frameLength)
        delayedReference = .zeroed(capacity: frameLength)
        recentFrames = .allocate(capacity: 16)
        recentFrames.initialize(repeating: (false, -160))
        reference = .zeroed(capacity: frameLength)
        unshifted = .zeroed(capacity: frameLength)
        processed = .zeroed(capacity: frameLength)
    }

    deinit {
        reference.deallocate()
        recentFrames.deallocate()
        delayedMic.deallocate()
        delayedReference.deallocate()
        unshifted.deallocate()
        laggedMic.deallocate()
        processed.deallocate()
    }

    /// The delay estimate, ms, or nil. Processing thread.
    var delayMilliseconds: Double? { estimator?.delayMilliseconds }

    /// Processes one 10 ms mic frame at the processing rate; its position is `framesProcessed × frameLength`.
    /// `isPlaying` is the app's playback hint. Real-time safe; the caller has checked the event rings have room.
    /// The stages' output of this call goes to the output stages at once (``delaySamples`` behind the mic).
    /// `validCount` is less than a frame only for the zero-padded last frame: only that many samples are owed
    /// output, so the output is exactly as long as the input.
    func process(frame mic: UnsafeBufferPointer<Int16>, validCount: Int? = nil, isPlaying: Bool) {
        let position = framesProcessed * frameLength
        framesSincePlayback = isPlaying ? 0 : framesSincePlayback + 1
        alignment.read(references, at: position, into: reference)
        if let estimator {
            // The estimator looks 20 ms into the past: an app that pushes the reference in step with the mic (or
            // through a resampler, which holds back a few samples) has not yet delivered the newest reference of
            // this frame, and zeros there would pull the estimate towards a wrong delay.
            estimatorMic.process(mic, into: laggedMic)
            references.peek(from: position - Self.estimatorLagFrames * frameLength, into: unshifted)
            estimator.process(mic: UnsafeBufferPointer(laggedMic), reference: UnsafeBufferPointer(unshifted))
            if let estimate = estimator.delayMilliseconds {
                _ = alignment.update(estimateMilliseconds: estimate, driftPartsPerMillion: estimator.driftPartsPerMillion,
                                     frameLength: frameLength)
            }
        }
        runStages(mic)
        let milliseconds = position * 1000 / sampleRate
        let inputLevel = LevelMeter.rmsDecibels(mic)
        let outputLevel = LevelMeter.rmsDecibels(UnsafeBufferPointer(processed))
        let referenceLevel = LevelMeter.rmsDecibels(UnsafeBufferPointer(reference))
        events.emitLevel(milliseconds: milliseconds, input: inputLevel, output: outputLevel)
        telemetry.add(mic: inputLevel, output: outputLevel, reference: referenceLevel)
        validInput += validCount ?? frameLength
        deliver(mic: mic, inputLevel: inputLevel, cancelling: echo != nil && framesSincePlayback <= tailFrames)
        framesProcessed += 1
        if framesProcessed % 25 == 0 {
            events.emitTelemetry(milliseconds: milliseconds, delay: estimator?.delayMilliseconds,
                                 alignment: alignment.shiftMilliseconds, erle: telemetry.erleDecibels,
                                 doubleTalk: telemetry.isDoubleTalk, drift: estimator?.driftPartsPerMillion,
                                 processingDelay: processingDelay.milliseconds)
            telemetry.startPeriod()
        }
    }

    /// Echo cancellation and noise suppression of `mic` with the aligned `reference` into `processed`.
    private func runStages(_ mic: UnsafeBufferPointer<Int16>) {
        // The delayed mic always goes through the paused path (its history must be current when it is used),
        // and the cancellers overwrite it while they run.
        pausedPath.process(mic, into: processed)
        if framesSincePlayback <= tailFrames, let echo {
            let residual = alignment.residualMilliseconds(estimate: estimator?.delayMilliseconds)
            echo.streamDelayMilliseconds = residual
            _ = echo.process(capture: mic, reference: UnsafeBufferPointer(reference), output: processed)
            if let secondEcho {
                secondEcho.streamDelayMilliseconds = residual
                _ = secondEcho.process(capture: UnsafeBufferPointer(processed), reference: UnsafeBufferPointer(reference),
                                       output: processed)
            }
        }
        if let noise { _ = noise.process(processed) }
    }

    /// Passes the frame the stages just produced (up to what is owed: the zero padding of the last frame is not)
    /// to the output stages, with the speech gate's verdict from the levels of the input it belongs to,
    /// ``delaySamples`` back: the mic and the aligned reference delayed exactly, whether the far end played in
    /// the frames that span covers, and the first canceller's echo estimate (a level per frame, so the two
    /// frames the span covers are mixed by power in proportion).
    private func deliver(mic: UnsafeBufferPointer<Int16>, inputLevel: Float, cancelling: Bool) {
        let frameIndex = framesProcessed
        let mask = recentFrames.count - 1
        recentFrames[frameIndex & mask] = (cancelling, cancelling ? echo?.echoEstimateDecibels ?? inputLevel : inputLevel)
        gateMic.process(mic, into: delayedMic)
        gateReference.process(UnsafeBufferPointer(reference), into: delayedReference)
        let n = min(frameLength, validInput - emitted)
        guard n > 0 else { return }
        let frame = UnsafeBufferPointer(rebasing: processed[0..<n])
        // The span starts `older` samples before the end of frame `frameIndex - whole - 1`, then runs into
        // frame `frameIndex - whole`.
        let whole = delaySamples / frameLength, older = delaySamples % frameLength
        let newer = recentFrames[(frameIndex - whole) & mask]
        let old = older > 0 ? recentFrames[(frameIndex - whole - 1) & mask] : newer
        let played = newer.playing || old.playing
        let weight = Float(older) / Float(frameLength)
        let echoLevel = older > 0 ? LevelMeter.decibels(meanSquare: Double(weight) * pow(10, Double(old.echo) / 10)
                                                                    + Double(1 - weight) * pow(10, Double(newer.echo) / 10))
                                  : newer.echo
        let allowed = speechGate.allowsSpeech(reference: played ? LevelMeter.rmsDecibels(UnsafeBufferPointer(delayedReference)) : -160,
                                              mic: LevelMeter.rmsDecibels(UnsafeBufferPointer(delayedMic)),
                                              echoEstimate: echoLevel, output: LevelMeter.rmsDecibels(frame))
        output.process(frame, position: emitted, speechAllowed: allowed, duringPlayback: speechGate.isPlaybackActive)
        emitted += n
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
