import AudioFrontEnd
import Foundation
import NuiSDK
import SpeechStreaming
import SpeechSynthesis
import Threads

/// The stream-input TTS SDK's class (iOS `NeoNuiStreamInputTts`), over ``SpeechSynthesisSession``: text streamed
/// in with `sendStreamInputTts`, audio out through `onStreamInputTtsDataCallback`.
///
/// States: idle → `startStreamInputTts` → running (text may be sent at once; it waits for task-started) →
/// `stopStreamInputTts` / `asyncStopStreamInputTts` → stopping → idle at `TTS_EVENT_SYNTHESIS_COMPLETE` or
/// `TTS_EVENT_TASK_FAILED` (the state changes before the callback, so the callback may start the next task).
/// `cancelStreamInputTts` returns to idle at once with no further callback of the task. Calls in the wrong state
/// return a code (`NUI_ERR_DIALOG_RUNNING`, `NUI_ERR_NO_DIALOG`) and log a line. Bad ticket or parameter values
/// return the parameter's code (240100–240105) and log a line naming the key. The API key never reaches a log line,
/// file, callback or error (SpeechStreaming's ``Redactor``).
///
/// `playStreamInputTts` / `asyncPlayStreamInputTts` are the one-shot forms (start + text + finish, SSML on).
///
/// Threads: every method from any thread, callbacks included; not real-time safe (locks, allocation).
public final class NeoNuiStreamInputTts: @unchecked Sendable { // mutable state under `lock`
    public static let version = "NeoNuiStreamInputTts 1.0.0 (AudioFrontEnd stream-input TTS SDK)"

    private enum State { case idle, running, stopping }

    let lock = NSLock()
    let callbacks = CallbackQueue()
    /// The attached local playback (``setPlayback(_:)``), under `lock`.
    var playback: StreamInputTtsPlayback?
    /// The source barge-in listens to (``enableBargeIn(_:source:)``), under `lock`.
    var bargeInSource: (any BargeInSource)?
    var isIdle: Bool { state == .idle } // under `lock`
    private var state = State.idle
    private var session: SpeechSynthesisSession?
    private var relay: EventRelay?
    private var ticket: TtsTicket?
    private var stopWaiter: DispatchSemaphore?
    private var lastFailure: NuiResultCode = .SUCCESS
    let logger: NuiLogger

    public init() {
        let callbacks = self.callbacks
        let box = WeakDelegate()
        logger = NuiLogger(component: "NeoNuiStreamInputTts") { level, line in
            callbacks.post { line.withCString { box.delegate?.onStreamInputTtsLogTrackCallback(level, logMessage: $0) } }
        }
        delegateBox = box
    }

    let delegateBox: WeakDelegate

    deinit { session?.close() }

    /// Receives the callbacks. Held weakly.
    public var delegate: NeoNuiStreamInputTtsDelegate? {
        get { delegateBox.delegate }
        set { delegateBox.delegate = newValue }
    }

    /// Whether log lines also print to standard error (default true).
    public func setLogPrinting(_ enabled: Bool) { logger.setPrinting(enabled) }

    /// Starts a synthesis task: connects (ticket `url`, `apikey`), sends run-task with `parameters`; returns at
    /// once. `TTS_EVENT_SYNTHESIS_STARTED` or `TTS_EVENT_TASK_FAILED` follows.
    ///
    /// The corresponding Objective-C call is `-startStreamInputTts:parameters:sessionId:logLevel:saveLog:`.
    /// - Parameters:
    ///   - ticket: JSON: `url`, `apikey`, `device_id` (required), `complete_waiting_ms`, `debug_path`,
    ///     `max_log_file_size`, `log_track_level` (``TtsTicket``).
    ///   - parameters: JSON: `model`, `voice` (required), `format`, `sample_rate`, `volume`, `rate`, `pitch`,
    ///     `bit_rate`, `enable_ssml`, `word_timestamp_enabled`, `seed`, `language_hints`, `instruction`,
    ///     `enable_aigc_tag`, `aigc_propagator`, `aigc_propagate_id` (``TtsParameters``).
    ///   - sessionId: returned in every event; made by the SDK (32 hex digits) when null or empty.
    ///   - logLevel: what the SDK logs; saveLog: also write `debug_path/tts.log` (capped, two files).
    /// - Returns: `SUCCESS`, `NUI_ERR_DIALOG_RUNNING`, or a ticket/parameter error.
    @discardableResult
    public func startStreamInputTts(_ ticket: UnsafePointer<CChar>?, parameters: UnsafePointer<CChar>?,
                                    sessionId: UnsafePointer<CChar>?, logLevel: NuiSdkLogLevel,
                                    saveLog: Bool) -> NuiResultCode {
        let result = lock.withLock { startLocked(ticket, parameters, sessionId, logLevel, saveLog) }
        closeRetired()
        return result
    }

