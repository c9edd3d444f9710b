@testable import AudioFrontEnd

extension BargeInDetector {
    /// Feeds the frame `gate` has just judged (its levels, dBFS) as ``ProcessingChain`` does; `voice`: the VAD
    /// hears speech; `pitch`: the output and reference's voicing and pitch (``BargeInPitch``). Returns whether a
    /// barge-in was decided.
    mutating func judge(after gate: EchoSpeechGate, frame: Int, reference: Float, mic: Float, echo: Float,
                        output: Float, voice: Bool, pitch: BargeInPitch.Frame = .init()) -> Bool {
        let allowed = gate.allowsBargeIn(convergedDecibels: settings.convergedDecibels,
                                         waiveConvergence: waivesConvergence)
        return process(frame: frame, playing: gate.isPlaybackActive, speech: voice && allowed,
                       aboveResidualDecibels: output - gate.residualLevel,
                       belowReductionDecibels: gate.echoReduction - (echo - output),
                       level: output, mic: mic, reference: reference, pitch: pitch)
    }
}
