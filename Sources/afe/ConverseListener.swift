import AudioFrontEnd
import Foundation
import NuiSDK
import NuiTTS
import Synchronization

/// The callbacks of `afe converse`, as a device app implements them: the recognizer's (NeoNui) and the speech
/// synthesizer's (NeoNuiStreamInputTts). Each SDK calls on its own callback thread; the loop reads what they
/// recorded. Times are on the loop's audio clock (`clock`, mic samples pushed), read when the callback runs.
final class ConverseListener: NeoNuiSdkDelegate, NeoNuiStreamInputTtsDelegate, @unchecked Sendable { // state under `lock`
    /// Mic samples pushed so far: the audio clock (the loop advances it; callbacks read it).
    let clock = Atomic<Int>(0)
    /// The dialog's end and the echo-cancelled samples received (the loop waits for each buffer's).
    let dialog = DialogEnd()
    /// The front end's barge-in decision reached the SDK (set on the drain thread as the SDK gets it).
    let bargeInSeen = Atomic<Bool>(false)
    private let interrupted = DispatchSemaphore(value: 0)
    private let quiet: Bool
    let lock = NSLock()
    // Under `lock`:
    /// When each partial result arrived (audio clock).
    private(set) var partialSamples: [(sample: Int, at: ContinuousClock.Instant)] = []
    private(set) var speechStartSamples: [Int] = []
    private(set) var finals: [ConverseFinal] = []
    private(set) var delivered: [UInt8] = []
    private(set) var synthesisStartedSample: Int?
    private(set) var synthesisCompleteSample: Int?
    private(set) var synthesisFailure: String?
    private(set) var decisions: [BargeInDecision] = []
    private(set) var interruption: StreamInputTtsInterruption?
    private(set) var playbackEvents: [(event: StreamInputTtsPlaybackEvent, positionMilliseconds: Int64, sample: Int)] = []
    private var clockEnd: (sample: Int, at: ContinuousClock.Instant)?
    /// Wall-clock moments of the synthesis, for the speed figures (connect, first audio, real-time factor).
    struct Wall {
        var started: ContinuousClock.Instant?
        var synthesisStarted: ContinuousClock.Instant?
        var firstText: ContinuousClock.Instant?
        var firstAudio: ContinuousClock.Instant?
        var complete: ContinuousClock.Instant?
    }
    let wall = Mutex(Wall())
    let rate: Int

    init(rate: Int, quiet: Bool) {
        self.rate = rate
        self.quiet = quiet
    }

    /// The audio clock now: the samples pushed, or after the loop ended, its end plus the wall-clock time since.
    private var now: Int {
        if let clockEnd = lock.withLock({ clockEnd }) {
            let elapsed = ContinuousClock.now - clockEnd.at
            return clockEnd.sample + Int(Double(elapsed.components.seconds) * Double(rate) + Double(elapsed.components.attoseconds) / 1e18 * Double(rate))
        }
        return clock.load(ordering: .acquiring)
    }

    /// The loop pushed its last buffer: later callbacks are timed by the wall clock from here.
    func clockStopped() { let sample = clock.load(ordering: .acquiring); lock.withLock { clockEnd = (sample, .now) } }

    func waitForEnd(timeout: Duration) -> Bool { dialog.wait(timeout: timeout) }

    // MARK: Recognition (NeoNui)

    func onNuiEventCallback(_ nuiEvent: NuiCallbackEvent, dialog: Int, kwsResult wuw: UnsafePointer<CChar>?,
                            asrResult asr_result: UnsafePointer<CChar>?, ifFinish finish: Bool, retCode code: Int32) {
        if DialogEnd.ends(nuiEvent) { return self.dialog.record(nuiEvent, command: "converse", retCode: code, result: asr_result) }
        let at = now
        switch nuiEvent {
        case .EVENT_VAD_START:
            lock.withLock { speechStartSamples.append(at) }
        case .EVENT_ASR_PARTIAL_RESULT:
            lock.withLock { partialSamples.append((at, .now)) }
        case .EVENT_SENTENCE_END:
            let message = ResultMessage(asr_result)
            lock.withLock { finals.append(ConverseFinal(text: message.text, begin: message.beginMilliseconds, end: message.endMilliseconds, arrival: at, arrivedAt: .now)) }
            if !quiet { print("  heard \(message.span): " + message.text) }
        default:
            break
        }
    }