    /// Start's work, under `lock`; with `text`, the one-shot calls' (`call`): the task starts with all of it and its
    /// finish already queued, so it is stopping from the start.
    private func startLocked(_ ticket: UnsafePointer<CChar>?, _ parameters: UnsafePointer<CChar>?,
                             _ sessionId: UnsafePointer<CChar>?, _ logLevel: NuiSdkLogLevel, _ saveLog: Bool,
                             text: String? = nil, call: String = "startStreamInputTts") -> NuiResultCode {
        let given = sessionId.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        guard state == .idle else { return refuse(call, .NUI_ERR_DIALOG_RUNNING, "a task is running") }
        logger.configure(level: logLevel, trackLevel: .NUI_LOG_LEVEL_INFO, file: nil)
        logger.redactor.add(TtsTicket.rawSecrets(ticket))
        var warnings: [String] = []
        let parsedTicket: TtsTicket
        let parsedParameters: SynthesisParameters
        do {
            parsedTicket = try TtsTicket(json: ticket, saveLog: saveLog) { warnings.append("startStreamInputTts: \($0)") }
            parsedParameters = try TtsParameters.parse(parameters) { warnings.append("startStreamInputTts: \($0)") }
        } catch let error as NuiParameterError {
            warnings.forEach { logger.warning($0) }
            return refuse(call, error.code, error.description)
        } catch {
            return refuse(call, .NUI_ERR_INTERNAL, "\(error)")
        }
        logger.redactor.add(parsedTicket.secrets)
        let file = saveLog ? CappedFile(path: (parsedTicket.debugPath! as NSString).appendingPathComponent("tts.log"),
                                        limit: parsedTicket.maxLogFileSize) : nil
        logger.configure(level: logLevel, trackLevel: parsedTicket.logTrackLevel, file: file)
        warnings.forEach { logger.warning($0) }
        let configuration = SynthesisConfiguration(url: parsedTicket.url, apiKey: parsedTicket.apiKey,
                                                   parameters: parsedParameters)
        let created: SpeechSynthesisSession
        do {
            created = try SpeechSynthesisSession(configuration: configuration)
        } catch let error as SpeechStreamingError {
            return refuse(call, .NUI_ERR_INVALID_PARAMETER_VALUE, logger.redactor.redact(error.message))
        } catch {
            return refuse(call, .NUI_ERR_INTERNAL, "\(error)")
        }
        let relay = EventRelay(owner: self, sessionId: given ?? TaskIdentifier.make(),
                               format: parsedParameters.format.rawValue, sampleRate: parsedParameters.sampleRate)
        created.delegate = relay
        do {
            if let text { try created.requestSynthesis(of: text) } else { try created.requestStart() }
        } catch let error as SpeechStreamingError where error.code == .textLimit {
            created.close()
            return refuse(call, .NUI_ERR_INVALID_PARAMETER_VALUE, error.message)
        } catch {
            created.close()
            return refuse(call, .NUI_ERR_INTERNAL, "\(error)")
        }
        self.ticket = parsedTicket
        self.relay = relay
        self.lastFailure = .SUCCESS
        self.state = text == nil ? .running : .stopping
        stopWaiter = nil
        logger.info("\(call): \(Self.version), url \(logger.redactor.redact(url: parsedTicket.url)), device "
                    + "\(parsedTicket.deviceId), model \(parsedParameters.model), voice \(parsedParameters.voice), "
                    + "\(parsedParameters.format.rawValue) at \(parsedParameters.sampleRate) Hz, session \(relay.sessionId)"
                    + (text.map { ", \($0.count) characters and finish-task queued" } ?? ""))
        retired.withLock { $0 = session }
        session = created
        return .SUCCESS
    }

