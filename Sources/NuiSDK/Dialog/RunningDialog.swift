import Foundation
import Synchronization
import VoiceRecognition

/// One dialog between `nui_dialog_start` and its end: the core, its audio paths and the bookkeeping of what was
/// already reported. The flags are guarded by NeoNui's `lock`.
final class RunningDialog: @unchecked Sendable { // mutable flags under NeoNui.lock (`detached` atomic)
    let number: Int
    let core: RecognitionCore
    let audio: DialogAudio
    let puller: AudioPuller?
    /// Set when NeoNui ended the dialog itself (forced cancel, release): later core events are dropped. Written
    /// under NeoNui's lock (with the state it goes with); read there too (``NeoNui/deliverEvent``), and without
    /// it by the event thread's check of each event (one atomic load, not the lock, per 10 ms chunk).
    var detached: Bool {
        get { detachedFlag.load(ordering: .acquiring) }
        set { detachedFlag.store(newValue, ordering: .releasing) }
    }
    private let detachedFlag = Atomic<Bool>(false)
    /// Whether STATE_PAUSE was reported.
    var pauseReported = false
    /// Whether the dialog was ended (``NeoNui/endDialog(_:detach:event:)``): its terminal event posted by the
    /// first end, its threads and files stopped or being stopped.
    var cleanedUp = false
    /// The task id once the service started the task.
    var taskId: String?
    /// ``NeoNui/callbackDrops`` when the dialog started (its end logs the drops since).
    var callbackDropsAtStart = NuiCallbackDrops()
    /// Trims the heap once a minute while the dialog runs (``MemoryTrim/periodic(every:)``).
    private let trimTimer = MemoryTrim.periodic()

    init(number: Int, core: RecognitionCore, audio: DialogAudio, puller: AudioPuller?) {
        self.number = number
        self.core = core
        self.audio = audio
        self.puller = puller
    }

    deinit { trimTimer.cancel() }

    /// Stops the pull thread and the WAV writer, then trims the heap (``MemoryTrim``) on a background queue. Once;
    /// call without NeoNui's locks. The core goes with the last reference to this dialog: NeoNui drops its own
    /// in the same call (nothing holds a dialog's core after `nui_release` returns).
    func cleanUp(alreadyCleaned: Bool) {
        guard !alreadyCleaned else { return }
        puller?.stop()
        audio.recorder?.stop()
        trimTimer.cancel()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { MemoryTrim.afterDialog() }
    }
}
