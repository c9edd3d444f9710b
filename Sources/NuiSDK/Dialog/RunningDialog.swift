import Foundation
import VoiceRecognition

/// One dialog between `nui_dialog_start` and its end: the core, its audio paths and the bookkeeping of what was
/// already reported. The flags are guarded by NeoNui's `lock`.
final class RunningDialog: @unchecked Sendable { // mutable flags under NeoNui.lock
    let number: Int
    let core: RecognitionCore
    let audio: DialogAudio
    let puller: AudioPuller?
    /// Set when NeoNui ended the dialog itself (forced cancel, release): later core events are dropped.
    var detached = false
    /// Whether STATE_PAUSE was reported.
    var pauseReported = false
    /// Whether the threads and files were stopped.
    var cleanedUp = false
    /// The task id once the service started the task.
    var taskId: String?

    init(number: Int, core: RecognitionCore, audio: DialogAudio, puller: AudioPuller?) {
        self.number = number
        self.core = core
        self.audio = audio
        self.puller = puller
    }

    /// Stops the pull thread and the WAV writer and lets the core go on a background queue (its threads may
    /// not be joined from themselves), then trims the heap (``MemoryTrim``). Once; call without NeoNui's locks.
    func cleanUp(alreadyCleaned: Bool) {
        guard !alreadyCleaned else { return }
        puller?.stop()
        audio.recorder?.stop()
        let holder = AudioHolder(audio)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) {
            holder.audio = nil // the dialog's recorder; the core runs no thread of its own beyond its event thread
            MemoryTrim.afterDialog()
        }
    }
}

/// Carries a dialog's audio (and so its core) to the background queue that lets it go.
private final class AudioHolder: @unchecked Sendable { // touched by one closure only
    var audio: DialogAudio?
    init(_ audio: DialogAudio) { self.audio = audio }
}
