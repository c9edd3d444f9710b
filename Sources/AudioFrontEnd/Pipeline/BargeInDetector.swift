/// The barge-in decision (``FrontEndConfiguration/BargeIn``): per processed frame, whether the user has now
/// talked over the playback long enough. Fed by ``ProcessingChain`` with what the chain knows of the frame.
///
/// Real-time safe (a value type of a few integers); processing thread.
struct BargeInDetector {
    let settings: FrontEndConfiguration.BargeIn
    private let minimumFrames: Int
    private let gapFrames: Int
    private let rearmFrames: Int
    private let evidenceMinimumFrames: Int
    private let evidenceWarmUpFrames: Int
    private let unconvergedAfterFrames: Int
    private let marginWarmUpFrames: Int
    /// Whether a frame may count without the echo speech gate having converged
    /// (``FrontEndConfiguration/BargeIn/unconvergedAfterMilliseconds``).
    var waivesConvergence: Bool { unconvergedAfterFrames > 0 && gainFrames >= unconvergedAfterFrames }
    /// The sequential test: its running sum (dB·frames), the counted frames since it left 0, and its first frame.
    private var evidence: Float = 0
    private var evidenceFrames = 0
    private var evidenceStartFrame = 0
    /// Counted frames in the current run, the frames missed in it, and its first frame.
    private var runFrames = 0
    private var missedFrames = 0
    private(set) var runStartFrame = 0
    /// Frames since the last counted one (for re-arming after a decision).
    private var quietFrames = Int.max / 2
    private var armed = true
    /// Decisions so far.
    private(set) var count = 0
    /// The reference's power envelope (dB: instant attack, the room's decay) and the running gain from it to the
    /// mic over echo-only frames: the echo the mic would hold without a talker.
    private var referenceEnvelope: Float = -160
    private var echoPathGain: Float = 0
    /// The fast path gain (``FrontEndConfiguration/BargeIn/fastGainMilliseconds``) and its rate per frame.
    private var fastPathGain: Float = 0
    private let fastRate: Float
    private var gainFrames = 0
    /// The mic's excess over the predicted echo, summed over the run's counted frames (each at most 20 dB), dB.
    private var runExcess: Float = 0
    /// How much the frames since the run's and since the sequential test's first frame look like the echo.
    private var runLikeness = BargeInEchoLikeness()
    private var evidenceLikeness = BargeInEchoLikeness()

    /// The envelope's decay per frame, dB (60 dB in ``FrontEndConfiguration/BargeIn/reverberationMilliseconds``).
    private let decayPerFrame: Float
    /// Echo-only frames the path gain needs before the mic-excess test applies.
    static let gainWarmUpFrames = 50

    init(_ settings: FrontEndConfiguration.BargeIn) {
        self.settings = settings
        minimumFrames = max(1, settings.minimumSpeechMilliseconds / 10)
        gapFrames = settings.maximumGapMilliseconds / 10
        rearmFrames = settings.rearmMilliseconds / 10
        evidenceMinimumFrames = settings.evidenceMinimumMilliseconds / 10
        evidenceWarmUpFrames = settings.evidenceWarmUpMilliseconds / 10
        unconvergedAfterFrames = settings.unconvergedAfterMilliseconds / 10
        marginWarmUpFrames = settings.marginWarmUpMilliseconds / 10
        decayPerFrame = 600 / Float(settings.reverberationMilliseconds)
        fastRate = settings.fastGainMilliseconds > 0 ? min(1, 10 / Float(settings.fastGainMilliseconds)) : 0
    }

    /// Whether a frame stands past the decision's margins over the residual level and under the echo reduction
    /// (``FrontEndConfiguration/BargeIn/nearToResidualDecibels``, ``FrontEndConfiguration/BargeIn/echoMarginDecibels``;
    /// without the warm-up's raise): what is not, the path gains take for echo alone. See ``process``.
    func passesMargins(aboveResidualDecibels: Float, belowReductionDecibels: Float) -> Bool {
        aboveResidualDecibels >= settings.nearToResidualDecibels && belowReductionDecibels >= settings.echoMarginDecibels
    }

