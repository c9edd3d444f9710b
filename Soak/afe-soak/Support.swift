import Foundation
import SpeechStreaming
import VoiceRecognition

/// The command line of a soak run.
struct SoakOptions {
    var url = ""
    var wire = "dashscope"
    var format = "pcm"
    var mic = "TestVectors/doubletalk_ser0db_16k.wav"
    var reference = "TestVectors/farend_16k.wav"
    var seconds = 600.0
    var dialogs = 200
    var dialogSeconds = 2.0
    var realtime = false
    var rssLimitBytes = 2 * 1024 * 1024
    /// Bytes in malloc'd blocks may grow by this much after the first minute: memory the program still holds,
    /// where RSS also counts what glibc's arenas keep free (issue 13's ±1 MiB, for what is reachable).
    var heapLimitBytes = 1024 * 1024

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        while let name = rest.popFirst() {
            guard let value = rest.popFirst() else {
                if name == "--realtime" { realtime = true; continue }
                throw SoakFailure("\(name) needs a value")
            }
            switch name {
            case "--url": url = value
            case "--protocol": wire = value
            case "--format": format = value
            case "--mic": mic = value
            case "--reference": reference = value
            case "--seconds": seconds = try Self.number(value, name)
            case "--dialogs": dialogs = Int(try Self.number(value, name))
            case "--dialog-seconds": dialogSeconds = try Self.number(value, name)
            case "--rss-limit-mib": rssLimitBytes = Int(try Self.number(value, name) * 1024 * 1024)
            case "--heap-limit-mib": heapLimitBytes = Int(try Self.number(value, name) * 1024 * 1024)
            case "--realtime": realtime = true; rest.insert(value, at: rest.startIndex)
            default: throw SoakFailure("unknown option \(name)")
            }
        }
        guard !url.isEmpty else { throw SoakFailure("--url is required") }
        guard ["dashscope", "nls"].contains(wire) else { throw SoakFailure("--protocol is dashscope or nls") }
        guard ["pcm", "opus", "wav", "mp3"].contains(format) else { throw SoakFailure("--format is pcm, opus, wav or mp3") }
    }

    private static func number(_ text: String, _ name: String) throws -> Double {
        guard let value = Double(text), value.isFinite, value > 0 else { throw SoakFailure("\(name) takes a positive number") }
        return value
    }

    var audioFormat: AudioFormat { format == "opus" ? .opus : .pcm }
    /// The synthesis format of the TTS soaks (`--format`: pcm, wav, mp3 or opus).
    var ttsFormat: String { format }

    func service() throws -> RecognitionConfiguration.Service {
        wire == "nls" ? .nls(NLSConfiguration(url: url, token: "soak-token", appKey: "soak-appkey"))
            : .dashScope(DashScopeConfiguration(url: url, apiKey: "soak-key"))
    }
}

/// A value set once by one thread and read by another after a semaphore.
final class Outcome: @unchecked Sendable { // `value` behind `lock`
    private let lock = NSLock()
    private var value: Result<RecognitionSummary, any Error>?

    func set(_ result: Result<RecognitionSummary, any Error>) { lock.withLock { if value == nil { value = result } } }

    func get() throws -> RecognitionSummary {
        guard let value = lock.withLock({ value }) else { throw SoakFailure("the dialog did not end") }
        return try value.get()
    }
}

/// Runs async work from synchronous code and waits for it (the soak's main thread is not in a task).
@discardableResult
func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, any Error>?
    Task.detached {
        do { result = .success(try await work()) } catch { result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try result!.get()
}
