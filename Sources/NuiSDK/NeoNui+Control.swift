import Foundation
import VoiceRecognition

extension NeoNui {
    /// Ends the dialog. Not forced: `STATE_PAUSE` at once, the audio is closed, the server returns the final
    /// result and `EVENT_TRANSCRIBER_COMPLETE` follows. Forced: `EVENT_TRANSCRIBER_COMPLETE` at once (later results
    /// are dropped) and the connection is dropped.
    ///
    /// The corresponding Objective-C call is `-nui_dialog_cancel:`.
    /// - Returns: `SUCCESS`, `NUI_ERR_NOT_INITIALIZED` or `NUI_ERR_NO_DIALOG`.
    @discardableResult
    public func nui_dialog_cancel(_ force: Bool) -> NuiResultCode {
        let (code, cleanup) = control.withLock { cancelDialog(force: force) }
        cleanup?()
        return code
    }

    private func cancelDialog(force: Bool) -> (NuiResultCode, (() -> Void)?) {
        let (current, running) = lock.withLock { (state, dialog) }
        switch current {
        case .uninitialized: return (refuse("nui_dialog_cancel", .NUI_ERR_NOT_INITIALIZED, "call nui_initialize first"), nil)
        case .initialized, .ready: return (refuse("nui_dialog_cancel", .NUI_ERR_NO_DIALOG, "no dialog is running"), nil)
        case .running, .stopping: break
        }
        guard let running else { return (.NUI_ERR_INTERNAL, nil) }
        logger.info("nui_dialog_cancel: dialog \(running.number)\(force ? ", forced" : "")")
        if force {
            beforeForcedEnd?()
            return (.SUCCESS, forceEnd(running))
        }
        if current == .stopping { return (.SUCCESS, nil) }
        lock.withLock {
            setState(.stopping)
            running.pauseReported = true
        }
        closeAudio(of: running)
        deliverAudioState(.STATE_PAUSE)
        running.core.cancel(force: false)
        return (.SUCCESS, { running.puller?.stop() })
    }

    /// Ends `running` at once: EVENT_TRANSCRIBER_COMPLETE now, the core cancelled, its later events dropped.
    func forceEnd(_ running: RunningDialog) -> () -> Void {
        let taskId = lock.withLock { running.taskId } ?? ""
        let response = #"{"ending":"cancelled","event":"completed","task_id":"\#(taskId)"}"#
        let cleanup = endDialog(running, detach: true) {
            self.deliverEvent(.EVENT_TRANSCRIBER_COMPLETE, dialog: running.number, asrResult: response, response: response,
                              finish: true)
        }
        running.core.cancel(force: true)
        return cleanup
    }

    /// Sends an action to the running dialog: `context` (new context for DashScope's context biasing), `play_start`
    /// or `play_over` (the device starts or stops playing: the AEC's hint).
    ///
    /// A control call: any thread (a callback too), serialized with the other control calls; not real-time safe.
    /// The corresponding Objective-C call is `-nui_dialog_action:`.
    /// - Parameter action_params: JSON `{"type": "action", "command": "context" | "play_start" | "play_over",
    ///   "context": [...]}`.
    /// - Returns: `SUCCESS`, `NUI_ERR_NOT_INITIALIZED`, `NUI_ERR_NO_DIALOG` (also for `context` on a dialog whose
    ///   task the service has just ended, before its end reached the app), `NUI_ERR_AEC_DISABLED`, a parameter
    ///   error, or the code of a context update the service refuses (`NUI_ERR_INTERNAL` for NLS, which has none).
    @discardableResult
    public func nui_dialog_action(_ action_params: UnsafePointer<CChar>?) -> NuiResultCode {
        control.withLock {
            let call = "nui_dialog_action"
            let (current, running) = lock.withLock { (state, dialog) }
            switch current {
            case .uninitialized: return refuse(call, .NUI_ERR_NOT_INITIALIZED, "call nui_initialize first")
            case .initialized, .ready, .stopping: return refuse(call, .NUI_ERR_NO_DIALOG, "no dialog is running")
            case .running: break
            }
            guard let running else { return .NUI_ERR_INTERNAL }
            let action: DialogAction
            do {
                action = try DialogAction(json: action_params) { logger.warning("\(call): \($0)") }
            } catch let error as NuiParameterError {
                return refuse(call, error.code, error.description)
            } catch {
                return refuse(call, .NUI_ERR_INTERNAL, "\(error)")
            }
            switch action {
            case .context(let messages):
                do { try running.core.updateContext(messages) } catch let error as RecognitionError {
                    return refuse(call, NuiResultCode(error), error.message)
                } catch {
                    return refuse(call, .NUI_ERR_INTERNAL, "\(error)")
                }
                logger.info("\(call): context of \(messages.count) messages")
            case .playStart, .playOver:
                guard running.audio.echoCancellation else {
                    return refuse(call, .NUI_ERR_AEC_DISABLED, "play_start/play_over need on-device AEC (enable_aec)")
                }
                // With a playback attached, the app's sound is combined with its speech (NeoNui+AppReference.swift).
                if !setAppPlaying(action == .playStart) { running.core.setPlaying(action == .playStart) }
                logger.debug("\(call): \(action == .playStart ? "play_start" : "play_over")")
            }
            return .SUCCESS
        }
    }

    /// Releases the SDK: a running dialog ends at once (`EVENT_TRANSCRIBER_COMPLETE`), `STATE_CLOSE` is reported,
    /// the log file is closed. `nui_initialize` may follow.
    ///
    /// The corresponding Objective-C call is `-nui_release`.
    /// - Returns: `SUCCESS`, or `NUI_ERR_NOT_INITIALIZED`.
    @discardableResult
    public func nui_release() -> NuiResultCode {
        let (code, cleanup) = control.withLock { () -> (NuiResultCode, (() -> Void)?) in
            let (current, running) = lock.withLock { (state, dialog) }
            guard current != .uninitialized else {
                return (refuse("nui_release", .NUI_ERR_NOT_INITIALIZED, "not initialized"), nil)
            }
            let cleanup = running.map(forceEnd)
            closeEngine()
            lock.withLock {
                setState(.uninitialized)
                initParameters = nil
                recognition = nil
                saveLog = false
                manualAudio.store(false, ordering: .releasing)
            }
            deliverAudioState(.STATE_CLOSE)
            logger.info("nui_release")
            logger.closeFile()
            return (.SUCCESS, cleanup)
        }
        cleanup?()
        if code == .SUCCESS { letTheLastDialogGo() }
        return code
    }

    /// Waits (at most 5 s) until the last dialog's event thread, which may still be ending it, has returned: then
    /// nothing holds its core, and the engine and its front end were freed with the last reference (so a program
    /// may exit right after `nui_release` with nothing left behind). Without locks. Not on the dialog's pull thread
    /// (a dialog ending on its event thread stops and waits for that thread).
    private func letTheLastDialogGo() {
        guard let last = lock.withLock({ lastDialog }), last.puller?.isCurrentThread != true else { return }
        let core = last.core
        if !core.waitUntilEventThreadEnded(timeout: 5) {
            logger.warning("nui_release: the last dialog's event thread did not end within 5 s")
        }
    }
}
