#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The per-frame work of the front end at the processing rate: alignment, echo cancellation, noise suppression,
/// levels and telemetry, then the output stages. Each frame's output goes to the output stages as soon as the
/// stages produce it: it lags the mic by ``delaySamples`` (reported as ``processingDelay``, never held back).
///
/// Created on the control thread (allocates, may throw); ``process(frame:)`` runs on the processing thread only
/// and is real-time safe.
///
/// The per-frame state mutated in place (the `@exclusivity(unchecked)` properties) is touched by the processing
/// thread only, one frame at a time: without the attribute each frame paid a runtime exclusivity check
/// (`swift_beginAccess`, a thread-local lookup) for every mutating call on them that reaches C code.
final class ProcessingChain {
    let sampleRate: Int
    let frameLength: Int
    private let echo: (any EchoCanceller)?
    private let secondEcho: (any EchoCanceller)?
    /// The default chain's pair (speex MDF, then AEC2): a speex divergence reset (an echo path change) is passed
    /// on to AEC2 (``WebRTCEchoCanceller/echoPathChanged()``). nil for other chains.
    private let pathChangeLink: (speex: SpeexEchoCanceller, aec2: WebRTCEchoCanceller)?
    private var speexResetsSeen = 0
    /// Holds the delivered output under the mic for a while after such a reset (nil: off,
    /// ``WebRTCEchoCanceller/Configuration/pathChangeOutputDepthDecibels``).
    @exclusivity(unchecked) private var pathLimiter: PathChangeOutputLimiter?
    private let noise: (any NoiseSuppressor)?
    /// The WebRTC canceller whose `AudioProcessing` also runs WebRTC NS and/or the WebRTC VAD (issue 13: one band
    /// split instead of one instance per stage), or nil. It runs on every frame: while the cancellers pause it
    /// idles on a silent reference (no far end, so its filter does not adapt), so NS and the VAD keep running.
    private let host: WebRTCEchoCanceller?
    /// A silent reference for ``host`` while the cancellers pause.
    private let silence: UnsafeMutableBufferPointer<Int16>
    private let estimator: DelayEstimator?
    @exclusivity(unchecked) private var alignment: EchoAlignment
    /// Reads the reference at ``alignment``'s fractional shift (while it follows drift).
    private let interpolator: FractionalDelay
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
    /// ``FrontEndConfiguration/pausesCancellersWithoutEcho``.
    private let pausesCancellersWithoutEcho: Bool
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
    /// ``delaySamples`` later): whether it fell in the cancellers' window (the far end playing or its tail),
    /// whether they ran on it (not while the estimator found no echo), and the echo they predicted
    /// (``EchoCanceller/echoEstimateDecibels``, else the mic level), dBFS, and that echo as a power (`pow(10,
    /// echo / 10)`, computed once per frame, only when ``delaySamples`` is not whole frames and two frames mix).
    private let recentFrames: UnsafeMutableBufferPointer<(playing: Bool, cancelling: Bool, echo: Float, power: Double)>
    /// Mic samples processed that are owed output (the zero padding of the last frame excluded).
    private var validInput = 0
    /// Samples passed to the output stages.
    private var emitted = 0
    @exclusivity(unchecked) private var speechGate: EchoSpeechGate
    /// The residual-echo suppressor after the cancellers (nil: off, or no canceller with an echo estimate).
    @exclusivity(unchecked) private var lateEcho: LateEchoSuppressor?
    private let suppressed: UnsafeMutableBufferPointer<Int16>
    /// The mic delivered while the reference is silent (nil: off, see ``FrontEndConfiguration/nearEndTransparency``),
    /// the delayed mic it mixes in, and the largest delay for the unaligned reference before there is an estimate.
    @exclusivity(unchecked) private var transparency: NearEndTransparency?
    private let transparentMic: UnsafeMutableBufferPointer<Int16>
    private let maximumDelayFrames: Int
    /// The barge-in decision (nil when off or without voice detection).
    @exclusivity(unchecked) private var bargeIn: BargeInDetector?
    /// The looser decision beside it (``FrontEndConfiguration/bargeInSuspicion``), or nil.
    @exclusivity(unchecked) private var suspicion: BargeInDetector?
    /// Its per-band excess (nil unless ``FrontEndConfiguration/BargeIn/bandWeight`` > 0).
    private let bargeInBands: BargeInBands?
    /// The output's coherence with the reference (nil unless a decision has a ``FrontEndConfiguration/BargeIn/coherenceLimit``).
    private let bargeInCoherence: BargeInCoherence?
    /// Whether the output speaks at the reference's pitch (nil unless a decision has a ``FrontEndConfiguration/BargeIn/pitchMatchLimit``).
    private let bargeInPitch: BargeInPitch?
    /// ``FrontEndConfiguration/EchoGate/startsOnBargeIn``.
    private let bargeInStartsSpeech: Bool
    /// When the AEC2 stage switches to stronger settings while no near end is likely (nil: off,
    /// ``FrontEndConfiguration/farEndOnlyEcho``).
    private let farEndOnly: FarEndOnlyControl?
    /// How many frames the delay estimator lags the newest mic frame.
    static let estimatorLagFrames = 2
    private var framesSincePlayback = Int.max / 2
    /// Whether the app's playback hint came back on (after a `false`) and no reference sound has reached the
    /// aligned reference since: the cancellers wait (see ``process(frame:validCount:isPlaying:)``).
    private var awaitingSound = false
    private(set) var framesProcessed = 0
    @exclusivity(unchecked) private var telemetry: EchoTelemetryMeter
    private var lastDrops = DropCounts()

