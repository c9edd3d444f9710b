import AudioFrontEnd
import Foundation
import SpeechStreaming
import Synchronization
import VoiceRecognition

/// The NUI SDK's entry point, with the Objective-C SDK's method and parameter names: `nui_initialize`,
/// `nui_set_params`, `nui_dialog_start`, `nui_dialog_action`, `nui_update_audio_data`, `nui_push_reference_data`,
/// `nui_dialog_cancel`, `nui_release`, `nui_get_version`, `nui_get_all_response`. Under it run the on-device front
/// end (AEC, NS, VAD, Opus) and the streaming client (DashScope or NLS/Tingwu), wired by `VoiceRecognition`.
///
/// Lifecycle (every call in every state is in `ResultCodes.md`):
/// `nui_initialize` → `nui_set_params` → (`nui_dialog_start` → audio → `nui_dialog_cancel` →
/// `EVENT_TRANSCRIBER_COMPLETE`)* → `nui_release`. A call out of order returns a result code and changes nothing.
///
/// Threads: every call may come from any thread, including from inside a callback. `nui_update_audio_data` and
/// `nui_push_reference_data` are real-time safe (no lock, no allocation, never block): call each from one
/// audio thread at a time. The other calls are control calls: they serialize among themselves and may allocate.
/// Callbacks: see ``NeoNuiSdkDelegate``.
public final class NeoNui: @unchecked Sendable { // mutable state under `lock`; control calls under `control`
    /// The state of the SDK, mirrored in an atomic for the audio paths.
    enum State: Int, CaseIterable, CustomStringConvertible {
        case uninitialized, initialized, ready, running, stopping

        var description: String { ["uninitialized", "initialized", "ready", "running", "stopping"][rawValue] }
    }

    /// The SDK version `nui_get_version` returns.
    public static let version = "NeoNui 1.0.0 (AudioFrontEnd NUI-compatible SDK)"
    nonisolated(unsafe) private static let versionCString = UnsafePointer<CChar>(strdup(version)!) // never written or freed
    private static let shared = NeoNui()

    /// The instance (the SDK is a singleton). The corresponding Objective-C call is `[NeoNui get_instance]`.
    public static func get_instance() -> NeoNui { shared }

    let lock = NSLock()
    /// Serializes the control calls; held while calling into the dialog's core, never by a callback or the core's
    /// event handler.
    let control = NSLock()
    var state = State.uninitialized
    let phase = Atomic<Int>(State.uninitialized.rawValue)
    let manualAudio = Atomic<Bool>(false)
    /// The last playback hint of ``setPlaying(_:)`` (0 false, 1 true, -1 none yet): handed to each dialog's front
    /// end when it starts, so a hint given before the first dialog (or while the engine was replaced) is kept.
    let playingHint = Atomic<Int>(-1)
    /// The app's own sounds while a playback has this instance as its reference (see NeoNui+AppReference.swift).
    let appReference = ReferenceMix(capacity: NeoNui.appReferenceCapacity)
    let appReferenceAttached = Atomic<Bool>(false)
    /// Playbacks with this instance as their reference, and their rate (under `lock`).
    var referencedPlaybacks = 0
    var referencedRate = 0
    var initParameters: InitParameters?
    var recognition: RecognitionParameters?
    var saveLog = false
    var dialog: RunningDialog?
    /// The last dialog started, while anything still holds it (its event thread, ending): `nui_release` waits for
    /// that thread, so the dialog's core and the engine go before it returns.
    weak var lastDialog: RunningDialog?
    var dialogCount = 0
    /// The front end and kept connection that outlive dialogs: made at the first `nui_dialog_start` (the front
    /// end needs `nui_set_params`' rates), replaced when a dialog needs another front end, closed by
    /// `nui_release`. Between dialogs ``engineAudio`` takes the pushes into it.
    var engine: RecognitionEngine?
    var engineAudio: DialogAudio?
    /// The summary of the last dialog that completed (``nui_get_dialog_summary()``).
    var lastSummary: RecognitionSummary?
    /// The barge-in handler (``setBargeInHandler(_:)``), handed to every engine's front end; boxed
    /// (``BargeInHandlerBox``): read at every decision.
    let bargeInHandler = Mutex<BargeInHandlerBox?>(nil)
    private weak var delegateReference: NeoNuiSdkDelegate?