    /// Closes the previous task's session (its connection was kept for reuse until the next start), outside the lock.
    private func closeRetired() {
        let old = retired.withLock { value in defer { value = nil }; return value }
        old?.close()
    }

    private let retired = Locked<SpeechSynthesisSession?>(nil)

    /// Sends text (continue-task; above 20,000 characters in several). Text sent right after start waits for
    /// task-started.
    ///
    /// The corresponding Objective-C call is `-sendStreamInputTts:`.
    /// - Returns: `SUCCESS`, `NUI_ERR_NO_DIALOG` (no task, or stop was called), `NUI_ERR_INVALID_PARAMETER_VALUE`
    ///   (null text, or text that would take the task beyond the service's 200,000 characters: refused whole, the
    ///   task goes on).
    @discardableResult
    public func sendStreamInputTts(_ text: UnsafePointer<CChar>?) -> NuiResultCode { lock.withLock { sendLocked(text) } }

    /// Send's work, under `lock`.
    private func sendLocked(_ text: UnsafePointer<CChar>?) -> NuiResultCode {
        guard state == .running, let session else {
            return refuse("sendStreamInputTts", .NUI_ERR_NO_DIALOG, state == .stopping ? "stop was called" : "no task is running")
        }
        guard let text else { return refuse("sendStreamInputTts", .NUI_ERR_INVALID_PARAMETER_VALUE, "text is null") }
        let string = String(cString: text)
        do { try session.send(text: string) } catch let error as SpeechStreamingError where error.code == .textLimit {
            return refuse("sendStreamInputTts", .NUI_ERR_INVALID_PARAMETER_VALUE, error.message)
        } catch {
            // The task just ended on its own; its TTS_EVENT_TASK_FAILED is on its way.
            return refuse("sendStreamInputTts", .NUI_ERR_NO_DIALOG, "the task has ended")
        }
        logger.debug("sendStreamInputTts: \(string.count) characters")
        return .SUCCESS
    }

    /// Ends the text and blocks until `TTS_EVENT_SYNTHESIS_COMPLETE` (all audio delivered), at most the ticket's
    /// `complete_waiting_ms` (default 10000). From inside a callback it does not block (as `asyncStopStreamInputTts`).
    ///
    /// The corresponding Objective-C call is `-stopStreamInputTts`.
    /// - Returns: `SUCCESS` once complete; the failure's code when the task failed meanwhile;
    ///   `NUI_ERR_FINISH_TIMEOUT` when `complete_waiting_ms` passed first (the task goes on); `NUI_ERR_NO_DIALOG`.
    @discardableResult
    public func stopStreamInputTts() -> NuiResultCode {
        let (code, waiter, milliseconds) = beginStop("stopStreamInputTts", wait: !callbacks.isCurrent)
        guard code == .SUCCESS, let waiter else { return code }
        guard waiter.wait(timeout: .now() + .milliseconds(milliseconds)) == .success else {
            return lock.withLock {
                refuse("stopStreamInputTts", .NUI_ERR_FINISH_TIMEOUT, "no TTS_EVENT_SYNTHESIS_COMPLETE within complete_waiting_ms \(milliseconds)")
            }
        }
        return lock.withLock { lastFailure }
    }

    /// Ends the text and returns at once; `TTS_EVENT_SYNTHESIS_COMPLETE` follows when all audio is delivered.
    ///
    /// The corresponding Objective-C call is `-asyncStopStreamInputTts`.
    /// - Returns: `SUCCESS` or `NUI_ERR_NO_DIALOG`.
    @discardableResult
    public func asyncStopStreamInputTts() -> NuiResultCode { beginStop("asyncStopStreamInputTts", wait: false).0 }

    private func beginStop(_ call: String, wait: Bool) -> (NuiResultCode, DispatchSemaphore?, Int) {
        lock.withLock { beginStopLocked(call, wait: wait) }
    }

    /// Stop's work, under `lock`.
    private func beginStopLocked(_ call: String, wait: Bool) -> (NuiResultCode, DispatchSemaphore?, Int) {
        guard state == .running, let session else {
            return (refuse(call, .NUI_ERR_NO_DIALOG, state == .stopping ? "stop was already called" : "no task is running"), nil, 0)
        }
        state = .stopping
        let waiter = wait ? DispatchSemaphore(value: 0) : nil
        stopWaiter = waiter
        session.requestFinish()
        logger.info("\(call): finish-task")
        return (.SUCCESS, waiter, ticket?.completeWaitingMilliseconds ?? 10_000)
    }

