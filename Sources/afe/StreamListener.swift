import Foundation
import NuiSDK
import Synchronization

/// The NUI callbacks of `afe stream`, as a ported app implements them: results printed as they arrive (final
/// results as lines; partials in place on a terminal, as lines with `partials == true`, not at all with false),
/// the echo-cancelled audio counted (it paces a stream that is not real time), the dialog's end signalled.
/// Runs on the SDK's callback thread.
final class StreamListener: NeoNuiSdkDelegate, @unchecked Sendable { // mutable state on the callback thread only
    private let partials: Bool?
    private let inPlace: Bool
    private var pending = false
    /// The dialog's end and the echo-cancelled samples received; the feeder stops on its end.
    let dialog = DialogEnd()

    init(partials: Bool?, inPlace: Bool) {
        self.partials = partials
        self.inPlace = inPlace
    }

    /// Waits for EVENT_TRANSCRIBER_COMPLETE or EVENT_ASR_ERROR; throws the error's one line.
    func waitForEnd() throws {
        _ = dialog.wait()
        if let failure = dialog.failure { throw failure }
    }

    func onNuiEventCallback(_ nuiEvent: NuiCallbackEvent, dialog: Int, kwsResult wuw: UnsafePointer<CChar>?,
                            asrResult asr_result: UnsafePointer<CChar>?, ifFinish finish: Bool, retCode code: Int32) {
        if DialogEnd.ends(nuiEvent) {
            clear()
            fflush(nil)
            return self.dialog.record(nuiEvent, command: "stream", retCode: code, result: asr_result)
        }
        let message = ResultMessage(asr_result)
        switch nuiEvent {
        case .EVENT_TRANSCRIBER_STARTED:
            print("  started (task \(message.taskId ?? "?"))")
        case .EVENT_ASR_PARTIAL_RESULT where inPlace:
            clear()
            print("  … \(message.text)", terminator: "")
            fflush(nil) // all streams: stdout is not concurrency-safe to name
            pending = true
        case .EVENT_ASR_PARTIAL_RESULT where partials == true:
            print("  partial \(message.sentenceId.map(String.init) ?? "?"): \(message.text)")
        case .EVENT_SENTENCE_END:
            clear()
            print("  \(message.span) " + message.text)
        case .EVENT_RESULT_TRANSLATED:
            print("  translation: \(message.text)")
        case .EVENT_MIC_ERROR:
            print("  mic: \(asr_result.map { String(cString: $0) } ?? "no audio")")
        default:
            break
        }
    }

    func onNuiAssistEventCallback(_ nuiEvent: NuiCallbackEvent, info: UnsafeMutablePointer<CChar>?, infoLen info_len: Int32,
                                  buffer: UnsafeMutablePointer<CChar>?, len: Int32) {
        dialog.count(nuiEvent, length: len)
    }

    private func clear() {
        if pending { print("\r\u{1B}[K", terminator: ""); pending = false }
    }

}