    init(configuration: FrontEndConfiguration, references: ReferenceHistory, events: EventChannel) throws {
        let rate = configuration.processingRate
        sampleRate = rate
        frameLength = rate / 100
        self.references = references
        self.events = events
        let hosted = Self.hostedStages(configuration)
        (echo, secondEcho) = try Self.makeEcho(configuration.echoCancellation, rate: rate, hosting: hosted)
        host = hosted.noise == nil && hosted.voice == nil ? nil : (secondEcho ?? echo) as? WebRTCEchoCanceller
        if let speex = echo as? SpeexEchoCanceller, let aec2 = secondEcho as? WebRTCEchoCanceller,
           aec2.configuration.pathChangeSuppressionLevel != nil || aec2.configuration.pathChangeOutputDepthDecibels != nil {
            pathChangeLink = (speex, aec2)
            pathLimiter = aec2.configuration.pathChangeOutputDepthDecibels.map {
                PathChangeOutputLimiter(depthDecibels: $0, holdMilliseconds: aec2.configuration.pathChangeOutputMilliseconds) }
        } else {
            pathChangeLink = nil
        }
        let gate = configuration.voiceDetection?.echoGate ?? FrontEndConfiguration.EchoGate()
        farEndOnly = try FarEndOnlyControl.make(configuration.farEndOnlyEcho, stage: (secondEcho ?? echo) as? WebRTCEchoCanceller,
                                                firstStage: secondEcho == nil ? nil : echo, gate: gate)
        noise = hosted.noise == nil ? try Self.makeNoise(configuration.noiseSuppression, rate: rate) : nil
        silence = .zeroed(capacity: frameLength)
        if case .automatic(let maximum) = configuration.alignment, echo != nil {
            try AudioFrontEndError.check(maximum, in: 10...2000, "maximum echo delay (ms)")
            estimator = DelayEstimator(sampleRate: rate, maximumDelayMilliseconds: maximum)
            maximumDelayFrames = maximum / 10
        } else {
            estimator = nil
            maximumDelayFrames = 0
        }
        alignment = EchoAlignment(sampleRate: rate, alignment: configuration.alignment)
        interpolator = FractionalDelay(frameLength: frameLength)
        tailFrames = configuration.echoTailAfterPlaybackMilliseconds / 10
        pausesCancellersWithoutEcho = configuration.pausesCancellersWithoutEcho
        // Not with WebRTC NS / VAD hosted in the canceller: the mic would skip the host's delay and its noise
        // suppression (with a separate suppressor, NS still runs on the transparent mic).
        transparency = configuration.nearEndTransparency && echo != nil && host == nil
            ? NearEndTransparency(tailMilliseconds: configuration.echoTailAfterPlaybackMilliseconds) : nil
        transparentMic = .zeroed(capacity: frameLength)
        try gate.validate()
        speechGate = EchoSpeechGate(gate)
        bargeInStartsSpeech = gate.startsOnBargeIn
        try configuration.lateEchoSuppression?.validate()
        lateEcho = echo?.echoEstimateDecibels == nil ? nil : configuration.lateEchoSuppression.map(LateEchoSuppressor.init)
        try configuration.bargeIn?.validate()
        try configuration.bargeInSuspicion?.validate()
        bargeIn = configuration.voiceDetection == nil ? nil : configuration.bargeIn.map(BargeInDetector.init)
        suspicion = configuration.voiceDetection == nil ? nil : configuration.bargeInSuspicion.map(BargeInDetector.init)
        let frameSamples = rate / 100
        bargeInBands = (bargeIn ?? suspicion).flatMap { $0.settings.bandWeight > 0 ? BargeInBands(
            sampleRate: rate, frameLength: frameSamples, reverberationMilliseconds: $0.settings.reverberationMilliseconds,
            fastGainMilliseconds: $0.settings.fastGainMilliseconds, top: $0.settings.bandTop,
            pessimistic: $0.settings.fastHoldDecibels == 0) : nil }
        bargeInCoherence = (bargeIn?.settings.coherenceLimit ?? 0) > 0 || (suspicion?.settings.coherenceLimit ?? 0) > 0
            ? BargeInCoherence(sampleRate: rate, frameLength: frameSamples) : nil
        bargeInPitch = (bargeIn?.settings.pitchMatchLimit ?? 0) > 0 || (suspicion?.settings.pitchMatchLimit ?? 0) > 0
            ? BargeInPitch(sampleRate: rate) : nil
        telemetry = EchoTelemetryMeter(sampleRate: rate)
        let echoLatency = (echo?.latencySamples ?? 0) + (secondEcho?.latencySamples ?? 0)
        // While the cancellers pause the mic skips them, delayed as they would delay it, except the host's share.
        pausedPath = SampleDelay(delay: echoLatency - (host?.latencySamples ?? 0))
        estimatorMic = SampleDelay(delay: Self.estimatorLagFrames * frameLength)
        laggedMic = .zeroed(capacity: frameLength)
        let delay = echoLatency + (noise?.latencySamples ?? 0)
        delaySamples = delay
        output = try OutputStages(configuration: configuration, events: events, processingDelaySamples: delay,
                                  hostedDetector: hosted.voice == nil ? nil : host.map(HostedWebRTCVoiceDetector.init))
        let outputRate = configuration.effectiveOutputRate
        processingDelay = ProcessingDelay(samples: (delay * outputRate + rate / 2) / rate, sampleRate: outputRate)
        gateMic = SampleDelay(delay: delay)
        gateReference = SampleDelay(delay: delay)
        delayedMic = .zeroed(capacity: frameLength)
        delayedReference = .zeroed(capacity: frameLength)
        recentFrames = .allocate(capacity: 16)
        recentFrames.initialize(repeating: (false, false, -160, pow(10, -16)))
        reference = .zeroed(capacity: frameLength)
        unshifted = .zeroed(capacity: frameLength)
        processed = .zeroed(capacity: frameLength)
        suppressed = .zeroed(capacity: frameLength)
    }

