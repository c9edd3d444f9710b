/// Keeps residual echo from starting speech segments: decides per frame whether the processed audio may count
/// as near-end speech for the VAD.
///
/// While the far end plays (the aligned reference was active within ``holdFrames``), a frame may count as speech
/// only when
/// - the canceller has converged: its running echo reduction (predicted-echo level minus output level, learned
///   on frames that look like echo alone) is at least ``convergedDecibels``;
/// - the output stands clearly closer to the echo the canceller predicted than echo does (by
///   ``echoMarginDecibels``): echo comes out far below the prediction, a near-end talker, which the linear
///   filter does not predict, near its own level. The prediction is the speex MDF filter's own echo estimate
///   (capture minus the filter's output, ``EchoCanceller/echoEstimateDecibels``), else the mic level: on the
///   scenario matrix's tuning half the estimate let through fewer echo bursts at the same double-talk onsets
///   (false-active 0.9 % -> 0.5 %, worst scene 7.4 % -> 4.2 %), since in double talk the mic holds the talker too;
/// - the output stands ``residualMarginDecibels`` above the running output level of echo-only frames (residual
///   echo plus what the suppressors leave of the noise), so the decaying tail of an echo, whose reduction is
///   limited by the noise floor, does not count;
/// - to start a segment (``isAboveTail``, applied by the processing chain outside open segments), the output
///   stands ``tailMarginDecibels`` above the room's late tail: an envelope of the echo estimate that falls no
///   faster than ``FrontEndConfiguration/EchoGate/tailDecayMilliseconds`` allows, plus the output's learned
///   offset from it on frames taken for echo. In a long room the filter leaves the late tail of each loud word
///   in the output after the prediction has fallen; the running residual level, an average, lets its peaks pass.
/// Before convergence nothing that coincides with playback counts as speech: residual echo cannot be told from a
/// talker then (on the double-talk vectors the first echo would start a segment); nor do the first
/// ``resumeFrames`` after playback resumes from a pause, where the filters leak for a moment. For
/// ``afterPlaybackFrames`` after playback stops, the output must still stand above the residual level (the
/// suppressors held the noise floor down; the VAD's noise estimate needs time to follow it back up). Later every
/// frame may count. While the far end plays (``isPlaybackActive``), the output stages also ask the segmenter for
/// a longer onset (``FrontEndConfiguration/EchoGate/playbackOnsetMilliseconds``): what leaks through this gate
/// comes in short bursts. Frames with strong near-end evidence (``isStrongEvidence``: far above the residual level
/// and far below the echo reduction, which a leak rarely is) complete that onset sooner
/// (``FrontEndConfiguration/EchoGate/strongOnsetMilliseconds``). The settings come from ``FrontEndConfiguration/EchoGate``; the reduction margins were set
/// on `doubletalk_ser0db_16k.wav` (FrontEndEchoTests), the residual margin, the playback onset and the echo
/// estimate as the reference level on the scenario matrix's tuning half.
///
/// While the delay estimator finds no echo of the reference in the mic at all (``DelayEstimator/findsNoEcho``:
/// headphones, a muted loudspeaker), none of this applies: nothing would ever converge, and every frame may count
/// as speech, as without playback (``FrontEndConfiguration/EchoGate/opensWithoutEcho``, ``isStandingAside``); only
/// where it had converged on an echo that then went away, for ``afterEchoGoneFrames`` only what stands above the
/// residual level counts.
///
/// Real-time safe; processing thread.
struct EchoSpeechGate {
    /// Reference level (dBFS) above which the far end counts as playing.
    static let activeReferenceDecibels: Float = -50
    /// How long echo may follow the reference (the room's tail), frames.
    let holdFrames: Int
    /// Running echo reduction needed before a talker can be told from echo, dB.
    let convergedDecibels: Float
    /// A frame whose level falls through the canceller by more than the running echo reduction minus this is
    /// echo, dB.
    let echoMarginDecibels: Float
    /// Speech must stand this far above the output's running residual level during playback, dB.
    let residualMarginDecibels: Float
    /// Running output level (dBFS) of frames that look like echo alone: residual echo plus what is left of the
    /// noise.
    private(set) var residualLevel: Float = -90
    private var framesSinceFarEnd = Int.max / 2
    private var framesSinceResume = 0
    /// Frames after playback resumes (after more than ``holdFrames`` of silence) that never count as speech:
    /// the filter leaks at echo onsets for a moment.
    let resumeFrames: Int
    /// Frames after the hold during which speech must stand above the residual level.
    let afterPlaybackFrames: Int
    /// Running echo reduction over far-end frames that look like echo alone, dB.
    private(set) var echoReduction: Float = 0
    /// Whether the far end played within ``holdFrames`` of the last frame given to ``allowsSpeech``: the
    /// segmenter then needs the longer playback onset (``FrontEndConfiguration/EchoGate/playbackOnsetMilliseconds``).
    var isPlaybackActive: Bool { framesSinceFarEnd <= holdFrames }
    /// How far the tail envelope falls per frame, dB (0: no tail test, see
    /// ``FrontEndConfiguration/EchoGate/tailDecayMilliseconds``).
    let tailDecayPerFrame: Float
    let tailMarginDecibels: Float
    /// The echo estimate's envelope (dBFS): it follows the estimate up at once and falls at the room's decay.
    private(set) var tailLevel: Float = -160
    /// Running output level relative to ``tailLevel`` on frames the tail test takes for echo, dB.
    private(set) var tailOffset: Float = 0
    /// Whether the last frame given to ``allowsSpeech`` stood above the tail envelope plus its offset and
    /// ``tailMarginDecibels`` (always true outside playback or with the tail test off).
    private(set) var isAboveTail = true
    /// A frame with strong near-end evidence during playback stands this far above the residual level and this
    /// far below the running echo reduction, dB (``FrontEndConfiguration/EchoGate/strongResidualDecibels``).
    let strongResidualDecibels: Float
    let strongReductionDecibels: Float
    /// Whether the last frame given to ``allowsSpeech`` was allowed during playback with strong near-end evidence:
    /// the output ``strongResidualDecibels`` above the residual level and its reduction ``strongReductionDecibels``
    /// below the running echo reduction (false outside playback). Such frames may complete a playback onset early
    /// (``FrontEndConfiguration/EchoGate/strongOnsetMilliseconds``).
    private(set) var isStrongEvidence = false
    /// Whether the running echo reduction has reached ``convergedDecibels`` once in this stream. It may fall back
    /// under it later without the canceller having diverged: in a noisy room the output of echo-only frames
    /// comes down to the noise floor, and once the suppressors stop holding that floor down (a few seconds into
    /// playback) the reduction is the echo's height above the floor, under 15 dB at a quiet echo.
    private(set) var hasConverged = false
    /// Whether the last frame given to ``allowsSpeech`` passed every test but the convergence test (during
    /// playback: past the resume frames, its reduction below the running one by the margin, above the residual
    /// level; outside playback: what ``allowsSpeech`` returned). The far-end-only control reads it as near-end
    /// evidence (the barge-in decision applies its own margins, ``allowsBargeIn``).
    private(set) var passesMargins = false
    /// What ``allowsSpeech`` returned for the last frame.
    private(set) var isAllowed = false
    /// Whether the gate stands aside while the mic holds no echo (``FrontEndConfiguration/EchoGate/opensWithoutEcho``).
    let opensWithoutEcho: Bool
    /// Whether the gate stood aside at the last playback frame (judged it without the echo tests: the far end
    /// plays but the mic holds no echo of it). After playback the after-playback test then does not apply unless
    /// the gate had converged before (without an echo from the start there was none to hold the output down, and
    /// the residual level was never learned).
    private(set) var isStandingAside = false
    /// After an echo the gate had converged on went away, the frames of standing aside during which only what
    /// stands above the residual level counts (4 s). Why: until the verdict the cancellers kept subtracting the
    /// echo they had learned and their suppressors held the output far under the room's noise (to -78 dBFS in a
    /// -53 dBFS room); the VAD's noise floor (the minimum over its 3 s window, ``EnergyVoiceActivityDetector``)
    /// remembers that, and the room's noise coming back then read as speech. Chosen on the scenario matrix's tuning
    /// half, 19 scenes with their echo taken out at 10 s (session 29): after it, echo-only scenes' false-active
    /// 4.2 % (2 s, the after-playback hold), 1.0 % (3 s), 0.1 % (4 s, as with the echo kept), 0.1 % (5 s); the
    /// talker's frame recall 0.968, 0.967, 0.963, 0.945.
    static let afterEchoGoneFrames = 400
    /// Frames since the gate began standing aside.
    private var framesStandingAside = 0

