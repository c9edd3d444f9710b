import AudioFrontEnd
import VoiceRecognition

/// What the audio push paths of one dialog need: its core, the debug WAV recorder and whether AEC is on.
/// Reached through ``DialogSlot`` without a lock.
final class DialogAudio: Sendable {
    let core: RecognitionCore
    let recorder: DebugWavRecorder?
    let echoCancellation: Bool

    init(core: RecognitionCore, recorder: DebugWavRecorder?, echoCancellation: Bool) {
        self.core = core
        self.recorder = recorder
        self.echoCancellation = echoCancellation
    }

    /// Pushes mic bytes; records what was taken with save_wav. Real-time safe.
    func pushMic(_ bytes: UnsafeRawBufferPointer) -> PushResult {
        let result = core.pushMic(bytes: bytes)
        if let recorder, result.accepted > 0 { recorder.record(.mic, UnsafeRawBufferPointer(rebasing: bytes[..<result.accepted])) }
        return result
    }

    /// Pushes reference bytes; records what was taken with save_wav. Real-time safe.
    func pushReference(_ bytes: UnsafeRawBufferPointer) -> PushResult {
        let result = core.pushReference(bytes: bytes)
        if let recorder, result.accepted > 0 {
            recorder.record(.reference, UnsafeRawBufferPointer(rebasing: bytes[..<result.accepted]))
        }
        return result
    }
}