    deinit {
        reference.deallocate()
        transparentMic.deallocate()
        silence.deallocate()
        recentFrames.deallocate()
        delayedMic.deallocate()
        delayedReference.deallocate()
        unshifted.deallocate()
        laggedMic.deallocate()
        processed.deallocate()
        suppressed.deallocate()
    }

    /// Barge-in decisions so far. Processing thread.
    var bargeIns: Int { bargeIn?.count ?? 0 }

    /// The delay estimate, ms, or nil. Processing thread.
    var delayMilliseconds: Double? { estimator?.delayMilliseconds }

    /// The delay estimate after the last frame, ms (NaN: none yet), as the bits of a Double: stored by the
    /// processing thread once a frame (a relaxed store: real-time safe), read from any thread.
    private let publishedDelay = Atomic<UInt64>(Double.nan.bitPattern)

    /// The delay estimate after the last processed frame, ms, or nil. Any thread.
    var latestDelayMilliseconds: Double? {
        let value = Double(bitPattern: publishedDelay.load(ordering: .relaxed))
        return value.isNaN ? nil : value
    }

    /// Processes one 10 ms mic frame at the processing rate; its position is `framesProcessed × frameLength`.
    /// `isPlaying` is the app's playback hint. Real-time safe; the caller has checked the event rings have room.
    /// The stages' output of this call goes to the output stages at once (``delaySamples`` behind the mic).
    /// `validCount` is less than a frame only for the zero-padded last frame: only that many samples are owed
    /// output, so the output is exactly as long as the input.
    func process(frame mic: UnsafeBufferPointer<Int16>, validCount: Int? = nil, isPlaying: Bool) {
        let position = framesProcessed * frameLength
        var unshiftedLevel: Float = -160
        // A reference behind the reads is late (and re-anchored when it stays so) only once the estimator, which
        // sees it up to its lag behind, has had its say: its estimate may move the reads back over it.
        references.lateTolerance = estimator != nil && estimator?.delayMilliseconds == nil ? Self.estimatorLagFrames * frameLength : 0
        alignment.read(references, at: position, into: reference, interpolator: interpolator)
        if let estimator {
            // The estimator looks 20 ms into the past: an app that pushes the reference in step with the mic (or
            // through a resampler, which holds back a few samples) has not yet delivered the newest reference of
            // this frame, and zeros there would pull the estimate towards a wrong delay.
            estimatorMic.process(mic, into: laggedMic)
            references.peek(from: position - Self.estimatorLagFrames * frameLength, into: unshifted)
            unshiftedLevel = LevelMeter.rmsDecibels(UnsafeBufferPointer(unshifted))
            estimator.process(mic: UnsafeBufferPointer(laggedMic), reference: UnsafeBufferPointer(unshifted))
            publishedDelay.store((estimator.delayMilliseconds ?? .nan).bitPattern, ordering: .relaxed)
            if let estimate = estimator.delayMilliseconds {
                if alignment.update(estimateMilliseconds: estimate, driftPartsPerMillion: estimator.driftPartsPerMillion,
                                    frameLength: frameLength) {
                    // The reference read with the new shift reaches the delayed reference a frame and the
                    // processing delay later.
                    bargeInCoherence?.restart(afterFrames: 1 + (delaySamples + frameLength - 1) / frameLength)
                }
            }
        }
        let referenceLevel = LevelMeter.rmsDecibels(UnsafeBufferPointer(reference))
        // After a play_start the cancellers run from the first frame whose aligned reference holds sound, not
        // from the hint itself: between the hint and the first sound (a player that has begun an utterance whose
        // audio is still on its way from the server, an app that says play_start early, or frames a push left
        // behind and processed after the hint) there is nothing to cancel, and running the cancellers over that
        // silence advanced speex's state (AEC2 then follows its output) by a number of frames that wall-clock
        // timing set: the same answer came out differently, from one silent frame on (FrontEndPlayHintLeadTests).
        // Issue 14: after 38 or 40 such frames (not 0, 36 or 39) AEC2 let a burst of residual echo through
        // 1,543 ms into the barge-in test's answer, which opened a speech segment. Such frames now pass as frames
        // without playback do; a tail still running from the previous playback runs on (the count goes on from
        // it). Without hints (playing from the start) nothing changes: the reference's leading silence is placed
        // by sample position, not by timing, and the cancellers run from the first frame as before.
        if !isPlaying {
            awaitingSound = true
        } else if awaitingSound && referenceLevel > LevelMeter.floorDecibels {
            awaitingSound = false
        }
        framesSincePlayback = isPlaying && !awaitingSound ? 0 : framesSincePlayback + 1
        // While the estimator finds no echo of the reference (``FrontEndConfiguration/pausesCancellersWithoutEcho``)
        // the cancellers pause as without playback: there is nothing to cancel.
        let playing = echo != nil && framesSincePlayback <= tailFrames
        let cancelling = playing && !(pausesCancellersWithoutEcho && estimator?.findsNoEcho == true)
        runStages(mic, cancelling: cancelling, referenceLevel: referenceLevel,
                  unshiftedLevel: estimator == nil ? nil : unshiftedLevel)
        let milliseconds = position * 1000 / sampleRate
        let inputLevel = LevelMeter.rmsDecibels(mic)
        let outputLevel = LevelMeter.rmsDecibels(UnsafeBufferPointer(processed))
        events.emitLevel(milliseconds: milliseconds, input: inputLevel, output: outputLevel)
        telemetry.add(mic: inputLevel, output: outputLevel, reference: referenceLevel)
        validInput += validCount ?? frameLength
        deliver(mic: mic, levels: (inputLevel, outputLevel), playing: playing, cancelling: cancelling)
        framesProcessed += 1
        if framesProcessed % 25 == 0 {
            events.emitTelemetry(milliseconds: milliseconds, delay: estimator?.delayMilliseconds,
                                 alignment: alignment.shiftMilliseconds, erle: telemetry.erleDecibels,
                                 doubleTalk: telemetry.isDoubleTalk, drift: estimator?.driftPartsPerMillion,
                                 processingDelay: processingDelay.milliseconds)
            telemetry.startPeriod()
        }
    }

