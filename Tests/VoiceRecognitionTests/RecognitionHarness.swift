import AudioFrontEnd
import Foundation
import SpeechStreaming
import Synchronization
import VoiceRecognition
import XCTest

/// The two protocols, as services of the reference server.
enum Wire: String, CaseIterable {
    case dashScope, nls

    func service(url: String, maxSentenceSilenceMilliseconds: Int = 500) -> RecognitionConfiguration.Service {
        let connection = ConnectionOptions(connectTimeout: .seconds(5), finishTimeout: .seconds(60))
        switch self {
        case .dashScope:
            return .dashScope(DashScopeConfiguration(url: url, apiKey: "sk-test-key-4242", parameters: DashScopeParameters(
                model: "paraformer-realtime-v2", maxSentenceSilenceMilliseconds: maxSentenceSilenceMilliseconds),
                connection: connection))
        case .nls:
            return .nls(NLSConfiguration(url: url, token: "test-token-4242", appKey: "appkey",
                                         maxSentenceSilenceMilliseconds: maxSentenceSilenceMilliseconds, connection: connection))
        }
    }

    func service(_ server: ReferenceServer) -> RecognitionConfiguration.Service {
        service(url: server.url(self == .dashScope ? "/api-ws/v1/inference" : "/ws/v1"))
    }
}

/// Keeps every event a core reports, the thread each came on, and lets a test wait for one.
final class EventLog: @unchecked Sendable { // state in the log and the mutex
    private let log = WaitableLog<RecognitionEvent>()
    private let threads = Mutex(Set<UInt>())
    /// Called on the event thread for each event, before it is recorded. Behind a lock: a test may set it while
    /// events arrive.
    var onEvent: (@Sendable (RecognitionEvent) -> Void)? {
        get { hookLock.withLock { hook } }
        set { hookLock.withLock { hook = newValue } }
    }
    private let hookLock = NSLock()
    private var hook: (@Sendable (RecognitionEvent) -> Void)?

    /// Installs the log as the core's handler.
    func attach(to core: RecognitionCore) {
        core.eventHandler = { [self] event in
            onEvent?(event)
            _ = threads.withLock { $0.insert(UInt(pthread_self())) }
            log.append(event)
        }
    }

    var events: [RecognitionEvent] { log.all }
    /// How many threads called the handler.
    var threadCount: Int { threads.withLock { $0.count } }

    /// Waits until an event satisfies `match` (which must not read the log); returns it, or nil after `timeout` s.
    @discardableResult
    func wait(timeout: TimeInterval = 10, for match: (RecognitionEvent) -> Bool) -> RecognitionEvent? {
        log.wait(timeout: timeout, for: match)
    }

    /// Waits for the last event (completed or error).
    @discardableResult
    func waitForEnd(timeout: TimeInterval = 60) -> RecognitionEvent? { wait(timeout: timeout) { $0.isTerminal } }

    var finals: [RecognitionResult] { events.compactMap { if case .finalResult(let r) = $0 { r } else { nil } } }
    /// The processed audio, concatenated.
    var audio: [Int16] {
        events.reduce(into: [Int16]()) { if case .audio(let chunk) = $1 { $0 += chunk.samples } }
    }
    var summary: RecognitionSummary? {
        if case .completed(let summary) = events.last { summary } else { nil }
    }
    var error: RecognitionError? {
        if case .error(let error) = events.last { error } else { nil }
    }
}

/// Pushing audio as a device would: 10 ms of reference, then 10 ms of mic.
enum Feed {
    /// Pushes `mic` (and `reference`, same rate) in `chunk`-sample pieces; retries what the front end refuses
    /// while its consumer catches up. Returns the samples not accepted in the end (0 in a healthy run).
    @discardableResult
    static func push(_ core: RecognitionCore, mic: ArraySlice<Int16>, reference: ArraySlice<Int16>? = nil,
                     chunk: Int = 160) -> Int {
        var offset = mic.startIndex
        while offset < mic.endIndex {
            let end = min(offset + chunk, mic.endIndex)
            if let reference, offset < reference.endIndex {
                reference[offset..<min(end, reference.endIndex)].withUnsafeBufferPointer { _ = core.pushReference(samples: $0) }
            }
            var piece = mic[offset..<end]
            var tries = 0
            while !piece.isEmpty && tries < 5000 {
                let result = piece.withUnsafeBufferPointer { core.pushMic(samples: $0) }
                piece = piece.dropFirst(result.accepted)
                if result.status == .notRunning { return mic.endIndex - offset }
                if !piece.isEmpty { usleep(1000); tries += 1 }
            }
            offset = end
        }
        return 0
    }
}
