import VoiceRecognition

/// A dialog's front-end output straight from the front end's drain thread to the callback thread
/// (``VoiceRecognition/DialogOutputTap``): `EVENT_AEC_DATA` (copied once, into the callback queue's chunk
/// pool: no allocation, one lock), `onNuiRmsChanged` (no closure) and the VAD events, in stream order. The
/// core's event thread is not on this path. Nothing of the dialog after its end: the core closes the tap before
/// its last event, and NeoNui before it ends a dialog itself (``NeoNui/endDialog(_:detach:event:)``).
final class DialogTap: DialogOutputTap, @unchecked Sendable { // weak references and an immutable recorder
    private weak var nui: NeoNui?
    private weak var running: RunningDialog? // weak: the dialog holds its core, which holds this tap
    private let recorder: DebugWavRecorder?
    /// Samples of one `EVENT_AEC_DATA` (10 ms at the output rate), for counting the chunks the front end dropped.
    private let chunkSamples: Int

    init(nui: NeoNui, running: RunningDialog, outputRate: Int) {
        self.nui = nui
        self.running = running
        recorder = running.audio.recorder
        chunkSamples = max(1, outputRate / 100)
    }

    /// EVENT_AEC_DATA; with save_wav also into aec_output.wav. Drain thread; no allocation, the queue's lock.
    func dialogAudio(_ samples: UnsafeBufferPointer<Int16>, position: Int) {
        guard let nui, let running, !running.detached else { return }
        if let recorder { recorder.record(.aecOutput, UnsafeRawBufferPointer(samples)) }
        if !nui.callbacks.postSamples(samples) { nui.dropCounts.count(.aecData) }
    }

    /// onNuiRmsChanged with the input level. Drain thread; no allocation, the queue's lock.
    func dialogLevel(milliseconds: Int, inputDecibels: Float, outputDecibels: Float) {
        guard let nui, let running, !running.detached else { return }
        if !nui.callbacks.postLevel(inputDecibels) { nui.dropCounts.count(.rms) }
    }

    /// Chunks the front end dropped because the callback thread, which drains it, was behind
    /// (``AudioFrontEnd/FrontEndConfiguration/EventsBehind/dropAppEvents``): counted as `EVENT_AEC_DATA` and
    /// `onNuiRmsChanged` drops (a frame's audio and level go together), as the callback queue counts its own.
    /// Drain round on the callback thread; atomics only.
    func dialogAudioDropped(samples: Int) {
        guard let nui, let running, !running.detached else { return }
        let chunks = (samples + chunkSamples - 1) / chunkSamples
        nui.dropCounts.count(.aecData, chunks)
        nui.dropCounts.count(.rms, chunks)
    }

    /// EVENT_VAD_START / EVENT_VAD_END. Drain thread (a few per sentence: allocates like any event).
    func dialogSpeech(_ event: RecognitionEvent) {
        guard let nui, let running else { return }
        nui.handle(event, of: running)
    }
}