    /// Echo cancellation and noise suppression of `mic` with the aligned `reference` into `processed`; while the
    /// reference is silent, the delayed mic in place of the cancellers' output (``NearEndTransparency``).
    private func runStages(_ mic: UnsafeBufferPointer<Int16>, cancelling: Bool, referenceLevel: Float, unshiftedLevel: Float?) {
        // The delayed mic always goes through the paused path (its history must be current when it is used),
        // and the cancellers overwrite it while they run.
        pausedPath.process(mic, into: processed)
        // The stages are called through optional chaining on the stored properties: binding one to a local
        // (`if let echo`) retained and released it on every frame.
        if cancelling {
            var share: (start: Float, end: Float) = (0, 0)
            if transparency != nil {
                let lag = estimator?.delayMilliseconds.map { Int($0 / 10) + 1 } ?? maximumDelayFrames
                share = transparency!.update(aligned: referenceLevel, unaligned: unshiftedLevel, lagFrames: lag)
                if share.start > 0 || share.end > 0 { _ = transparentMic.update(fromContentsOf: processed) }
            }
            defer { NearEndTransparency.mix(mic: UnsafeBufferPointer(transparentMic), into: processed, share: share) }
            let residual = alignment.residualMilliseconds(estimate: estimator?.delayMilliseconds)
            echo?.streamDelayMilliseconds = residual
            _ = echo?.process(capture: mic, reference: UnsafeBufferPointer(reference), output: processed)
            if farEndOnly?.judgesFirstStage == true { judgeFirstStage(mic: mic, referenceLevel: referenceLevel) }
            if let link = pathChangeLink, link.speex.divergenceResets != speexResetsSeen {
                speexResetsSeen = link.speex.divergenceResets
                link.aec2.echoPathChanged()
                pathLimiter?.arm()
            }
            secondEcho?.streamDelayMilliseconds = residual
            _ = secondEcho?.process(capture: UnsafeBufferPointer(processed), reference: UnsafeBufferPointer(reference),
                                    output: processed)
        } else {
            farEndOnly?.firstStageEvidence = true
            _ = host?.process(capture: UnsafeBufferPointer(processed), reference: UnsafeBufferPointer(silence),
                              output: processed)
        }
        _ = noise?.process(processed)
    }