    /// Takes frame `frame` (its index on the gate's timeline) and returns true when it completes a barge-in. Call
    /// once per frame, in order: the coherence veto averages over the calls since a test's first frame.
    /// - Parameters:
    ///   - playing: the far end plays (the echo gate's ``EchoSpeechGate/isPlaybackActive``).
    ///   - speech: the voice detector found speech in the processed frame and the echo gate allowed it.
    ///   - aboveResidualDecibels: how far the output stands above the gate's running residual-echo level.
    ///   - belowReductionDecibels: how far the frame's echo reduction (predicted echo minus output) falls below
    ///     the gate's running echo reduction.
    ///   - level: the output's level, dBFS.
    ///   - mic, reference: the levels of the mic and the aligned reference at the frame, dBFS.
    ///   - bandExcess: the mic's mean excess over the predicted echo per band (``BargeInBands``), dB; weighed
    ///     with the broadband excess by ``FrontEndConfiguration/BargeIn/bandWeight``.
    ///   - coherence: the output's coherence with the reference (``BargeInCoherence``), 0...1; a test whose
    ///     frames average above ``FrontEndConfiguration/BargeIn/coherenceLimit`` (if > 0) decides nothing.
    ///   - pitch: whether the output and the reference are voiced and at the same pitch (``BargeInPitch``); a test
    ///     whose voiced frames match above ``FrontEndConfiguration/BargeIn/pitchMatchLimit`` (if > 0) decides nothing.
    ///   - noEcho: the mic holds no echo of the reference (the echo gate stands aside,
    ///     ``EchoSpeechGate/isStandingAside``, and the cancellers paused on the frame,
    ///     ``FrontEndConfiguration/pausesCancellersWithoutEcho``): the output's margins over the residual echo
    ///     and under the echo reduction, learned on an echo, do not apply, and only the run decides (the
    ///     sequential test is for a weak talker under an echo). Tuning half, 7 near-end-only mics x 6 references
    ///     (session 29): 246 decisions, all while the user talked, 183 of 202 onsets during playback decided,
    ///     median 260 ms (with the margins: 28, 19 of 202; with the sequential test too: 265 and 1 outside speech,
    ///     median 170 ms). Where an echo appears after seconds without one, the run decides before the estimator
    ///     has seen the echo (0.15-1.4 s): a false decision in 8 of 10 tuning echo scenes with their first 12 s
    ///     of echo taken out (5 of 10 with the margins, the cancellers running; 9 with the sequential test).
    mutating func process(frame: Int, playing: Bool, speech: Bool, aboveResidualDecibels: Float,
                          belowReductionDecibels: Float, level: Float, mic: Float, reference: Float,
                          bandExcess: Float = 0, coherence: Float = 0, pitch: BargeInPitch.Frame = .init(),
                          noEcho: Bool = false) -> Bool {
        referenceEnvelope = max(reference, referenceEnvelope - decayPerFrame)
        let holding = fastRate > 0 && settings.fastHoldDecibels > 0
            && fastPathGain - echoPathGain > settings.fastHoldDecibels
        let pathGain = fastRate > 0 && settings.fastHoldDecibels == 0 ? max(echoPathGain, fastPathGain) : echoPathGain
        let broadband = mic - (referenceEnvelope + pathGain)
        let excess = settings.bandWeight > 0 ? (1 - settings.bandWeight) * min(broadband, 20)
            + settings.bandWeight * bandExcess : broadband
        let talker = speech && (noEcho || passesMargins(aboveResidualDecibels: aboveResidualDecibels,
                                                        belowReductionDecibels: belowReductionDecibels))
        let raised = gainFrames < marginWarmUpFrames ? settings.marginWarmUpDecibels : 0
        let counted = playing && talker && level >= settings.minimumLevelDecibels
            && (noEcho || raised == 0 || aboveResidualDecibels >= settings.nearToResidualDecibels + raised
                && belowReductionDecibels >= settings.echoMarginDecibels + raised)
        if playing, !talker, mic > -60, referenceEnvelope > -60 {
            // Echo alone: learn the path's gain (fast at first, then slow).
            gainFrames += 1
            echoPathGain += max(0.01, 1 / Float(gainFrames)) * (mic - referenceEnvelope - echoPathGain)
            if fastRate > 0 {
                fastPathGain += max(fastRate, 1 / Float(gainFrames)) * (mic - referenceEnvelope - fastPathGain)
            }
        }
        if counted {
            quietFrames = 0
        } else {
            quietFrames += 1
            if !armed && quietFrames >= rearmFrames { armed = true }
        }
        guard playing, armed else {
            runFrames = 0
            missedFrames = 0
            evidence = 0
            evidenceFrames = 0
            return false
        }
        if evidence == 0 {
            evidenceStartFrame = frame
            evidenceLikeness = BargeInEchoLikeness()
        }
        evidenceLikeness.add(coherence: coherence, pitch: pitch)
        if counted {
            evidence += min(excess, 20) - settings.evidenceOffsetDecibels
            evidenceFrames += 1
        } else {
            evidence -= settings.evidenceMissDecibels
        }
        if evidence <= 0 || noEcho {
            // (Without an echo the sequential test does not run: frames counted without the margins must not
            // leave evidence for the first frame with an echo.)
            evidence = 0
            evidenceFrames = 0
        }
        if counted {
            if runFrames == 0 {
                runStartFrame = frame
                runExcess = 0
                runLikeness = BargeInEchoLikeness()
            }
            runFrames += 1
            runExcess += min(excess, 20)
            runLikeness.add(coherence: coherence, pitch: pitch)
        } else if runFrames > 0 {
            runLikeness.add(coherence: coherence, pitch: pitch)
            missedFrames += 1
            if missedFrames > gapFrames {
                runFrames = 0
                missedFrames = 0
            }
        }
        // Long enough, and (once the path gain is known) the mic on average above the echo it would hold alone;
        // or the sequential test's evidence strong enough.
        // Either only while the output, on average since the test's first frame, does not follow the reference.
        let run = runFrames >= minimumFrames
            && (gainFrames < Self.gainWarmUpFrames || runExcess >= settings.micExcessDecibels * Float(runFrames))
            && !runLikeness.followsReference(settings)
        let sequential = !noEcho && settings.evidenceDecibels > 0 && gainFrames >= evidenceWarmUpFrames
            && evidenceFrames >= evidenceMinimumFrames && evidence >= settings.evidenceDecibels
            && !evidenceLikeness.followsReference(settings)
        guard (run || sequential) && !holding else { return false }
        if !run { runStartFrame = evidenceStartFrame }
        evidence = 0
        evidenceFrames = 0
        runFrames = 0
        missedFrames = 0
        armed = false
        count += 1
        return true
    }
}