    let slot = DialogSlot()
    let callbacks = CallbackQueue()
    /// Service-result callbacks dropped in the running dialog because the app's callbacks were
    /// ``CallbackQueue/droppableCapacity`` behind; added to the dialog summary's drops at its end.
    let droppedCallbacks = Atomic<Int>(0)
    /// Every droppable callback dropped since this instance was made, by kind (``callbackDrops``).
    let dropCounts = DropCounters()
    /// The events a full callback queue may drop: results that later results supersede.
    static let droppable: Set<NuiCallbackEvent> = [.EVENT_ASR_PARTIAL_RESULT, .EVENT_RESULT_TRANSLATED]
    /// A dialog's start and end: never dropped (the other events are ``CallbackQueue/Kind/kept``).
    static let terminal: Set<NuiCallbackEvent> = [.EVENT_TRANSCRIBER_STARTED, .EVENT_TRANSCRIBER_COMPLETE, .EVENT_ASR_ERROR]
    let responses = ResponseStore()
    private(set) var logger: NuiLogger!

    /// Test hooks: the pull-mode pace (1 = real time) and the mic-silence timeout.
    var pullSpeed: Double = 1
    var micSilenceTimeout: Duration = .seconds(2)
    /// Test hook: runs in a forced `nui_dialog_cancel` after it took the running dialog, before it ends it (so a
    /// test can let the core complete the dialog in between).
    var beforeForcedEnd: (() -> Void)?

    /// A separate instance (tests; apps use ``get_instance()``).
    init() {
        logger = NuiLogger(track: { [weak self] level, line in
            self?.deliver(droppable: .logLines) { $0.onNuiLogTrackCallback(level, logMessage: line) }
        })
        callbacks.setOutputHandler(Self.outputHandler(WeakDelegate(nil)))
    }

    /// Receives the callbacks; held weakly. Set it before `nui_initialize`. Any thread.
    public var delegate: NeoNuiSdkDelegate? {
        get { lock.withLock { delegateReference } }
        set {
            lock.withLock {
                delegateReference = newValue
                // The chunks' and levels' handler holds the delegate itself (weakly), swapped under the queue's lock,
                // which the callback thread holds when it takes an entry: no NeoNui lock per EVENT_AEC_DATA / RMS.
                callbacks.setOutputHandler(Self.outputHandler(WeakDelegate(newValue)))
            }
        }
    }

    /// The delegate as the output handler holds it: weakly, never changed after it is made.
    private final class WeakDelegate: @unchecked Sendable { // immutable after init
        weak var value: NeoNuiSdkDelegate?
        init(_ value: NeoNuiSdkDelegate?) { self.value = value }
    }

    /// What runs on the callback thread for a dialog's `DialogTap` posts (``CallbackQueue/postSamples(_:)``,
    /// ``CallbackQueue/postLevel(_:)``): `EVENT_AEC_DATA` and `onNuiRmsChanged` to `target`'s delegate.
    private static func outputHandler(_ target: WeakDelegate) -> @Sendable (CallbackQueue.Output) -> Void {
        { output in
            guard let delegate = target.value else { return }
            switch output {
            case .samples(let samples): // the queue's buffer, read-only for the app: the C listener's const char *
                delegate.onNuiAssistEventCallback(.EVENT_AEC_DATA, info: nil, infoLen: 0,
                                                  buffer: UnsafeMutableRawPointer(mutating: samples.baseAddress)?
                                                      .assumingMemoryBound(to: CChar.self),
                                                  len: Int32(samples.count * MemoryLayout<Int16>.size))
            case .level(let level):
                delegate.onNuiRmsChanged(level)
            }
        }
    }

    func setState(_ newState: State) {
        state = newState
        phase.store(newState.rawValue, ordering: .releasing)
    }

    /// Runs `body` with the delegate on the callback thread, after everything posted before. A `droppable` kind
    /// is dropped (and counted) when the callback queue is full; the others are always delivered.
    func deliver(droppable kind: DropCounters.Kind? = nil, _ body: @escaping (NeoNuiSdkDelegate) -> Void) {
        let call = UncheckedSendable(body)
        let queued = callbacks.post(kind == nil ? .terminal : .droppable) { [weak self] in
            guard let self, let delegate = self.delegate else { return }
            call.value(delegate)
        }
        if !queued, let kind { dropCounts.count(kind) }
    }