    /// Passes the frame the stages just produced (up to what is owed: the zero padding of the last frame is not)
    /// to the output stages, with the speech gate's verdict from the levels of the input it belongs to,
    /// ``delaySamples`` back: the mic and the aligned reference delayed exactly, whether the far end played in
    /// the frames that span covers, and the first canceller's echo estimate (a level per frame, so the two
    /// frames the span covers are mixed by power in proportion). `levels`: of the mic frame and of the whole
    /// ``processed`` frame, dBFS. `playing`: the frame falls in the cancellers' window (playback and its tail);
    /// `cancelling`: they ran on it (not while the estimator finds no echo), so their echo estimate applies.
    private func deliver(mic: UnsafeBufferPointer<Int16>, levels: (input: Float, output: Float), playing: Bool,
                         cancelling: Bool) {
        let frameIndex = framesProcessed
        let mask = recentFrames.count - 1
        let whole = delaySamples / frameLength, older = delaySamples % frameLength
        let echoNow = cancelling ? echo?.echoEstimateDecibels ?? levels.input : levels.input
        recentFrames[frameIndex & mask] = (playing, cancelling, echoNow, older > 0 ? pow(10, Double(echoNow) / 10) : 0)
        gateMic.process(mic, into: delayedMic)
        gateReference.process(UnsafeBufferPointer(reference), into: delayedReference)
        let n = min(frameLength, validInput - emitted)
        guard n > 0 else { return }
        let frame = UnsafeBufferPointer(rebasing: processed[0..<n])
        // The span starts `older` samples before the end of frame `frameIndex - whole - 1`, then runs into
        // frame `frameIndex - whole`.
        let newer = recentFrames[(frameIndex - whole) & mask]
        let old = older > 0 ? recentFrames[(frameIndex - whole - 1) & mask] : newer
        let played = newer.playing || old.playing
        // The cancellers ran on the span (their echo estimate applies; a cancelled frame is a played one);
        // played but not cancelled: the estimator found no echo and they paused.
        let cancelled = newer.cancelling || old.cancelling
        let paused = played && !cancelled
        let weight = Float(older) / Float(frameLength)
        let echoLevel = older > 0 ? LevelMeter.decibels(meanSquare: Double(weight) * old.power + Double(1 - weight) * newer.power)
                                  : newer.echo
        let outputLevel = n == frameLength ? levels.output : LevelMeter.rmsDecibels(frame)
        let referenceLevel = played ? LevelMeter.rmsDecibels(UnsafeBufferPointer(delayedReference)) : -160
        let micLevel = LevelMeter.rmsDecibels(UnsafeBufferPointer(delayedMic))
        // The tail test keeps late reverberation from starting a segment; inside one the other tests decide (on
        // the tuning half it cost double-talk segments there: onsets 0.61 -> 0.59, F1 0.72 -> 0.65).
        // While the far-end-only settings run (they lower the output of echo frames) the gate keeps the levels it
        // learned under the normal ones (a frozen gate; see farEndOnlyFreeze).
        let frozen = farEndOnly?.freezesGateNow == true
        // While the cancellers pause the gate learns nothing (its levels are of the cancellers' output).
        let allowed = speechGate.allowsSpeech(reference: referenceLevel, mic: micLevel, echoEstimate: echoLevel,
                                              output: outputLevel, learns: !frozen && !paused,
                                              noEcho: estimator?.findsNoEcho == true)
        let segmentAllowed = allowed && (speechGate.isAboveTail || output.isInSpeechSegment)
        // Far-end-only settings: on after enough playback frames without near-end evidence, off at the first
        // frame with some (a frame past the gate's margins, an open segment) or without playback.
        let farEndOnlyNow = farEndOnly?.decide(playing: speechGate.isPlaybackActive, passesMargins: speechGate.passesMargins,
                                               converged: speechGate.hasConverged, inSegment: output.isInSpeechSegment) ?? false
        // The late-echo suppressor acts on the delivered audio only: the VAD, the gate and the barge-in decision
        // judge the cancellers' output (its pumping noise floor would read as speech onsets to the detector).
        let delivered = lateEcho == nil ? frame
            : suppressLateEcho(frame, echoEstimate: cancelled ? echoLevel : LevelMeter.floorDecibels,
                               active: cancelled,
                               nearEndPossible: allowed || farEndOnly?.lateEchoOnly == true && !farEndOnlyNow)
        let speech = output.process(pathLimiter == nil ? delivered : limitAfterPathChange(delivered, mic: micLevel, playing: cancelled),
                                    position: emitted, speechAllowed: segmentAllowed,
                                    duringPlayback: speechGate.isPlaybackActive && !speechGate.isStandingAside,
                                    strongEvidence: speechGate.isStrongEvidence, detectorFrame: frame)
        // The barge-in decision keeps its own tuning (Scripts/scenarios/bargein.py) on the gate without the tail test.
        // Once the gate has converged the barge-in asks its own running-reduction floor (BargeIn.convergedDecibels).
        if bargeIn != nil || suspicion != nil {
            decideBargeIn(speech: speech, output: frame, levels: (outputLevel, echoLevel, micLevel, referenceLevel),
                          noEcho: speechGate.isStandingAside && paused)
        }
        emitted += n
    }