    /// Whether the last frame given to ``allowsSpeech`` may count for the barge-in decision, which applies its
    /// own margins over the residual level and under the echo reduction
    /// (``FrontEndConfiguration/BargeIn/nearToResidualDecibels``, ``FrontEndConfiguration/BargeIn/echoMarginDecibels``)
    /// instead of this gate's: during playback with an echo, past the resume frames with the running echo
    /// reduction at least ``convergedDecibels``, or (once the gate has converged) at least `convergedDecibels`
    /// (``FrontEndConfiguration/BargeIn/convergedDecibels``); `waiveConvergence`: whether or not the gate ever
    /// converged (``FrontEndConfiguration/BargeIn/unconvergedAfterMilliseconds``). Otherwise (no playback, or the
    /// gate standing aside) what ``allowsSpeech`` returned. Real-time safe.
    func allowsBargeIn(convergedDecibels floor: Float, waiveConvergence: Bool = false) -> Bool {
        guard isPlaybackActive, !isStandingAside else { return isAllowed }
        return framesSinceResume > resumeFrames
            && (echoReduction >= convergedDecibels || hasConverged && echoReduction >= floor || waiveConvergence)
    }

    init(_ settings: FrontEndConfiguration.EchoGate = FrontEndConfiguration.EchoGate()) {
        holdFrames = settings.holdMilliseconds / 10
        resumeFrames = settings.resumeMilliseconds / 10
        afterPlaybackFrames = settings.afterPlaybackMilliseconds / 10
        convergedDecibels = settings.convergedDecibels
        echoMarginDecibels = settings.echoMarginDecibels
        residualMarginDecibels = settings.residualMarginDecibels
        tailDecayPerFrame = settings.tailDecayMilliseconds > 0 ? 600 / Float(settings.tailDecayMilliseconds) : 0
        tailMarginDecibels = settings.tailMarginDecibels
        strongResidualDecibels = settings.strongResidualDecibels
        strongReductionDecibels = settings.strongReductionDecibels
        opensWithoutEcho = settings.opensWithoutEcho
    }

