/// When the AEC2 stage runs its stronger far-end-only settings (``FrontEndConfiguration/farEndOnlyEcho``, opt-in):
/// after enough playback frames without near-end evidence, and back at the first frame with some. The evidence is
/// the output's echo speech gate (a frame past its margins, an open segment, no playback) or, as the settings say,
/// a second gate on the first canceller's output (before AEC2, whose settings switch: its verdict does not depend
/// on them), alone or with the output's.
///
/// Created with the processing chain (allocates); the rest is real-time safe, on the processing thread.
final class FarEndOnlyControl {
    /// The AEC2 stage whose settings switch.
    let stage: WebRTCEchoCanceller
    /// Playback frames without near-end evidence before the settings switch.
    private let quietFrames: Int
    /// Whether the late-echo suppressor acts only while the settings run.
    let lateEchoOnly: Bool
    /// Whether the output's speech gate keeps its learned levels while the settings run (and they wait for that
    /// gate to converge first).
    private let freezesGate: Bool
    /// Whether the output's gate is evidence beside the first-stage gate.
    private let evidenceFromBoth: Bool
    /// How far above the first-stage gate's residual level a frame counts as evidence, dB (nil: its margins decide).
    private let firstStageMargin: Float?
    /// The gate on the first canceller's output (nil: the output's gate alone is the evidence).
    @exclusivity(unchecked) private var firstStageGate: EchoSpeechGate?
    /// The levels (reference, mic, echo estimate) of the last frames by frame number, for the first canceller's
    /// latency, and that latency in frames.
    private let firstStageLevels: UnsafeMutableBufferPointer<(reference: Float, mic: Float, echo: Float)>
    private let firstStageLagFrames: Int
    /// The first-stage gate's verdict on the last frame (true while the cancellers pause).
    var firstStageEvidence = false
    private var framesWithoutNearEnd = 0

    /// The control for `settings` on `stage`, or nil when the chain has no AEC2 stage to switch.
    /// `firstStage`: the first canceller of a two-canceller chain when it predicts the echo (for the first-stage
    /// evidence), `gate`: the echo gate's settings.
    static func make(_ settings: FrontEndConfiguration.FarEndOnlyEcho?, stage: WebRTCEchoCanceller?,
                     firstStage: (any EchoCanceller)?, gate: FrontEndConfiguration.EchoGate) throws -> FarEndOnlyControl? {
        guard let settings, let stage, stage.configuration.mode == .aec2 else { return nil }
        try settings.validate()
        stage.farEndOnlySettings = .init(suppressionLevel: settings.suppressionLevel, extendedFilter: settings.extendedFilter)
        return FarEndOnlyControl(settings, stage: stage, firstStage: firstStage, gate: gate)
    }

    private init(_ settings: FrontEndConfiguration.FarEndOnlyEcho, stage: WebRTCEchoCanceller,
                 firstStage: (any EchoCanceller)?, gate: FrontEndConfiguration.EchoGate) {
        self.stage = stage
        quietFrames = settings.quietMilliseconds / 10
        lateEchoOnly = settings.lateEchoOnly
        freezesGate = settings.freezesGate
        evidenceFromBoth = settings.evidenceFromBoth
        switch settings.evidence {
        case .output, .firstStage: firstStageMargin = nil
        case .firstStageLevel(let margin): firstStageMargin = margin
        }
        firstStageGate = settings.evidence != .output && firstStage?.echoEstimateDecibels != nil ? EchoSpeechGate(gate) : nil
        firstStageLevels = .allocate(capacity: 8)
        firstStageLevels.initialize(repeating: (-160, -160, -160))
        firstStageLagFrames = min(7, (firstStage?.latencySamples ?? 0) / stage.frameLength)
    }

    deinit { firstStageLevels.deallocate() }

    /// Whether a gate runs on the first canceller's output (``judgeFirstStage(frame:reference:mic:echo:output:)``
    /// wants each frame then).
    var judgesFirstStage: Bool { firstStageGate != nil }

    /// Whether the output's gate is to keep its learned levels this frame: the settings run and freeze it.
    var freezesGateNow: Bool { freezesGate && stage.isFarEndOnly }

    /// Feeds the first-stage gate frame `frame`'s first-canceller output level `output`, with the levels of the
    /// input that frame holds (``firstStageLagFrames`` back), and keeps its verdict in ``firstStageEvidence``.
    /// `reference`, `mic`, `echo`: this frame's aligned reference, mic and the first canceller's echo estimate, dBFS.
    func judgeFirstStage(frame: Int, reference: Float, mic: Float, echo: Float, output: Float) {
        let mask = firstStageLevels.count - 1
        firstStageLevels[frame & mask] = (reference, mic, echo)
        let then = firstStageLevels[(frame - firstStageLagFrames) & mask]
        _ = firstStageGate!.allowsSpeech(reference: then.reference, mic: then.mic, echoEstimate: then.echo, output: output)
        firstStageEvidence = !firstStageGate!.isPlaybackActive
            || (firstStageMargin.map { output > firstStageGate!.residualLevel + $0 } ?? firstStageGate!.passesMargins)
    }

    /// Switches the stage for the frame the output's speech gate just judged and returns whether the far-end-only
    /// settings run. `playing`, `passesMargins`, `converged`: that gate's ``EchoSpeechGate/isPlaybackActive``,
    /// ``EchoSpeechGate/passesMargins`` and ``EchoSpeechGate/hasConverged``; `inSegment`: a speech segment is open.
    func decide(playing: Bool, passesMargins: Bool, converged: Bool, inSegment: Bool) -> Bool {
        let outputEvidence = !playing || passesMargins || inSegment
        let evidence = firstStageGate == nil ? outputEvidence
            : firstStageEvidence || inSegment || evidenceFromBoth && outputEvidence
        framesWithoutNearEnd = evidence ? 0 : framesWithoutNearEnd + 1
        let on = framesWithoutNearEnd > quietFrames && (!freezesGate || converged)
        stage.setFarEndOnly(on)
        return on
    }
}