    /// Drops the connection and the task at once; no further callback of the task (no more data callbacks).
    /// With local playback attached it also stops the playback within one device buffer — including an answer
    /// still playing out after `TTS_EVENT_SYNTHESIS_COMPLETE` (then it returns `SUCCESS` in the idle state).
    ///
    /// The corresponding Objective-C call is `-cancelStreamInputTts`.
    /// - Returns: `SUCCESS` or `NUI_ERR_NO_DIALOG`.
    @discardableResult
    public func cancelStreamInputTts() -> NuiResultCode { endTask("cancelStreamInputTts", bargeIn: nil) }

    /// Cancel's work; with a barge-in `decision` only while an answer plays (else `NUI_ERR_NO_DIALOG`, no log
    /// line), and its stop is then reported as the interruption.
    func endTask(_ call: String, bargeIn decision: BargeInDecision?) -> NuiResultCode {
        let (code, running, playing): (NuiResultCode, SpeechSynthesisSession?, StreamInputTtsPlayback?) = lock.withLock {
            if let decision {
                guard let playback, playback.markInterrupted(by: decision) != nil else { return (.NUI_ERR_NO_DIALOG, nil, nil) }
            }
            guard state != .idle, let session else {
                // Synthesis complete but the answer still playing out: cancel stops the playback.
                if let playback, playback.isPlayingOut {
                    logger.info("\(call): playback stopped (synthesis had completed)")
                    return (.SUCCESS, nil, playback)
                }
                return (refuse(call, .NUI_ERR_NO_DIALOG, "no task is running"), nil, nil)
            }
            relay?.cancelled = true
            relay = nil
            state = .idle
            stopWaiter?.signal()
            stopWaiter = nil
            logger.info("\(call): playback stopped, connection dropped")
            return (.SUCCESS, session, playback)
        }
        // The relay is silenced first, so no input of the task reaches the player after this stop.
        playing?.inputLock.withLock { playing?.player.stop() }
        running?.cancel()
        return code
    }

    /// One-shot synthesis of `text`: start, the whole text, finish; returns at once and delivers everything through
    /// the callbacks (no stop call needed). SSML is on unless `parameters` set `enable_ssml` false.
    ///
    /// The corresponding Objective-C call is `-playStreamInputTts:parameters:text:sessionId:logLevel:saveLog:`. As on
    /// the reference page, the audio arrives through `onStreamInputTtsDataCallback`; feeding a device (and the echo
    /// reference) is the app's, e.g. with AudioPlayback's `SynthesisPlayer`.
    /// - Returns: as ``startStreamInputTts(_:parameters:sessionId:logLevel:saveLog:)``, or
    ///   `NUI_ERR_INVALID_PARAMETER_VALUE` for a null or empty text.
    @discardableResult
    public func playStreamInputTts(_ ticket: UnsafePointer<CChar>?, parameters: UnsafePointer<CChar>?,
                                   text: UnsafePointer<CChar>?, sessionId: UnsafePointer<CChar>?,
                                   logLevel: NuiSdkLogLevel, saveLog: Bool) -> NuiResultCode {
        oneShot("playStreamInputTts", ticket, parameters, text, sessionId, logLevel, saveLog)
    }

    /// Sends all of `text` for synthesis and returns at once, without waiting for audio (no stop call needed); SSML
    /// on by default. The corresponding Objective-C call is
    /// `-asyncPlayStreamInputTts:parameters:text:sessionId:logLevel:saveLog:`.
    /// - Returns: as ``playStreamInputTts(_:parameters:text:sessionId:logLevel:saveLog:)``.
    @discardableResult
    public func asyncPlayStreamInputTts(_ ticket: UnsafePointer<CChar>?, parameters: UnsafePointer<CChar>?,
                                        text: UnsafePointer<CChar>?, sessionId: UnsafePointer<CChar>?,
                                        logLevel: NuiSdkLogLevel, saveLog: Bool) -> NuiResultCode {
        oneShot("asyncPlayStreamInputTts", ticket, parameters, text, sessionId, logLevel, saveLog)
    }

