import AudioPlayback
import NuiSDK

extension NeoNuiStreamInputTts {
    /// Attaches local playback (nil detaches it): from the next task on, every task's audio — streamed synthesis
    /// and `playStreamInputTts` / `asyncPlayStreamInputTts` alike — is also played through `playback` and pushed as
    /// its front end's echo reference. The data callback still receives the audio. Playback events arrive through
    /// ``NeoNuiStreamInputTtsDelegate/onStreamInputTtsPlaybackEventCallback(_:sessionId:position_ms:)`` on the
    /// callback thread; `cancelStreamInputTts` also stops playback within one device buffer, `stopStreamInputTts`
    /// lets it play out (`TTS_PLAYBACK_DRAINED` follows `TTS_EVENT_SYNTHESIS_COMPLETE`).
    ///
    /// Any thread; not real-time safe. The SDK does not close a detached playback (the app owns it).
    /// - Returns: `SUCCESS`, or `NUI_ERR_DIALOG_RUNNING` while a task runs.
    @discardableResult
    public func setPlayback(_ playback: StreamInputTtsPlayback?) -> NuiResultCode {
        lock.withLock {
            guard isIdle else { return refuse("setPlayback", .NUI_ERR_DIALOG_RUNNING, "a task is running") }
            self.playback?.player.setEventHandler(nil)
            self.playback = playback
            guard let playback else { logger.info("setPlayback: detached"); return .SUCCESS }
            let callbacks = self.callbacks, box = delegateBox, rate = playback.player.configuration.sampleRate
            playback.player.setEventHandler { [weak playback] event in
                guard let playback, let (kind, utterance, samples) = Self.mapped(event) else { return }
                if kind == .TTS_PLAYBACK_DRAINED || kind == .TTS_PLAYBACK_STOPPED { playback.ended(utterance) }
                let session = playback.sessionId(of: utterance)
                let milliseconds = Int64(samples) * 1000 / Int64(rate)
                callbacks.post {
                    session.withCString { box.delegate?.onStreamInputTtsPlaybackEventCallback(kind, sessionId: $0, position_ms: milliseconds) }
                }
                if kind == .TTS_PLAYBACK_STOPPED, let (decision, heard) = playback.takeInterruption(utterance, milliseconds: Int(milliseconds)) {
                    let interruption = StreamInputTtsInterruption(sessionId: session, positionSamples: samples, sampleRate: rate,
                                                                  wordsHeard: heard?.words, charactersHeard: heard?.characters,
                                                                  textHeard: heard?.text, decision: decision)
                    callbacks.post {
                        session.withCString {
                            box.delegate?.onStreamInputTtsPlaybackEventCallback(.TTS_PLAYBACK_INTERRUPTED, sessionId: $0, position_ms: milliseconds)
                        }
                        box.delegate?.onStreamInputTtsInterruptedCallback(interruption)
                    }
                }
            }
            let configuration = playback.player.configuration
            logger.info("setPlayback: \(playback.sinkPlayback == nil ? "render" : "sink") shape, \(configuration.channelCount) channel(s) at "
                        + "\(configuration.sampleRate) Hz, reference \(playback.player.reference == nil ? "none" : "attached")")
            return .SUCCESS
        }
    }

    private static func mapped(_ event: PlaybackEvent) -> (StreamInputTtsPlaybackEvent, Int, Int)? {
        switch event {
        case .started(let utterance): return (.TTS_PLAYBACK_STARTED, utterance, 0)
        case .decodeFailed(let utterance, _): return (.TTS_PLAYBACK_DECODE_FAILED, utterance, 0)
        case .inputEnded(let utterance, let samples): return (.TTS_PLAYBACK_INPUT_ENDED, utterance, samples)
        case .drained(let utterance, let position): return (.TTS_PLAYBACK_DRAINED, utterance, position.samples)
        case .stopped(let utterance, let position): return (.TTS_PLAYBACK_STOPPED, utterance, position.samples)
        case .micRearmed(let utterance): return (.TTS_PLAYBACK_MIC_REARMED, utterance, 0)
        }
    }
}