    /// Takes the levels (dBFS) of one frame: the aligned reference, the mic, the echo the canceller predicted in
    /// it (the mic level when no estimate is available) and the processed output at the same position. Returns
    /// whether the frame may count as speech. `learns` false: the running levels (echo reduction, residual
    /// level, tail offset) stay as they are (the chain's far-end-only settings, ``FrontEndConfiguration/farEndOnlyEcho``,
    /// lower the output of echo frames: the levels stay those of the normal settings, which the chain returns to
    /// at the first near-end evidence). `noEcho`: the delay estimator finds no echo of the reference in the mic
    /// (``DelayEstimator/findsNoEcho``); with ``opensWithoutEcho`` every frame then counts, as without playback.
    mutating func allowsSpeech(reference: Float, mic: Float, echoEstimate: Float, output: Float,
                               learns: Bool = true, noEcho: Bool = false) -> Bool {
        if reference > Self.activeReferenceDecibels {
            if framesSinceFarEnd > holdFrames { framesSinceResume = 0 }
            framesSinceFarEnd = 0
        } else {
            framesSinceFarEnd += 1
        }
        framesSinceResume += 1
        let aboveResidual = output > residualLevel + residualMarginDecibels
        isAboveTail = true
        isStrongEvidence = false
        guard framesSinceFarEnd <= holdFrames else {
            // After playback the output's noise floor comes back up from where the suppressors held it: until
            // the VAD's noise estimate has followed, only what stands above the residual level counts.
            // (Not after a reference without an echo from the start: the residual level was never learned.)
            passesMargins = framesSinceFarEnd > holdFrames + afterPlaybackFrames || aboveResidual
                || isStandingAside && !hasConverged
            isAllowed = passesMargins
            return isAllowed
        }
        if opensWithoutEcho, noEcho {
            // Nothing to tell a talker from: no echo converges, and waiting for it left the user unheard for as
            // long as the far end played (headphones, a muted loudspeaker). The frames after playback resumes
            // still do not count: the cancellers' output moves for a moment then, echo or not.
            // Once the gate has converged on an echo that then went away (a loudspeaker unplugged while it
            // played), the output's floor comes back up from where the suppressors held it, as after playback:
            // for ``afterEchoGoneFrames`` only what stands above the residual level counts.
            if !isStandingAside { framesStandingAside = 0 }
            isStandingAside = true
            framesStandingAside += 1
            passesMargins = framesSinceResume > resumeFrames
                && (!hasConverged || framesStandingAside > Self.afterEchoGoneFrames || aboveResidual)
            isAllowed = passesMargins
            return isAllowed
        }
        if isStandingAside {
            // An echo came (the volume raised, the loudspeaker back): as after a resume, nothing counts at first.
            isStandingAside = false
            framesSinceResume = 0
        }
        let reduction = echoEstimate - output
        if tailDecayPerFrame > 0 {
            tailLevel = max(echoEstimate, tailLevel - tailDecayPerFrame)
            let offset = output - tailLevel
            isAboveTail = offset > tailOffset + tailMarginDecibels
            // Learn from the frames this test takes for echo (a talker standing above the tail does not drag
            // the offset up).
            if learns, mic > Self.activeReferenceDecibels, !isAboveTail { tailOffset += 0.02 * (offset - tailOffset) }
        }
        // Learn from frames that look like echo alone (reduction not far below the running value, so double
        // talk, where the output keeps the talker, does not drag it down); quick to rise, slow to fall.
        if learns, mic > Self.activeReferenceDecibels, reduction > echoReduction - echoMarginDecibels {
            echoReduction += (reduction > echoReduction ? 0.05 : 0.01) * (reduction - echoReduction)
            residualLevel += 0.02 * (output - residualLevel)
        }
        if echoReduction >= convergedDecibels { hasConverged = true }
        passesMargins = framesSinceResume > resumeFrames && reduction < echoReduction - echoMarginDecibels
            && aboveResidual
        let allowed = passesMargins && echoReduction >= convergedDecibels
        isAllowed = allowed
        isStrongEvidence = allowed && output > residualLevel + strongResidualDecibels
            && reduction < echoReduction - strongReductionDecibels
        return allowed
    }
}