    /// Feeds the far-end-only control's first-stage gate the first canceller's output just produced
    /// (``FarEndOnlyControl/judgeFirstStage(frame:reference:mic:echo:output:)``).
    @inline(never)
    private func judgeFirstStage(mic: UnsafeBufferPointer<Int16>, referenceLevel: Float) {
        farEndOnly!.judgeFirstStage(frame: framesProcessed, reference: referenceLevel, mic: LevelMeter.rmsDecibels(mic),
                                    echo: echo?.echoEstimateDecibels ?? -160,
                                    output: LevelMeter.rmsDecibels(UnsafeBufferPointer(processed)))
    }

    /// A copy of `frame` through the late-echo suppressor (``lateEcho``, not nil). Out of line: most chains run
    /// without it, and the per-frame path stays shorter.
    @inline(never)
    private func suppressLateEcho(_ frame: UnsafeBufferPointer<Int16>, echoEstimate: Float, active: Bool,
                                  nearEndPossible: Bool) -> UnsafeBufferPointer<Int16> {
        let copy = UnsafeMutableBufferPointer(rebasing: suppressed[0..<frame.count])
        _ = copy.update(fromContentsOf: frame)
        lateEcho!.process(copy, echoEstimate: echoEstimate, active: active, nearEndPossible: nearEndPossible)
        return UnsafeBufferPointer(copy)
    }

