import AudioFrontEnd
import Foundation
import SpeechStreaming
import VoiceRecognition

extension NeoNui {
    /// Starts a dialog: the front end and the connection start, `STATE_OPEN` is reported, then
    /// `EVENT_TRANSCRIBER_STARTED` once the server accepts the task (or `EVENT_ASR_ERROR`).
    ///
    /// The corresponding Objective-C call is `-nui_dialog_start:dialogParam:`.
    /// - Parameters:
    ///   - vad_mode: `MODE_P2T`.
    ///   - dialog_params: JSON, may be empty or nil: a fresh `apikey`, and `input_context` for context biasing.
    /// - Returns: `SUCCESS`, `NUI_ERR_NOT_INITIALIZED`, `NUI_ERR_PARAMS_NOT_SET`, `NUI_ERR_DIALOG_RUNNING`,
    ///   `NUI_ERR_UNSUPPORTED_VAD_MODE`, a parameter error, or `NUI_ERR_FRONT_END`.
    @discardableResult
    public func nui_dialog_start(_ vad_mode: NuiVadMode, dialogParam dialog_params: UnsafePointer<CChar>?) -> NuiResultCode {
        let (code, cleanup) = control.withLock { startDialog(vad_mode, dialog_params) }
        cleanup?()
        return code
    }

    private func startDialog(_ mode: NuiVadMode, _ text: UnsafePointer<CChar>?) -> (NuiResultCode, (() -> Void)?) {
        let call = "nui_dialog_start"
        let (current, initial, parameters, keepFiles) = lock.withLock { (state, initParameters, recognition, saveLog) }
        switch current {
        case .uninitialized: return (refuse(call, .NUI_ERR_NOT_INITIALIZED, "call nui_initialize first"), nil)
        case .initialized: return (refuse(call, .NUI_ERR_PARAMS_NOT_SET, "call nui_set_params first"), nil)
        case .running, .stopping: return (refuse(call, .NUI_ERR_DIALOG_RUNNING, "a dialog is running"), nil)
        case .ready: break
        }
        guard let initial, let parameters else { return (.NUI_ERR_INTERNAL, nil) }
        guard mode == .MODE_P2T else { return (refuse(call, .NUI_ERR_UNSUPPORTED_VAD_MODE, "vad_mode \(mode) is not supported, use MODE_P2T"), nil) }
        logger.redactor.add(InitParameters.rawSecrets(text))
        let dialogParameters: DialogParameters
        do {
            dialogParameters = try DialogParameters(json: text) { logger.warning("\(call): \($0)") }
        } catch let error as NuiParameterError {
            return (refuse(call, error.code, error.description), nil)
        } catch {
            return (refuse(call, .NUI_ERR_INTERNAL, "\(error)"), nil)
        }
        let configuration = recognitionConfiguration(initial, parameters, dialogParameters)
        let core: RecognitionCore
        do {
            core = try RecognitionCore(engine: try engine(for: configuration, echoCancellation: parameters.frontEnd.isEchoCancellationOn),
                                       service: configuration.service)
        } catch let error as RecognitionError {
            return (refuse(call, NuiResultCode(error), error.message), nil)
        } catch {
            return (refuse(call, .NUI_ERR_INTERNAL, "\(error)"), nil)
        }
        var recorder: DebugWavRecorder?
        if keepFiles && initial.saveWav, let path = initial.debugPath {
            let micRate = parameters.sampleRate
            let outputRate = parameters.format == .opus ? configuration.frontEnd.processingRate : parameters.sampleRate
            recorder = DebugWavRecorder(directory: path, limit: initial.maxLogFileSize, rates: [micRate, micRate, outputRate])
        }
        let audio = DialogAudio(core: core, recorder: recorder, echoCancellation: parameters.frontEnd.isEchoCancellationOn)
        let number = lock.withLock { () -> Int in
            dialogCount += 1
            return dialogCount
        }
        let puller = initial.audioUpdateManually ? nil : makePuller(audio, sampleRate: parameters.sampleRate)
        let running = RunningDialog(number: number, core: core, audio: audio, puller: puller)
        running.callbackDropsAtStart = callbackDrops
        core.eventHandler = { [weak self, weak running] event in
            guard let self, let running else { return }
            self.handle(event, of: running)
        }
        core.setOutputTap(DialogTap(nui: self, running: running, outputRate: configuration.sampleRate)) // AEC data, RMS and VAD from the drain thread
        lock.withLock {
            dialog = running
            lastDialog = running
            setState(.running)
        }
        recorder?.start()
        if initial.audioUpdateManually {
            slot.install(audio)
            applyPlayingHint(to: audio)
        }
        // STATE_OPEN reaches the app once the front end runs (so a push from the callback is taken) and before any
        // event of the core: the callback thread waits until start() returned.
        callbacks.suspend()
        defer { callbacks.resume() }
        deliverAudioState(.STATE_OPEN)
        logger.info("\(call): dialog \(number), \(parameters.format.rawValue) \(parameters.sampleRate) Hz to \(logger.redactor.redact(url: initial.url))")
        do {
            try core.start()
        } catch {
            let code = (error as? RecognitionError).map(NuiResultCode.init) ?? .NUI_ERR_INTERNAL
            let cleanup = endDialog(running, detach: true)
            return (refuse(call, code, "\(error)"), cleanup)
        }
        puller?.start()
        return (.SUCCESS, nil)
    }