    private func oneShot(_ call: String, _ ticket: UnsafePointer<CChar>?, _ parameters: UnsafePointer<CChar>?,
                         _ text: UnsafePointer<CChar>?, _ sessionId: UnsafePointer<CChar>?, _ logLevel: NuiSdkLogLevel,
                         _ saveLog: Bool) -> NuiResultCode {
        guard let text, text.pointee != 0 else {
            return lock.withLock { refuse(call, .NUI_ERR_INVALID_PARAMETER_VALUE, "text is null or empty") }
        }
        // Start, text and finish in one step of the session: nothing comes between them, neither another thread's
        // call nor the task's own end (text sent after a start once found the task already refused: NO_DIALOG).
        let string = String(cString: text)
        let withSSML = Self.ssmlByDefault(parameters)
        let code = lock.withLock {
            withSSML.map { json in json.withCString { startLocked(ticket, $0, sessionId, logLevel, saveLog, text: string, call: call) } }
                ?? startLocked(ticket, nil, sessionId, logLevel, saveLog, text: string, call: call)
        }
        closeRetired()
        return code
    }

    /// `parameters` with `enable_ssml` true unless it says otherwise (the one-shot calls' default); text that is
    /// not a JSON object is passed on unchanged, for start's own error.
    private static func ssmlByDefault(_ parameters: UnsafePointer<CChar>?) -> String? {
        guard let parameters else { return nil }
        let text = String(cString: parameters)
        guard var object = try? JSONText.object(text) else { return text }
        if object["enable_ssml"] == nil { object["enable_ssml"] = true }
        return JSONText.encode(object)
    }

    /// The SDK's version text.
    public func getVersion() -> String { Self.version }

    func refuse(_ call: String, _ code: NuiResultCode, _ why: String) -> NuiResultCode {
        logger.error("\(call): \(why) -> \(code.name) (\(code.rawValue))")
        return code
    }

    // MARK: Events (the session's delivery queue → the callback thread)

    fileprivate func handle(_ event: SynthesisEvent, relay: EventRelay) {
        let delegate = delegateBox
        let redactor = logger.redactor
        var waiter: DispatchSemaphore? // a blocked stopStreamInputTts: released once the last callback has run
        if let playing = lock.withLock({ playback }) { feed(playing, event, relay: relay) }
        switch event {
        case .audio(let audio):
            callbacks.post {
                guard !relay.cancelled else { return }
                var bytes = audio.bytes
                bytes.withUnsafeMutableBufferPointer { buffer in
                    buffer.baseAddress?.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                        delegate.delegate?.onStreamInputTtsDataCallback($0, len: Int32(buffer.count))
                    }
                }
            }
            return
        case .completed, .error:
            let failure: NuiResultCode
            if case .error(let error) = event { failure = NuiResultCode(error.code) } else { failure = .SUCCESS }
            waiter = lock.withLock {
                guard self.relay === relay else { return nil }
                state = .idle
                self.relay = nil
                lastFailure = failure
                defer { stopWaiter = nil }
                return stopWaiter
            }
            if case .error(let error) = event { logger.error("task failed: \(error.description) -> \(failure.name)") }
            else { logger.info("TTS_EVENT_SYNTHESIS_COMPLETE") }
        default:
            break
        }
        let call = Self.callback(for: event, redactor: redactor)
        let release = waiter
        callbacks.post {
            guard !relay.cancelled else { release?.signal(); return }
            call.taskId.withCString { task in relay.sessionId.withCString { session in call.message.withCString { message in
                call.timestamp.withCString { timestamp in call.json.withCString { json in
                    delegate.delegate?.onStreamInputTtsEventCallback(call.event, taskId: task, sessionId: session,
                                                                     ret_code: call.code, error_msg: message,
                                                                     timestamp: timestamp, all_response: json)
                } }
            } } }
            release?.signal()
        }
    }

    private struct Callback: Sendable {
        var event: StreamInputTtsCallbackEvent
        var taskId = ""
        var code: Int32 = 0
        var message = ""
        var timestamp = ""
        var json = ""
    }

    private static func callback(for event: SynthesisEvent, redactor: Redactor) -> Callback {
        switch event {
        case .started(let e): return Callback(event: .TTS_EVENT_SYNTHESIS_STARTED, taskId: e.taskId, json: e.rawJSON)
        case .sentenceBegin(let s): return sentence(.TTS_EVENT_SENTENCE_BEGIN, s)
        case .sentenceSynthesis(let s): return sentence(.TTS_EVENT_SENTENCE_SYNTHESIS, s)
        case .sentenceEnd(let s): return sentence(.TTS_EVENT_SENTENCE_END, s)
        case .completed(let c):
            return Callback(event: .TTS_EVENT_SYNTHESIS_COMPLETE, taskId: c.taskId, timestamp: words(c.words), json: c.rawJSON)
        case .error(let error):
            let code = NuiResultCode(error.code)
            let json = error.rawJSON ?? JSONText.encode(["error": ["code": code.name, "message": error.message]])
            return Callback(event: .TTS_EVENT_TASK_FAILED, taskId: taskId(of: json), code: code.rawValue,
                            message: redactor.redact(error.message), json: redactor.redact(json))
        case .audio: return Callback(event: .TTS_EVENT_SENTENCE_SYNTHESIS)
        }
    }

    private static func sentence(_ event: StreamInputTtsCallbackEvent, _ s: SynthesisSentence) -> Callback {
        Callback(event: event, taskId: taskId(of: s.rawJSON), timestamp: words(s.words), json: s.rawJSON)
    }

    private static func taskId(of json: String) -> String {
        guard let object = try? JSONText.object(json), let header = object["header"] as? [String: Any] else { return "" }
        return header["task_id"] as? String ?? ""
    }

    private static func words(_ words: [SynthesisWord]) -> String {
        guard !words.isEmpty else { return "" }
        let list: [[String: Any]] = words.map { ["text": $0.text, "begin_index": $0.beginIndex, "end_index": $0.endIndex,
                                                 "begin_time": $0.beginMilliseconds, "end_time": $0.endMilliseconds] }
        guard let data = try? JSONSerialization.data(withJSONObject: list, options: [.sortedKeys]) else { return "" }
        return String(decoding: data, as: UTF8.self)
    }
}