    /// `frame` (the delivered output) through ``pathLimiter`` (not nil), in ``suppressed``. Out of line, as
    /// ``suppressLateEcho(_:echoEstimate:active:nearEndPossible:)``.
    @inline(never)
    private func limitAfterPathChange(_ frame: UnsafeBufferPointer<Int16>, mic: Float, playing: Bool) -> UnsafeBufferPointer<Int16> {
        guard !pathLimiter!.isIdle else { return frame }
        let copy = UnsafeMutableBufferPointer(rebasing: suppressed[0..<frame.count])
        if frame.baseAddress != UnsafePointer(suppressed.baseAddress) { _ = copy.update(fromContentsOf: frame) }
        pathLimiter!.process(copy, mic: mic, playing: playing)
        return UnsafeBufferPointer(copy)
    }

    /// Feeds the barge-in decision the frame just judged (position ``emitted``) and emits a decision it completes.
    /// `levels`: of the output, the echo the canceller predicted, the mic and the aligned reference, dBFS.
    /// `speech`: the voice detector's and the gate's verdict on the frame, before each decision's own gate test.
    /// `noEcho`: the gate stands aside and the cancellers paused on the frame (see ``BargeInDetector``).
    private func decideBargeIn(speech: Bool, output frameOutput: UnsafeBufferPointer<Int16>,
                               levels: (output: Float, echo: Float, mic: Float, reference: Float), noEcho: Bool) {
        let frame = emitted / frameLength
        let playing = speechGate.isPlaybackActive
        // The bands learn on the frames the first decision (the stopping one, if on) calls echo-only: not speech
        // past the gate and the decision's margins. (Optional chaining, not `bargeIn ?? suspicion!`: no copy of a detector
        // per frame.)
        let firstSpeech = speech && speechGate.allowsBargeIn(
            convergedDecibels: bargeIn?.settings.convergedDecibels ?? suspicion!.settings.convergedDecibels,
            waiveConvergence: bargeIn?.waivesConvergence ?? suspicion!.waivesConvergence)
        let aboveResidual = levels.output - speechGate.residualLevel
        let belowReduction = speechGate.echoReduction - (levels.echo - levels.output)
        let talker = firstSpeech && (noEcho || bargeIn?.passesMargins(aboveResidualDecibels: aboveResidual,
                                                                       belowReductionDecibels: belowReduction)
                                     ?? suspicion!.passesMargins(aboveResidualDecibels: aboveResidual,
                                                                 belowReductionDecibels: belowReduction))
        let bands = bargeInBands?.update(mic: UnsafeBufferPointer(delayedMic), reference: UnsafeBufferPointer(delayedReference),
                                         echoOnly: playing && !talker && levels.mic > -60 && levels.reference > -60) ?? 0
        let coherence = bargeInCoherence?.update(output: frameOutput, reference: UnsafeBufferPointer(delayedReference)) ?? 0
        let pitch = bargeInPitch?.update(output: frameOutput, reference: UnsafeBufferPointer(delayedReference),
                                         analyse: playing && speech) ?? BargeInPitch.Frame()
        if bargeIn != nil, decide(&bargeIn!, frame: frame, playing: playing, speech: firstSpeech, levels: levels, bands: bands,
                                  coherence: coherence, pitch: pitch, noEcho: noEcho) {
            emitDecision(bargeIn!, isSuspicion: false)
            if bargeInStartsSpeech { output.startSpeech(framesBack: frame - bargeIn!.runStartFrame) }
        }
        guard suspicion != nil else { return }
        let suspected = bargeIn == nil ? firstSpeech : speech && speechGate.allowsBargeIn(
            convergedDecibels: suspicion!.settings.convergedDecibels, waiveConvergence: suspicion!.waivesConvergence)
        if decide(&suspicion!, frame: frame, playing: playing, speech: suspected, levels: levels, bands: bands,
                  coherence: coherence, pitch: pitch, noEcho: noEcho) {
            emitDecision(suspicion!, isSuspicion: true)
        }
    }

