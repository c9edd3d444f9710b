import AudioFrontEnd
import VoiceRecognition

/// What the audio push paths of one dialog need: its core, the debug WAV recorder and whether AEC is on.
/// Reached through ``DialogSlot`` without a lock.
/// Between dialogs the engine's own audio (no core, no recorder) is installed instead.
final class DialogAudio: Sendable {
    private enum Target {
        case dialog(RecognitionCore)
        case engine(RecognitionEngine)
    }

    private let target: Target
    let recorder: DebugWavRecorder?
    let echoCancellation: Bool

    init(core: RecognitionCore, recorder: DebugWavRecorder?, echoCancellation: Bool) {
        target = .dialog(core)
        self.recorder = recorder
        self.echoCancellation = echoCancellation
    }

    /// The pushes between dialogs: into the engine's front end, nothing recorded.
    init(engine: RecognitionEngine, echoCancellation: Bool) {
        target = .engine(engine)
        recorder = nil
        self.echoCancellation = echoCancellation
    }

    /// Pushes mic bytes; records what was taken with save_wav. Real-time safe.
    func pushMic(_ bytes: UnsafeRawBufferPointer) -> PushResult {
        let result: PushResult
        switch target {
        case .dialog(let core): result = core.pushMic(bytes: bytes)
        case .engine(let engine): result = engine.pushMic(bytes: bytes)
        }
        if let recorder, result.accepted > 0 { recorder.record(.mic, UnsafeRawBufferPointer(rebasing: bytes[..<result.accepted])) }
        return result
    }

    /// Pushes reference bytes; records what was taken with save_wav. Real-time safe.
    func pushReference(_ bytes: UnsafeRawBufferPointer) -> PushResult {
        let result: PushResult
        switch target {
        case .dialog(let core): result = core.pushReference(bytes: bytes)
        case .engine(let engine): result = engine.pushReference(bytes: bytes)
        }
        if let recorder, result.accepted > 0 {
            recorder.record(.reference, UnsafeRawBufferPointer(rebasing: bytes[..<result.accepted]))
        }
        return result
    }

    /// Pushes reference samples (the played audio handed over by a player, ``NeoNui/pushReference(samples:)``);
    /// records what was taken with save_wav. Real-time safe.
    func pushReference(samples: UnsafeBufferPointer<Int16>) -> PushResult {
        let result: PushResult
        switch target {
        case .dialog(let core): result = core.pushReference(samples: samples)
        case .engine(let engine): result = engine.pushReference(samples: samples)
        }
        if let recorder, result.accepted > 0 {
            recorder.record(.reference, UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: samples[..<result.accepted])))
        }
        return result
    }

    /// The reference is a player's, placed from the mic's position (`FrontEnd.startReferenceAtMic()`). Real-time safe.
    func startReferenceAtMic() {
        switch target {
        case .dialog(let core): core.startReferenceAtMic()
        case .engine(let engine): engine.startReferenceAtMic()
        }
    }

    /// The playback hint (`play_start` / `play_over`) to the front end. Real-time safe.
    func setPlaying(_ isPlaying: Bool) {
        switch target {
        case .dialog(let core): core.setPlaying(isPlaying)
        case .engine(let engine): engine.setPlaying(isPlaying)
        }
    }
}
