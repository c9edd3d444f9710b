import AudioFrontEnd
import AudioPlayback
import Foundation
import Synchronization

/// The device: what the playback writes is played into a room whose echo (half the amplitude, no delay) is the
/// front end's mic, one buffer per write; paced by the playback's clock (`--realtime`) or about 20 times faster.
/// With a user (``talk(afterMilliseconds:)``), the user's speech is added to the mic that long after the next answer's
/// first sample, once.
final class EchoSink: PlaybackSink, @unchecked Sendable { // the playback thread writes; `written` is read after it stopped
    private let frontEnd: FrontEnd
    private let realtime: Bool
    private var echo = [Int16](repeating: 0, count: 4800)
    private(set) var written = 0
    /// The user's speech, and when it starts: samples after the next answer's first one (set by ``talk``), then
    /// its index in the written stream once that answer began.
    private let user: [Int16]
    private let userDelay = Atomic<Int>(-1)
    private var userStart: Int?

    init(frontEnd: FrontEnd, realtime: Bool, user: [Int16] = []) {
        self.frontEnd = frontEnd
        self.realtime = realtime
        self.user = user
    }

    /// The user talks `milliseconds` after the next answer's first sample (16 kHz). Any thread.
    func talk(afterMilliseconds milliseconds: Int) { userDelay.store(milliseconds * 16, ordering: .releasing) }

    func write(_ samples: UnsafeBufferPointer<Int16>) {
        let n = min(samples.count, echo.count)
        let delay = userDelay.load(ordering: .acquiring)
        if delay >= 0, let first = samples[0..<n].firstIndex(where: { $0 != 0 }) {
            userStart = written + first + delay
            userDelay.store(-1, ordering: .releasing)
        }
        for i in 0..<n {
            var mic = Int(samples[i]) / 2
            if let start = userStart, written + i >= start, written + i - start < user.count { mic += Int(user[written + i - start]) }
            echo[i] = Int16(clamping: mic)
        }
        _ = echo.withUnsafeBufferPointer { frontEnd.pushMic(samples: UnsafeBufferPointer(rebasing: $0[0..<n])) }
        written += n
        if !realtime { usleep(500) }
    }
}
