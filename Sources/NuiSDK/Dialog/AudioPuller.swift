import AudioFrontEnd
import Foundation
import Synchronization
import Threads

/// Pull mode (`audio_update_manually` false): the SDK's audio thread asks the app for audio through
/// `onNuiNeedAudioData` every ``chunkDuration`` and pushes what it gets into the dialog.
///
/// The pace is real time by default; ``speed`` > 1 asks faster (tests), 0 asks as fast as the pipeline takes
/// the audio. A request the app answers with 0 bytes (nothing recorded yet) waits one chunk before the next, so
/// an idle recorder is polled at real-time pace and the mic-silence watchdog sees the gap.
final class AudioPuller: @unchecked Sendable { // the thread owns `buffer`; flags are atomic
    /// Asks the app for up to `length` bytes into `buffer`; returns the count (≤ 0: none).
    typealias Source = @Sendable (_ buffer: UnsafeMutablePointer<CChar>, _ length: Int32) -> Int32
    /// Pushes bytes into the dialog; returns how many were taken and whether to retry the rest (buffer full),
    /// or nil when the dialog is gone.
    typealias Sink = @Sendable (_ bytes: UnsafeRawBufferPointer) -> (accepted: Int, retry: Bool)?

    let chunkBytes: Int
    let chunkDuration: Double
    let speed: Double
    private let source: Source
    private let sink: Sink
    private let stopping = Atomic<Bool>(false)
    private let thread = ThreadSlot()

    /// - Parameters:
    ///   - sampleRate: of the app's PCM; requests are 20 ms (`sampleRate / 50 * 2` bytes).
    ///   - speed: 1 real time, > 1 faster, 0 no pause.
    init(sampleRate: Int, speed: Double, source: @escaping Source, sink: @escaping Sink) {
        chunkBytes = sampleRate / 50 * 2
        chunkDuration = 0.02
        self.speed = speed
        self.source = source
        self.sink = sink
    }

    /// Starts the pull thread, unless ``stop()`` came first.
    func start() { thread.start(name: "NeoNui.audio") { [self] in run() } }

    /// Stops asking, for good; waits until the thread has returned (nothing its closures hold outlives the call)
    /// unless called on it (from inside `onNuiNeedAudioData`: detaches it). Idempotent.
    func stop() {
        stopping.store(true, ordering: .releasing)
        thread.join(closing: true)
    }

    /// Whether the caller is the pull thread (inside `onNuiNeedAudioData`).
    var isCurrentThread: Bool { thread.isCurrent }

    private func run() {
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: chunkBytes)
        defer { buffer.deallocate() }
        let period = speed > 0 ? chunkDuration / speed : 0
        var deadline = Date().timeIntervalSinceReferenceDate
        while !stopping.load(ordering: .acquiring) {
            let count = Int(source(buffer, Int32(chunkBytes)))
            if stopping.load(ordering: .acquiring) { break }
            if count > 0 && !push(UnsafeRawBufferPointer(start: buffer, count: min(count, chunkBytes))) { break }
            deadline += count > 0 ? period : chunkDuration
            let wait = deadline - Date().timeIntervalSinceReferenceDate
            if wait > 0 { usleep(useconds_t(wait * 1_000_000)) } else if wait < -1 { deadline = Date().timeIntervalSinceReferenceDate }
        }
    }

    /// Pushes all of `bytes`, retrying while the pipeline is full; false when the dialog is gone.
    private func push(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count && !stopping.load(ordering: .acquiring) {
            guard let (accepted, retry) = sink(UnsafeRawBufferPointer(rebasing: bytes[offset...])) else { return false }
            offset += accepted
            if offset < bytes.count {
                guard retry else { return true }
                usleep(5000)
            }
        }
        return true
    }
}