    /// Callbacks dropped since this instance was made because the app's callbacks were
    /// ``CallbackQueue/droppableCapacity`` droppable callbacks behind (each dialog's end logs its share). Any
    /// thread; real-time safe (atomic loads).
    public var callbackDrops: NuiCallbackDrops { dropCounts.snapshot }

    func deliverAudioState(_ state: NuiAudioState) {
        logger.debug("audio state \(state)")
        deliver { $0.onNuiAudioStateChanged(state) }
    }

    /// Delivers an event; `response` becomes what `nui_get_all_response` returns while it is delivered.
    /// `running`: the dialog the event belongs to when it comes from the dialog's event thread; it is posted only
    /// if that dialog is not detached, checked under the lock the detach takes, so nothing of a cancelled dialog
    /// follows its completion.
    func deliverEvent(_ event: NuiCallbackEvent, dialog: Int, asrResult: String?, response: String?,
                      finish: Bool = false, code: NuiResultCode = .SUCCESS, of running: RunningDialog? = nil) {
        let redactor = logger.redactor
        let result = asrResult.map { redactor.redact($0) }
        let full = (response ?? asrResult).map { redactor.redact($0) }
        logger.debug("event \(event) dialog \(dialog) finish \(finish) code \(code.rawValue): \(full ?? "")")
        let kind: CallbackQueue.Kind = Self.droppable.contains(event) ? .droppable : Self.terminal.contains(event) ? .terminal : .kept
        let post = { [self] in
            let queued = callbacks.post(kind) { [weak self] in
                guard let self else { return }
                if let full { self.responses.set(full) }
                guard let delegate = self.delegate else { return }
                if let result {
                    result.withCString {
                        delegate.onNuiEventCallback(event, dialog: dialog, kwsResult: nil, asrResult: $0, ifFinish: finish,
                                                    retCode: code.rawValue)
                    }
                } else {
                    delegate.onNuiEventCallback(event, dialog: dialog, kwsResult: nil, asrResult: nil, ifFinish: finish,
                                                retCode: code.rawValue)
                }
            }
            if !queued {
                droppedCallbacks.add(1, ordering: .relaxed)
                dropCounts.count(.results)
            }
        }
        guard let running else { return post() }
        lock.withLock { if !running.detached { post() } }
    }

    /// Logs a refused call and returns its code.
    func refuse(_ call: String, _ code: NuiResultCode, _ why: String) -> NuiResultCode {
        logger.error("\(call): \(why) (\(code.name) \(code.rawValue))")
        return code
    }

    // MARK: - Calls without a dialog

