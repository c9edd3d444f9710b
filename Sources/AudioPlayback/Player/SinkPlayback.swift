import AudioFrontEnd
import Foundation
import Synchronization
import Threads

/// Where ``SinkPlayback`` writes: the app's audio output, as a blocking write (an ALSA/PulseAudio simple
/// stream, a file, a socket).
public protocol PlaybackSink: AnyObject, Sendable {
    /// Plays one buffer (interleaved, the player's channels). Called on the playback thread only, in order.
    /// May block until the device has room; that pacing is what ``SinkPlayback/Pacing/sink`` relies on.
    func write(_ samples: UnsafeBufferPointer<Int16>)
}

/// The second shape of playback: the SDK's own playback thread renders a device buffer at a time from a
/// ``SynthesisPlayer`` (pushing each one to the front end's reference as it does) and writes it to the app's
/// sink. Paced by the sink (its write blocks) or by the clock (one buffer per buffer duration).
///
/// Lifecycle: create → ``start()`` → ``stop()`` (waits for the thread). The running thread keeps the object
/// alive, so call ``stop()`` before letting it go. Control calls from any thread but the playback thread.
public final class SinkPlayback: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `buffer` is touched by the playback thread only, after start; the
    // flags are atomic.
    public enum Pacing: Sendable, Equatable {
        /// The sink's write blocks until the device took the buffer.
        case sink
        /// The thread sleeps until the buffer's time has come (monotonic clock, deadlines that do not drift).
        case realTime
    }

    public let player: SynthesisPlayer
    public let sink: any PlaybackSink
    public let pacing: Pacing
    /// Frames per buffer written.
    public let bufferFrames: Int
    private let buffer: UnsafeMutableBufferPointer<Int16>
    private let running = Atomic<Bool>(false)
    private let thread = ThreadSlot()
    /// Buffers written so far. Any thread.
    public var buffersWritten: Int { written.load(ordering: .relaxed) }
    private let written = Atomic<Int>(0)

    /// - Parameters:
    ///   - bufferMilliseconds: one buffer's duration, 2...100 ms, default 10 (stop takes effect within it).
    /// - Throws: ``AudioFrontEndError/Code/invalidConfiguration`` for a duration out of range.
    public init(player: SynthesisPlayer, sink: any PlaybackSink, pacing: Pacing = .sink, bufferMilliseconds: Int = 10) throws {
        guard (2...100).contains(bufferMilliseconds) else {
            throw AudioFrontEndError(.invalidConfiguration, "a playback buffer lasts 2...100 ms, not \(bufferMilliseconds) ms")
        }
        self.player = player
        self.sink = sink
        self.pacing = pacing
        bufferFrames = max(1, player.configuration.sampleRate * bufferMilliseconds / 1000)
        buffer = .allocate(capacity: bufferFrames * player.configuration.channelCount)
    }

    deinit {
        stop()
        buffer.deallocate()
    }

    /// Starts the playback thread. Any thread.
    public func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        let started = thread.start(name: "AudioPlayback.sink") { [self] in
            #if canImport(Darwin)
            pthread_set_qos_class_self_np(QOS_CLASS_USER_INTERACTIVE, 0)
            #endif
            run()
        }
        if !started { running.store(false, ordering: .releasing) } // the system refused a thread
    }

    /// Stops the playback thread after its current buffer and waits until it has returned (nothing it held
    /// outlives the call). Any thread; from the playback thread itself it does not wait.
    public func stop() {
        running.store(false, ordering: .releasing)
        thread.join()
    }

    private func run() {
        let period = UInt64(bufferFrames) * 1_000_000_000 / UInt64(player.configuration.sampleRate)
        var deadline = Self.now()
        while running.load(ordering: .acquiring) {
            player.render(into: buffer)
            sink.write(UnsafeBufferPointer(buffer))
            written.add(1, ordering: .relaxed)
            guard pacing == .realTime else { continue }
            deadline += period
            let now = Self.now()
            if deadline > now {
                var pause = timespec(tv_sec: Int(deadline - now) / 1_000_000_000, tv_nsec: Int(deadline - now) % 1_000_000_000)
                nanosleep(&pause, nil)
            } else if now - deadline > 20 * period {
                deadline = now // far behind (the process was stopped): start the schedule again
            }
        }
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