extension NeoNuiStreamInputTts {
    /// The player's input side, on the session's delivery queue; `inputLock` orders it against cancel's stop.
    fileprivate func feed(_ playing: StreamInputTtsPlayback, _ event: SynthesisEvent, relay: EventRelay) {
        playing.inputLock.withLock {
            guard !relay.cancelled else { return }
            switch event {
            case .started: playing.begin(format: relay.format, sampleRate: relay.sampleRate, sessionId: relay.sessionId)
            case .audio(let audio): audio.bytes.withUnsafeBytes { _ = playing.player.enqueue($0) }
            case .completed(let c):
                playing.updateSpoken { $0.add(c.words, sentence: nil) }
                playing.player.endInput()
            case .error: playing.player.endInput()
            case .sentenceBegin(let x), .sentenceSynthesis(let x), .sentenceEnd(let x):
                playing.updateSpoken { $0.sentence(x.index, text: x.originalText); $0.add(x.words, sentence: x.index) }
            }
        }
    }
}

/// Passes one task's session events to its ``NeoNuiStreamInputTts``; `cancelled` silences it.
private final class EventRelay: SpeechSynthesisDelegate, @unchecked Sendable { // `cancelled` under its lock
    weak var owner: NeoNuiStreamInputTts?
    let sessionId: String
    let format: String
    let sampleRate: Int
    private let flag = Locked(false)
    var cancelled: Bool {
        get { flag.withLock { $0 } }
        set { flag.withLock { $0 = newValue } }
    }

    init(owner: NeoNuiStreamInputTts, sessionId: String, format: String, sampleRate: Int) {
        self.owner = owner
        self.sessionId = sessionId
        self.format = format
        self.sampleRate = sampleRate
    }

    func synthesisSession(_ session: SpeechSynthesisSession, didReceive event: SynthesisEvent) {
        guard !cancelled else { return }
        owner?.handle(event, relay: self)
    }
}

final class WeakDelegate: @unchecked Sendable { // under the lock
    private let lock = NSLock()
    private weak var value: NeoNuiStreamInputTtsDelegate?
    var delegate: NeoNuiStreamInputTtsDelegate? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}
