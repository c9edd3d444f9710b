import AudioFrontEnd
import Foundation
import SpeechStreaming
import VoiceRecognition

extension NeoNui {
    /// Turns one event of a dialog's core into callbacks. Runs on the core's event thread; takes NeoNui's lock only
    /// briefly and posts every callback to the callback thread. The detached check is an atomic load (an audio
    /// chunk takes no NeoNui lock here); events re-check it under the lock the detach takes (``deliverEvent``).
    func handle(_ event: RecognitionEvent, of running: RunningDialog) {
        guard !running.detached else { return }
        let number = running.number
        switch event {
        case .started(let started):
            lock.withLock { running.taskId = started.taskId }
            deliverEvent(.EVENT_TRANSCRIBER_STARTED, dialog: number, asrResult: started.rawJSON, response: started.rawJSON, of: running)
        case .sentenceStart(let start):
            deliverEvent(.EVENT_SENTENCE_START, dialog: number, asrResult: start.rawJSON, response: start.rawJSON, of: running)
        case .partialResult(let result):
            deliverEvent(.EVENT_ASR_PARTIAL_RESULT, dialog: number, asrResult: result.rawJSON, response: result.rawJSON, of: running)
        case .finalResult(let result):
            deliverEvent(.EVENT_SENTENCE_END, dialog: number, asrResult: result.rawJSON, response: result.rawJSON, of: running)
        case .translation(let translation):
            deliverEvent(.EVENT_RESULT_TRANSLATED, dialog: number, asrResult: translation.rawJSON, response: translation.rawJSON, of: running)
        case .speechStarted:
            deliverEvent(.EVENT_VAD_START, dialog: number, asrResult: event.json, response: event.json, of: running)
        case .speechEnded:
            deliverEvent(.EVENT_VAD_END, dialog: number, asrResult: event.json, response: event.json, of: running)
        case .audio(let chunk):
            deliverAudio(chunk, recorder: running.audio.recorder)
        case .level(_, let inputDecibels, _):
            deliver(droppable: .rms) { $0.onNuiRmsChanged(inputDecibels) }
        case .telemetry(let telemetry):
            logger.verbose("echo: delay \(telemetry.delayMilliseconds.map { "\(Int($0)) ms" } ?? "unknown"), ERLE "
                + "\(telemetry.erleDecibels.map { String(format: "%.1f dB", $0) } ?? "-"), double talk \(telemetry.isDoubleTalk)")
        case .drops(let drops):
            logger.warning("audio dropped or missing: \(drops)")
        case .micSilent(let milliseconds):
            deliverEvent(.EVENT_MIC_ERROR, dialog: number, asrResult: "no audio for \(milliseconds) ms", response: event.json,
                         code: .NUI_ERR_MIC_NO_DATA, of: running)
        case .reconnecting(let reconnection):
            logger.warning("connection lost (\(reconnection.cause)); reconnecting, attempt \(reconnection.attempt)")
        case .error(let error):
            droppedCallbacks.store(0, ordering: .relaxed)
            let code = NuiResultCode(error)
            let response = event.json
            logger.error("dialog \(number) failed: \(error.message) (\(code.name) \(code.rawValue))\(callbackDropsLine(running))")
            endDialog(running) {
                self.deliverEvent(.EVENT_ASR_ERROR, dialog: number, asrResult: error.message, response: response, finish: true,
                                  code: code) // endDialog runs it only if this end came first: no detached check
            }()
        case .completed(var summary):
            summary.drops.eventsDropped += droppedCallbacks.exchange(0, ordering: .relaxed)
            let response = event.json
            logger.info("dialog \(number) complete: \(summary.sentences.count) sentences, drops \(summary.drops)\(callbackDropsLine(running))")
            let redacted = summary.redacted(by: logger.redactor) // the sentences may echo a key
            lock.withLock { lastSummary = redacted }
            endDialog(running) {
                self.deliverEvent(.EVENT_TRANSCRIBER_COMPLETE, dialog: number, asrResult: response, response: response,
                                  finish: true) // only if this end came first (endDialog)
            }()
        }
    }

    /// EVENT_AEC_DATA from the core's event thread: the processed chunk as 16-bit PCM through
    /// `onNuiAssistEventCallback`; with save_wav also into aec_output.wav. Not the usual path: a dialog's
    /// ``DialogTap`` posts its chunks from the front end's drain thread (Callbacks.md); this serves a core whose
    /// handler reports the audio. The callback gets the chunk's own storage, no copy: the buffer is read-only for it
    /// (the C listener's `const char *buffer`; see ``NeoNuiSdkDelegate/onNuiAssistEventCallback(_:info:infoLen:buffer:len:)``).
    private func deliverAudio(_ chunk: AudioChunk, recorder: DebugWavRecorder?) {
        let samples = chunk.samples
        if let recorder { samples.withUnsafeBytes { recorder.record(.aecOutput, $0) } }
        deliver(droppable: .aecData) { delegate in
            samples.withUnsafeBytes { bytes in
                delegate.onNuiAssistEventCallback(.EVENT_AEC_DATA, info: nil, infoLen: 0,
                                                  buffer: UnsafeMutableRawPointer(mutating: bytes.baseAddress)?
                                                      .assumingMemoryBound(to: CChar.self),
                                                  len: Int32(bytes.count))
            }
        }
    }
}

extension NeoNui {
    /// ", callbacks dropped: …" with the drops since `running` started, or "" when none.
    func callbackDropsLine(_ running: RunningDialog) -> String {
        let now = callbackDrops, then = running.callbackDropsAtStart
        guard now.total != then.total else { return "" }
        return ", callbacks dropped (the app's callbacks were \(CallbackQueue.droppableCapacity) behind): AEC data "
            + "\(now.aecData - then.aecData), RMS \(now.rms - then.rms), results \(now.results - then.results), "
            + "log lines \(now.logLines - then.logLines)"
    }
}

extension RecognitionSummary {
    /// This summary with its sentences and raw JSON passed through `redactor`.
    func redacted(by redactor: Redactor) -> RecognitionSummary {
        var copy = self
        copy.sentences = sentences.map { redactor.redact($0) }
        copy.rawJSON = rawJSON.map { redactor.redact($0) }
        return copy
    }
}