    /// The running engine when its front end is the one `configuration` asks for, else a new one (the old one
    /// closed: no dialog runs now). Control thread, under `control`.
    private func engine(for configuration: RecognitionConfiguration, echoCancellation: Bool) throws -> RecognitionEngine {
        let kept = lock.withLock { engine }
        if let kept, kept.isRunning {
            var wanted = configuration
            wanted.service = kept.configuration.service
            if wanted == kept.configuration { return kept }
        }
        closeEngine()
        let fresh = try RecognitionEngine(configuration: configuration, drainHost: callbacks.drainHost)
        fresh.setBargeInHandler { [weak self] decision in self?.deliverBargeIn(decision) }
        let idle = DialogAudio(engine: fresh, echoCancellation: echoCancellation)
        lock.withLock {
            engine = fresh
            engineAudio = idle
        }
        logger.info("nui_dialog_start: a new front end (\(kept == nil ? "the first" : "the parameters changed"))")
        return fresh
    }

    /// Ends the engine: its front end stops and its connection closes. Control thread, no dialog running.
    func closeEngine() {
        let (old, idle) = lock.withLock { () -> (RecognitionEngine?, DialogAudio?) in
            defer {
                engine = nil
                engineAudio = nil
            }
            return (engine, engineAudio)
        }
        if let idle { slot.remove(idle) }
        old?.close()
    }

    /// Takes a dialog's audio out of the push paths; between dialogs the engine takes the pushes (the echo
    /// canceller keeps converging; nothing is sent). Control thread.
    func closeAudio(of running: RunningDialog) {
        guard slot.remove(running.audio), let idle = lock.withLock({ engineAudio }) else { return }
        slot.install(idle)
    }

    /// The core's configuration: the front end at the app's rate, the service, the format and the timeouts.
    private func recognitionConfiguration(_ initial: InitParameters, _ parameters: RecognitionParameters,
                                          _ dialogParameters: DialogParameters) -> RecognitionConfiguration {
        let frontEnd = parameters.frontEnd.configuration(sampleRate: parameters.sampleRate)
        let service: RecognitionConfiguration.Service
        switch StreamingSettings(initParameters: initial, recognition: parameters, dialog: dialogParameters) {
        case .dashScope(let configuration): service = .dashScope(configuration)
        case .nls(let configuration): service = .nls(configuration)
        }
        var opus = Opus.Encoder.Configuration()
        opus.bitrate = parameters.frontEnd.opusBitrate
        opus.complexity = parameters.frontEnd.opusComplexity
        return RecognitionConfiguration(
            frontEnd: frontEnd, service: service, audioFormat: parameters.format,
            sampleRate: parameters.format == .opus ? frontEnd.processingRate : parameters.sampleRate,
            opus: opus, micSilenceTimeout: lock.withLock { micSilenceTimeout },
            queueFullPolicy: .drop, reportsAudio: true)
    }

    /// The pull-mode audio thread of a dialog: asks the delegate, pushes into the dialog.
    private func makePuller(_ audio: DialogAudio, sampleRate: Int) -> AudioPuller {
        AudioPuller(sampleRate: sampleRate, speed: lock.withLock { pullSpeed }, source: { [weak self] buffer, length in
            guard let delegate = self?.delegate else { return 0 }
            return delegate.onNuiNeedAudioData(buffer, length: length)
        }, sink: { bytes in
            let result = audio.pushMic(bytes)
            switch result.status {
            case .ok: return (result.accepted, false)
            case .bufferFull: return (result.accepted, true)
            case .notRunning, .concurrentPush: return nil
            }
        })
    }

    /// Marks `running` ended (state back to ready when it is the current dialog, its audio path closed), then
    /// posts STATE_PAUSE (once per dialog) and `event` (the terminal event, if any: the dialog's last callback).
    /// The first end of a dialog claims it under the lock and only that one runs `event`: a forced cancel or a release
    /// racing the core's own completion or error ends the dialog once. Returns the clean-up to run without locks.
    func endDialog(_ running: RunningDialog, detach: Bool = false, event: (() -> Void)? = nil) -> () -> Void {
        if detach { running.core.setOutputTap(nil) } // the drain posts nothing of the dialog after this
        closeAudio(of: running)
        let (pause, cleaned) = lock.withLock { () -> (Bool, Bool) in
            if dialog === running {
                dialog = nil
                setState(.ready)
            }
            if detach { running.detached = true }
            defer {
                running.pauseReported = true
                running.cleanedUp = true
            }
            return (!running.pauseReported, running.cleanedUp)
        }
        running.audio.recorder?.stop() // the WAVs are complete when the app hears of the end
        if pause { deliverAudioState(.STATE_PAUSE) }
        if !cleaned { event?() } // the dialog's last callback, from whichever end came first
        return { running.cleanUp(alreadyCleaned: cleaned) }
    }
}
