import Foundation
@testable import NuiSDK
import XCTest

/// A NeoNuiSdkDelegate that keeps everything the SDK reports and lets a test wait for it. Optional hooks run
/// inside the callbacks (to call back into the SDK).
final class NuiRecorder: NeoNuiSdkDelegate, @unchecked Sendable { // state under `condition`
    struct Event {
        var event: NuiCallbackEvent
        var dialog: Int
        var asrResult: String?
        var finish: Bool
        var code: Int32
        /// What nui_get_all_response returned inside the callback.
        var response: String?
        /// Whether the callback ran on the main (test) thread.
        var onMainThread: Bool
    }

    private let condition = NSCondition()
    private(set) var recordedEvents: [Event] = []
    private(set) var audioStates: [NuiAudioState] = []
    private(set) var logLines: [(NuiSdkLogLevel, String)] = []
    private(set) var aecBytes: [UInt8] = []
    private(set) var aecCallbacks = 0
    private(set) var rmsValues: [Float] = []
    private(set) var pullRequests = 0
    weak var nui: NeoNui?
    /// Audio the pull-mode callback hands out, in order; nil answers 0 bytes.
    var pullAudio: [UInt8]?
    private var pullOffset = 0
    /// Hooks called inside the callbacks; `onAssist` inside `onNuiAssistEventCallback` (EVENT_AEC_DATA), `onRms`
    /// inside `onNuiRmsChanged`. Under `condition`: a test may set one while the callback thread runs
    /// (ThreadSanitizer saw `ReleaseTests` do so).
    var onEvent: ((Event) -> Void)? {
        get { condition.withLock { hooks.event } }
        set { condition.withLock { hooks.event = newValue } }
    }
    var onAudioState: ((NuiAudioState) -> Void)? {
        get { condition.withLock { hooks.audioState } }
        set { condition.withLock { hooks.audioState = newValue } }
    }
    var onLog: ((NuiSdkLogLevel, String) -> Void)? {
        get { condition.withLock { hooks.log } }
        set { condition.withLock { hooks.log = newValue } }
    }
    var onPull: (() -> Void)? {
        get { condition.withLock { hooks.pull } }
        set { condition.withLock { hooks.pull = newValue } }
    }
    var onAssist: (() -> Void)? {
        get { condition.withLock { hooks.assist } }
        set { condition.withLock { hooks.assist = newValue } }
    }
    var onRms: (() -> Void)? {
        get { condition.withLock { hooks.rms } }
        set { condition.withLock { hooks.rms = newValue } }
    }
    private struct Hooks {
        var event: ((Event) -> Void)?
        var audioState: ((NuiAudioState) -> Void)?
        var log: ((NuiSdkLogLevel, String) -> Void)?
        var pull, assist, rms: (() -> Void)?
    }
    private var hooks = Hooks()
    /// Every callback but AEC data, RMS and logs, in the order they came: "STATE_OPEN", "EVENT_… dialog".
    private(set) var timelineEntries: [String] = []
    /// The threads callbacks ran on, pull mode's audio thread excepted.
    private(set) var callbackThreads: Set<ObjectIdentifier> = []

    init(_ nui: NeoNui? = nil) { self.nui = nui }

    func onNuiEventCallback(_ nuiEvent: NuiCallbackEvent, dialog: Int, kwsResult wuw: UnsafePointer<CChar>?,
                            asrResult asr_result: UnsafePointer<CChar>?, ifFinish finish: Bool, retCode code: Int32) {
        let response = nui?.nui_get_all_response().map { String(cString: $0) }
        let event = Event(event: nuiEvent, dialog: dialog, asrResult: asr_result.map { String(cString: $0) }, finish: finish,
                          code: code, response: response, onMainThread: Thread.isMainThread)
        onEvent?(event)
        condition.withLock {
            noteThread()
            timelineEntries.append("\(nuiEvent) \(dialog)")
            recordedEvents.append(event)
            condition.broadcast()
        }
    }