    private func decide(_ detector: inout BargeInDetector, frame: Int, playing: Bool, speech: Bool,
                        levels: (output: Float, echo: Float, mic: Float, reference: Float), bands: Float,
                        coherence: Float, pitch: BargeInPitch.Frame, noEcho: Bool) -> Bool {
        detector.process(frame: frame, playing: playing, speech: speech,
                         aboveResidualDecibels: levels.output - speechGate.residualLevel,
                         belowReductionDecibels: speechGate.echoReduction - (levels.echo - levels.output),
                         level: levels.output, mic: levels.mic, reference: levels.reference, bandExcess: bands,
                         coherence: coherence, pitch: pitch, noEcho: noEcho)
    }

    private func emitDecision(_ detector: BargeInDetector, isSuspicion: Bool) {
        // The speech events' own offset, so a segment a decision opens starts where the decision says its speech did.
        let start = max(0, detector.runStartFrame * 10 - output.speechTimeOffsetMilliseconds)
        events.emitBargeIn(BargeInDecision(milliseconds: (framesProcessed + 1) * 10, speechStartMilliseconds: start,
                                           sequence: detector.count, isSuspicion: isSuspicion))
    }

    /// Emits a drops event when the counts changed. Processing thread; real-time safe.
    func reportDrops(_ drops: DropCounts) {
        guard drops != lastDrops else { return }
        lastDrops = drops
        events.emitDrops(drops)
    }
}
