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
    /// The mic delayed by ``estimatorLagFrames`` for the delay estimator (see ``process(frame:validCount:isPlaying:)``).
    private let estimatorMic: SampleDelay
    private let laggedMic: UnsafeMutableBufferPointer<Int16>
    private let processed: UnsafeMutableBufferPointer<Int16>
    private let tailFrames: Int
    private let compensator: LatencyCompensator
    /// The mic delayed by the echo cancellers' latency, for frames where they pause.
    private let pausedPath: SampleDelay
    /// Mic samples processed that are owed output (the zero padding of the last frame excluded).
    private var validInput = 0
    /// Samples passed to the output stages.
    private var emitted = 0
    /// Silent frames run at the end of the stream to flush the stages.
    private var flushFrames = 0
    private var speechGate: EchoSpeechGate
    /// How many frames the delay estimator lags the newest mic frame.
    static let estimatorLagFrames = 2
    /// Reference, mic and predicted-echo levels (dBFS) of the last frames, by frame number modulo the count, for
    /// the speech gate once the compensated output of the frame comes out. The predicted echo is the first
    /// canceller's linear echo estimate (``EchoCanceller/echoEstimateDecibels``), else the mic level.
    private let recentLevels: UnsafeMutableBufferPointer<(reference: Float, mic: Float, echo: Float)>
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
        let gate = configuration.voiceDetection?.echoGate ?? FrontEndConfiguration.EchoGate()
        try gate.validate()
        speechGate = EchoSpeechGate(gate)
        telemetry = EchoTelemetryMeter(sampleRate: rate)
        let echoLatency = (echo?.latencySamples ?? 0) + (secondEcho?.latencySamples ?? 0)
        pausedPath = SampleDelay(delay: echoLatency)
        estimatorMic = SampleDelay(delay: Self.estimatorLagFrames * frameLength)
        laggedMic = .zeroed(capacity: frameLength)
        compensator = LatencyCompensator(latency: echoLatency + (noise?.latencySamples ?? 0), frameLength: frameLength)
        recentLevels = .allocate(capacity: 16)
        recentLevels.initialize(repeating: (-160, -160, -160))
        reference = .zeroed(capacity: frameLength)
        unshifted = .zeroed(capacity: frameLength)
        processed = .zeroed(capacity: frameLength)
    }

    deinit {
        reference.deallocate()
        recentLevels.deallocate()
        unshifted.deallocate()
        laggedMic.deallocate()
        processed.deallocate()
    }

    /// The delay estimate, ms, or nil. Processing thread.
    var delayMilliseconds: Double? { estimator?.delayMilliseconds }

    /// Samples the echo canceller(s) and noise suppressor delay their output by; the chain removes this delay,
    /// so output sample `n` belongs to mic sample `n`.
    var latencySamples: Int { compensator.latency }

    /// Processes one 10 ms mic frame at the processing rate; its position is `framesProcessed × frameLength`.
    /// `isPlaying` is the app's playback hint. Real-time safe; the caller has checked the event rings have room.
    /// `validCount` is less than a frame only for the zero-padded last frame: only that many samples are owed
    /// output (delivered by ``finish(isPlaying:)``).
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
        let cancelling = echo != nil && framesSincePlayback <= tailFrames
        recentLevels[framesProcessed % recentLevels.count] = (cancelling ? referenceLevel : -160, inputLevel,
                                                              cancelling ? echo?.echoEstimateDecibels ?? inputLevel : inputLevel)
        events.emitLevel(milliseconds: milliseconds, input: inputLevel, output: outputLevel)
        telemetry.add(mic: inputLevel, output: outputLevel, reference: referenceLevel)
        validInput += validCount ?? frameLength
        deliverWholeFrames()
        framesProcessed += 1
        if framesProcessed % 25 == 0 {
            events.emitTelemetry(milliseconds: milliseconds, delay: estimator?.delayMilliseconds,
                                 alignment: alignment.shiftMilliseconds, erle: telemetry.erleDecibels,
                                 doubleTalk: telemetry.isDoubleTalk, drift: estimator?.driftPartsPerMillion)
            telemetry.startPeriod()
        }
    }

    /// One step of ending the stream: runs a silent frame through the stages while the output of the last mic
    /// samples is still inside them, else passes up to one frame of what is owed to the output stages (a partial
    /// frame last). Returns true while more steps are needed. Each step needs event-ring room for one frame.
    /// Real-time safe; processing thread.
    func finishStep(isPlaying: Bool) -> Bool {
        let owed = validInput - emitted
        guard owed > 0 else { return false }
        if compensator.count < owed {
            framesSincePlayback = isPlaying ? 0 : framesSincePlayback + 1
            _ = unshifted.update(repeating: 0)
            alignment.read(references, at: (framesProcessed + flushFrames) * frameLength, into: reference)
            flushFrames += 1
            runStages(UnsafeBufferPointer(unshifted))
            deliverWholeFrames()
        } else {
            let n = min(owed, frameLength)
            output.process(compensator.first(n), position: emitted)
            compensator.removeFirst(n)
            emitted += n
        }
        return validInput > emitted
    }

    /// Echo cancellation and noise suppression of `mic` with the aligned `reference` into `processed`, which
    /// then goes into the latency compensator.
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
        compensator.append(UnsafeBufferPointer(processed))
    }

    /// Passes every whole compensated frame owed to the output stages.
    private func deliverWholeFrames() {
        while compensator.hasFrame, validInput - emitted >= frameLength {
            let frame = compensator.first(frameLength)
            let levels = recentLevels[(emitted / frameLength) % recentLevels.count]
            let allowed = speechGate.allowsSpeech(reference: levels.reference, mic: levels.mic, echoEstimate: levels.echo,
                                                  output: LevelMeter.rmsDecibels(frame))
            output.process(frame, position: emitted, speechAllowed: allowed, duringPlayback: speechGate.isPlaybackActive)
            compensator.removeFirst(frameLength)
            emitted += frameLength
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