    func onNuiNeedAudioData(_ audioData: UnsafeMutablePointer<CChar>?, length len: Int32) -> Int32 {
        onPull?()
        return condition.withLock {
            pullRequests += 1
            guard let audio = pullAudio, let audioData, pullOffset < audio.count else { return 0 }
            let count = min(Int(len), audio.count - pullOffset)
            audio.withUnsafeBytes { source in
                UnsafeMutableRawPointer(audioData).copyMemory(from: source.baseAddress! + pullOffset, byteCount: count)
            }
            pullOffset += count
            return Int32(count)
        }
    }

    func onNuiAudioStateChanged(_ state: NuiAudioState) {
        onAudioState?(state)
        condition.withLock {
            noteThread()
            timelineEntries.append("\(state)")
            audioStates.append(state)
            condition.broadcast()
        }
    }

    func onNuiRmsChanged(_ rms: Float) {
        onRms?()
        condition.withLock {
            noteThread()
            rmsValues.append(rms)
        }
    }

    /// Under `condition`.
    private func noteThread() { callbackThreads.insert(ObjectIdentifier(Thread.current)) }

    func onNuiAssistEventCallback(_ nuiEvent: NuiCallbackEvent, info: UnsafeMutablePointer<CChar>?, infoLen info_len: Int32,
                                  buffer: UnsafeMutablePointer<CChar>?, len: Int32) {
        guard nuiEvent == EVENT_AEC_DATA, let buffer else { return }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: Int(len))
        onAssist?()
        condition.withLock {
            noteThread()
            aecBytes.append(contentsOf: bytes)
            aecCallbacks += 1
        }
    }

    func onNuiLogTrackCallback(_ level: NuiSdkLogLevel, logMessage log: UnsafePointer<CChar>?) {
        let line = log.map { String(cString: $0) } ?? ""
        onLog?(level, line)
        condition.withLock {
            noteThread()
            logLines.append((level, line))
            condition.broadcast()
        }
    }

    var events: [Event] { condition.withLock { recordedEvents } }
    var timeline: [String] { condition.withLock { timelineEntries } }
    var threads: Set<ObjectIdentifier> { condition.withLock { callbackThreads } }
    var states: [NuiAudioState] { condition.withLock { audioStates } }
    var logs: [(NuiSdkLogLevel, String)] { condition.withLock { logLines } }
    var aecSamples: [Int16] {
        condition.withLock { aecBytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) } }
    }
    var aecCallbackCount: Int { condition.withLock { aecCallbacks } }
    var rms: [Float] { condition.withLock { rmsValues } }
    var pulls: Int { condition.withLock { pullRequests } }
    /// Whether the pull callback has handed out all of ``pullAudio``.
    var pulledEverything: Bool { condition.withLock { pullAudio.map { pullOffset >= $0.count } ?? false } }
    func events(_ kind: NuiCallbackEvent) -> [Event] { events.filter { $0.event == kind } }

    /// Waits until `match` holds for the recorder; false after `timeout` seconds.
    @discardableResult
    func wait(timeout: TimeInterval = 15, _ match: (NuiRecorder) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            condition.unlock()
            let done = match(self)
            condition.lock()
            if done { return true }
            if !condition.wait(until: min(deadline, Date().addingTimeInterval(0.05))) && Date() >= deadline { return false }
        }
    }

    /// Waits for an event of `kind` (the `count`-th one); returns it.
    @discardableResult
    func wait(for kind: NuiCallbackEvent, count: Int = 1, timeout: TimeInterval = 15) -> Event? {
        wait(timeout: timeout) { $0.events(kind).count >= count } ? events(kind)[count - 1] : nil
    }

    /// Waits for the dialog's end: EVENT_TRANSCRIBER_COMPLETE or EVENT_ASR_ERROR.
    @discardableResult
    func waitForEnd(timeout: TimeInterval = 30) -> Event? {
        let ends: Set<NuiCallbackEvent> = [.EVENT_TRANSCRIBER_COMPLETE, .EVENT_ASR_ERROR]
        return wait(timeout: timeout) { $0.events.contains { ends.contains($0.event) } }
            ? events.first { ends.contains($0.event) } : nil
    }
}