    func onNuiAssistEventCallback(_ nuiEvent: NuiCallbackEvent, info: UnsafeMutablePointer<CChar>?, infoLen info_len: Int32,
                                  buffer: UnsafeMutablePointer<CChar>?, len: Int32) {
        dialog.count(nuiEvent, length: len)
    }

    // MARK: Synthesis (NeoNuiStreamInputTts)

    func onStreamInputTtsEventCallback(_ event: StreamInputTtsCallbackEvent, taskId taskid: UnsafePointer<CChar>?,
                                       sessionId: UnsafePointer<CChar>?, ret_code: Int32, error_msg: UnsafePointer<CChar>?,
                                       timestamp: UnsafePointer<CChar>?, all_response: UnsafePointer<CChar>?) {
        let at = now
        wall.withLock {
            if event == .TTS_EVENT_SYNTHESIS_STARTED { $0.synthesisStarted = .now }
            if event == .TTS_EVENT_SYNTHESIS_COMPLETE { $0.complete = .now }
        }
        lock.withLock {
            switch event {
            case .TTS_EVENT_SYNTHESIS_STARTED: synthesisStartedSample = at
            case .TTS_EVENT_SYNTHESIS_COMPLETE: synthesisCompleteSample = at
            case .TTS_EVENT_TASK_FAILED:
                synthesisFailure = (error_msg.map { String(cString: $0) } ?? "") + " (\(ret_code))"
            default: break
            }
        }
    }

    func onStreamInputTtsDataCallback(_ buffer: UnsafeMutablePointer<CChar>?, len: Int32) {
        guard let buffer, len > 0 else { return }
        let bytes = UnsafeRawBufferPointer(start: buffer, count: Int(len))
        wall.withLock { if $0.firstAudio == nil { $0.firstAudio = .now } }
        lock.withLock { delivered.append(contentsOf: bytes) }
    }

    func onStreamInputTtsPlaybackEventCallback(_ event: StreamInputTtsPlaybackEvent, sessionId: UnsafePointer<CChar>?,
                                               position_ms: Int64) {
        let at = now
        lock.withLock { playbackEvents.append((event, position_ms, at)) }
    }

    /// The drain thread: a barge-in decision on its way to the SDK.
    func decided(_ decision: BargeInDecision) {
        guard !decision.isSuspicion else { return } // a duck, not a stop (converse does not turn suspicions on)
        lock.withLock { decisions.append(decision) }
        bargeInSeen.store(true, ordering: .releasing)
    }

    func onStreamInputTtsInterruptedCallback(_ interruption: StreamInputTtsInterruption) {
        lock.withLock { self.interruption = interruption }
        interrupted.signal()
    }

    /// Waits (bounded) for the interruption callback, which follows the stop on the SDK's callback thread.
    func waitForInterruption(timeout: Duration) {
        if lock.withLock({ interruption == nil }) { _ = interrupted.wait(timeout: .now() + .milliseconds(Int(timeout.components.seconds * 1000))) }
    }

    /// The position of the first playback event `event`, if it came.
    func playback(_ event: StreamInputTtsPlaybackEvent) -> (positionMilliseconds: Int64, sample: Int)? {
        lock.withLock { playbackEvents.first { $0.event == event }.map { ($0.positionMilliseconds, $0.sample) } }
    }
}

/// A final result: its text, its times on the audio (ms, as the service gives them), when it arrived (audio clock).
struct ConverseFinal {
    var text: String
    var begin: Int?
    var end: Int?
    var arrival: Int
    var arrivedAt: ContinuousClock.Instant
}
