import Foundation
import NuiSDK
import Synchronization

/// What a CLI listener keeps of a NUI dialog's end: EVENT_TRANSCRIBER_COMPLETE or EVENT_ASR_ERROR (with its
/// failure), and the echo-cancelled samples counted from EVENT_AEC_DATA (they pace a stream that is not real
/// time). The SDK's callback thread records; any thread reads or waits. Not on the real-time path.
final class DialogEnd: @unchecked Sendable { // `failureValue` under `lock`
    /// Samples of echo-cancelled audio received (EVENT_AEC_DATA), at the processing rate.
    let processedSamples = Atomic<Int>(0)
    /// Whether the dialog ended (completed or failed).
    let isOver = Atomic<Bool>(false)
    private let ended = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var failureValue: NuiFailure?

    /// The dialog's error, when it ended with EVENT_ASR_ERROR.
    var failure: NuiFailure? { lock.withLock { failureValue } }

    /// Whether `event` ends a dialog: EVENT_TRANSCRIBER_COMPLETE or EVENT_ASR_ERROR.
    static func ends(_ event: NuiCallbackEvent) -> Bool { event == .EVENT_TRANSCRIBER_COMPLETE || event == .EVENT_ASR_ERROR }

    /// Records the end (`event`, one that ``ends(_:)``; on an error, the failure of `command`'s dialog) and wakes
    /// the waiter. Callback thread.
    func record(_ event: NuiCallbackEvent, command: String, retCode: Int32, result: UnsafePointer<CChar>?) {
        if event == .EVENT_ASR_ERROR {
            let failure = NuiFailure.dialog(command, retCode: retCode, result: result)
            lock.withLock { failureValue = failure }
        }
        isOver.store(true, ordering: .releasing)
        ended.signal()
    }

    /// Counts the samples of an EVENT_AEC_DATA buffer of `length` bytes. Callback thread.
    func count(_ event: NuiCallbackEvent, length: Int32) {
        if event == .EVENT_AEC_DATA { processedSamples.add(Int(length) / 2, ordering: .releasing) }
    }

    /// Waits for the end; false if `timeout` passed first (nil: no limit).
    func wait(timeout: Duration? = nil) -> Bool {
        guard let timeout else { ended.wait(); return true }
        let milliseconds = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return ended.wait(timeout: .now() + .milliseconds(milliseconds)) == .success
    }
}