    /// Initializes the SDK with the connection and control parameters (see `InitParameters` and README).
    ///
    /// The corresponding Objective-C call is `-nui_initialize:logLevel:saveLog:`.
    /// - Parameters:
    ///   - parameters: JSON: `url`, `apikey` (DashScope) or `app_key` + `token` (NLS), `service_mode`, `device_id`,
    ///     `audio_update_manually`, `workspace`, `debug_path`, `save_wav`, `max_log_file_size`, `log_track_level`.
    ///   - level: what the SDK logs (printed, written to the log file, offered to `onNuiLogTrackCallback`).
    ///   - save_log: write logs (and with `save_wav` the debug WAVs) to `debug_path`.
    /// - Returns: `SUCCESS`, `NUI_ERR_ALREADY_INITIALIZED`, or a parameter error (the log names the key).
    @discardableResult
    public func nui_initialize(_ parameters: UnsafePointer<CChar>?, logLevel level: NuiSdkLogLevel,
                               saveLog save_log: Bool) -> NuiResultCode {
        control.withLock {
            guard lock.withLock({ state }) == .uninitialized else {
                return refuse("nui_initialize", .NUI_ERR_ALREADY_INITIALIZED, "already initialized; call nui_release first")
            }
            logger.configure(level: level, trackLevel: .NUI_LOG_LEVEL_INFO, file: nil)
            logger.redactor.add(InitParameters.rawSecrets(parameters))
            let parsed: InitParameters
            var warnings: [String] = []
            do {
                parsed = try InitParameters(json: parameters, saveLog: save_log) { warnings.append("nui_initialize: \($0)") }
            } catch let error as NuiParameterError {
                warnings.forEach { logger.warning($0) }
                return refuse("nui_initialize", error.code, error.description)
            } catch {
                return refuse("nui_initialize", .NUI_ERR_INTERNAL, "\(error)")
            }
            logger.redactor.add(parsed.secrets)
            let file = save_log ? CappedFile(path: (parsed.debugPath! as NSString).appendingPathComponent(NuiLogger.fileName),
                                             limit: parsed.maxLogFileSize) : nil
            logger.configure(level: level, trackLevel: parsed.logTrackLevel, file: file)
            warnings.forEach { logger.warning($0) }
            lock.withLock {
                initParameters = parsed
                recognition = nil
                saveLog = save_log
                manualAudio.store(parsed.audioUpdateManually, ordering: .releasing)
                setState(.initialized)
            }
            logger.info("nui_initialize: \(Self.version), url \(logger.redactor.redact(url: parsed.url)), device \(parsed.deviceId), "
                + "\(parsed.audioUpdateManually ? "push" : "pull") mode, save_log \(save_log), save_wav \(parsed.saveWav)")
            return .SUCCESS
        }
    }

    /// Sets the recognition parameters for the next dialogs (see `RecognitionParameters`, `FrontEndParameters`).
    /// After `nui_initialize`, before `nui_dialog_start`; a refused call keeps the previous parameters.
    ///
    /// The corresponding Objective-C call is `-nui_set_params:`.
    /// - Returns: `SUCCESS`, `NUI_ERR_NOT_INITIALIZED`, `NUI_ERR_DIALOG_RUNNING`, or a parameter error.
    @discardableResult
    public func nui_set_params(_ params: UnsafePointer<CChar>?) -> NuiResultCode {
        control.withLock {
            let (current, initial) = lock.withLock { (state, initParameters) }
            switch current {
            case .uninitialized: return refuse("nui_set_params", .NUI_ERR_NOT_INITIALIZED, "call nui_initialize first")
            case .running, .stopping: return refuse("nui_set_params", .NUI_ERR_DIALOG_RUNNING, "a dialog is running")
            case .initialized, .ready: break
            }
            do {
                let parsed = try RecognitionParameters(json: params, for: initial!) { logger.warning("nui_set_params: \($0)") }
                if let refusal = refuseRateChange(to: parsed.sampleRate) { return refusal }
                lock.withLock {
                    recognition = parsed
                    setState(.ready)
                }
                logger.info("nui_set_params: \(parsed.format.rawValue) at \(parsed.sampleRate) Hz, AEC "
                    + "\(parsed.frontEnd.isEchoCancellationOn ? "on" : "off"), VAD \(parsed.frontEnd.voiceDetection == nil ? "off" : "on")")
                return .SUCCESS
            } catch let error as NuiParameterError {
                return refuse("nui_set_params", error.code, error.description)
            } catch {
                return refuse("nui_set_params", .NUI_ERR_INTERNAL, "\(error)")
            }
        }
    }

    /// The SDK version, after `nui_initialize` (null before). The pointer stays valid for the process.
    ///
    /// The corresponding Objective-C call is `-nui_get_version`.
    public func nui_get_version() -> UnsafePointer<CChar>? {
        lock.withLock { state == .uninitialized ? nil : Self.versionCString }
    }

    /// The complete JSON of the current event (the server's message for results, start, completion and server
    /// errors; for VAD, mic and local errors a small object of ours, e.g. `{"event":"speech_start","milliseconds":3020}`,
    /// as `RecognitionEvent.json` writes it), or null before the first event. Meant for
    /// inside `onNuiEventCallback`; the pointer stays valid until eight more events have been delivered.
    ///
    /// The corresponding Objective-C call is `-nui_get_all_response`.
    public func nui_get_all_response() -> UnsafePointer<CChar>? { responses.current }
}

/// A value moved to another thread where the compiler cannot see it is safe (the callback thread runs one
/// closure at a time).
struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
