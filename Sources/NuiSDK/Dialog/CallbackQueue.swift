import AudioFrontEnd
import Foundation
import Synchronization

/// The SDK's callback thread: one thread per owner (a `NeoNui` or `NeoNuiStreamInputTts` instance) that runs
/// every callback one at a time, in the order they were posted, never on the caller's thread and never while the
/// owner holds a lock. A callback may call back into the owner (even `nui_release`): posting never waits for the
/// thread, and the thread holds no lock while a callback runs.
///
/// Bounded, by kind (``Kind``): at most ``droppableCapacity`` droppable callbacks (processed audio, levels,
/// partial results, log lines: later ones supersede them) wait or run at once; a droppable post beyond that is
/// refused (``post(_:_:)`` returns false, the owner counts it). Kept callbacks (sentence starts and ends, VAD,
/// mic errors) come at the speech's pace and are never refused while fewer than ``keptCapacity`` wait, which an
/// app can only reach when a hostile server floods results (then refused and counted too). Terminal callbacks
/// (audio states, a dialog's start, errors, completion: a few per dialog) are never refused. All kinds share one
/// FIFO: one order for every callback.
///
/// The thread is also the host of the front ends made with ``drainHost`` (``AudioFrontEnd/FrontEndDrainHost``:
/// NeoNui's engine): it waits on the host's one semaphore, and before each callback runs a drain round of each
/// such front end (their events, through the dialog's tap, become posts), so one thread per instance carries a
/// chunk from the front end's event ring to the app. A callback may call back into the owner there too: a round
/// never runs while a callback does, and no lock is held across either.
///
/// The thread starts with the first post (or the first use of ``drainHost``) and ends once the queue is released
/// and what was posted has run.
package final class CallbackQueue: @unchecked Sendable { // immutable; the state is in `lane`
    /// What a post may cost when the app's callbacks fall behind.
    package enum Kind: Sendable {
        /// Superseded by later ones (AEC data, RMS, partial results, log lines): refused beyond ``droppableCapacity``.
        case droppable
        /// Results the app needs (sentences, VAD): refused only beyond ``keptCapacity`` (a hostile flood).
        case kept
        /// A dialog's start and end, audio states, errors: never refused.
        case terminal
    }

    /// Most droppable callbacks waiting (or running) at once: about 5 s of a dialog's callbacks (AEC data and
    /// RMS, 100 each per second) behind, ≤ 1024 × (a 10 ms chunk: 1 KB at 48 kHz) ≈ 1 MiB. The chunk buffers of
    /// ``postSamples(_:)`` are pooled: made as a backlog first needs them, at most this many, kept for reuse.
    package static let droppableCapacity = 1024
    /// Most kept callbacks waiting at once: the bound every event queue of the stack has (a sentence every few
    /// seconds never reaches it; 16,384 results of ~300 bytes ≈ 5 MiB).
    package static let keptCapacity = 16_384
    /// Chunk buffers the pool makes with the first chunk (≈ 31 KB at 16 kHz): the callback thread posts what a
    /// drain round finds (several chunks when it was late), so a pool grown one buffer at a time kept growing,
    /// an allocation on that thread now and then, well after the start.
    static let initialSlots = 32

    private let lane = Lane()

    /// The host whose front ends this queue's thread drains (see above). Starts the thread. Any thread.
    package var drainHost: FrontEndDrainHost {
        lane.startIfNeeded()
        return lane.host
    }

    package init() {}

    deinit { lane.close() }

    /// Runs `body` on the callback thread after everything posted before. Any thread; returns at once (takes a
    /// lock for the append, never waits for a callback). Returns false when `kind`'s capacity is reached and
    /// `body` was dropped (never for ``Kind/terminal``).
    @discardableResult
    package func post(_ kind: Kind = .terminal, _ body: @escaping @Sendable () -> Void) -> Bool {
        lane.append(Entry(payload: .body(body), kind: kind))
    }

    /// What ``postSamples(_:)`` and ``postLevel(_:)`` hand the output handler on the callback thread.
    package enum Output {
        /// A chunk of processed audio: the queue's own copy, valid during the call only.
        case samples(UnsafeBufferPointer<Int16>)
        /// An input level (dB).
        case level(Float)
    }

    /// Sets what runs for ``postSamples(_:)`` and ``postLevel(_:)`` entries: each runs the handler set when the
    /// callback thread takes it (read under the queue's lock, which the thread holds then anyway). Any thread.
    package func setOutputHandler(_ handler: @escaping @Sendable (Output) -> Void) { lane.setOutputHandler(handler) }

    /// Copies `samples` into one of the queue's chunk buffers and runs the output handler with them on the
    /// callback thread after everything posted before, as a ``Kind/droppable`` callback; the buffer goes back to
    /// the queue's pool after the call. Any thread; returns at once. Takes the queue's lock once; allocates
    /// nothing once the pool holds as many buffers as chunks ever waited at once (at most
    /// ``droppableCapacity``, each the size of the largest chunk posted: ≈ 1 KB for 10 ms at 48 kHz). Returns
    /// false (nothing copied) when ``droppableCapacity`` droppable callbacks wait.
    @discardableResult
    package func postSamples(_ samples: UnsafeBufferPointer<Int16>) -> Bool { lane.appendSamples(samples) }

    /// Runs the output handler with `level` on the callback thread, as a ``Kind/droppable`` callback, with no
    /// closure to allocate. Any thread; one lock. Returns false when it was dropped.
    @discardableResult
    package func postLevel(_ level: Float) -> Bool { lane.append(Entry(payload: .level(level), kind: .droppable)) }

    /// Whether ``droppableCapacity`` droppable callbacks wait (a droppable post now would be refused). Any thread.
    package var isFull: Bool { lane.waiting.droppable >= Self.droppableCapacity }

    /// Droppable and kept callbacks waiting or running now. Any thread.
    package var waiting: (droppable: Int, kept: Int) { lane.waiting }

    /// Holds back the callbacks not yet started until ``resume()`` (one resume per suspend). A callback already
    /// running finishes. Any thread.
    func suspend() { lane.suspend(by: 1) }

    func resume() { lane.suspend(by: -1) }

    /// Whether the caller runs on the callback thread (inside a callback).
    package var isCurrent: Bool { lane.isCurrent }

    /// Waits until everything posted so far has run. Not from the callback thread (returns at once there).
    package func drain(timeout: TimeInterval = 5) {
        guard !isCurrent else { return }
        let done = DispatchSemaphore(value: 0)
        post { done.signal() }
        _ = done.wait(timeout: .now() + timeout)
    }

    struct Entry {
        enum Payload {
            case body(@Sendable () -> Void)
            /// A pool buffer's first `count` samples, for the output handler.
            case samples(slot: Int, count: Int)
            case level(Float)
        }

        let payload: Payload
        let kind: Kind
    }

    /// The queue and its thread. The thread holds the lane, never the ``CallbackQueue`` (whose release ends it).
    /// It sleeps on the drain host's semaphore (a front end's event ring signals it without a lock); a post
    /// signals it only when it sleeps.
    private final class Lane: @unchecked Sendable { // everything under `lock`; `host` and `sleeping` are thread-safe
        let host = FrontEndDrainHost()
        private let lock = NSLock()
        /// The thread is about to wait (or waits) on the host's semaphore: the next post signals it. Set under
        /// the lock (so no post falls between the thread's last look and its wait); cleared by that post, or by
        /// the thread once awake.
        private let sleeping = Atomic<Bool>(false)
        private var entries: [Entry] = []
        private var head = 0
        private var droppable = 0
        private var kept = 0
        private var suspended = 0
        private var closed = false
        private var started = false
        private var thread: pthread_t?
        private var outputHandler: (@Sendable (Output) -> Void)?
        /// The chunk buffers of ``appendSamples(_:)`` (made as needed, kept for reuse) and those free now.
        private var slots: [UnsafeMutableBufferPointer<Int16>] = []
        private var freeSlots: [Int] = []

        deinit { slots.forEach { $0.deallocate() } }

        func setOutputHandler(_ handler: @escaping @Sendable (Output) -> Void) {
            lock.withLock { outputHandler = handler }
        }

        func append(_ entry: Entry) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            return appendLocked(entry)
        }

        func appendSamples(_ samples: UnsafeBufferPointer<Int16>) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            guard droppable < CallbackQueue.droppableCapacity else { return false }
            let slot: Int
            if let free = freeSlots.popLast() {
                slot = free
            } else { // warm-up: a new buffer (the bound on droppable entries bounds them too)
                if slots.isEmpty { // the first chunk: the arrays, and buffers for a backlog of `initialSlots`
                    slots.reserveCapacity(CallbackQueue.droppableCapacity)
                    freeSlots.reserveCapacity(CallbackQueue.droppableCapacity)
                    for _ in 0..<CallbackQueue.initialSlots { slots.append(.allocate(capacity: max(samples.count, 480))) }
                    freeSlots.append(contentsOf: (1..<CallbackQueue.initialSlots).reversed()) // popLast: 1 next
                    slot = 0
                } else {
                    slots.append(.allocate(capacity: max(samples.count, 480)))
                    slot = slots.count - 1
                }
            }
            if slots[slot].count < samples.count { // a chunk larger than any before
                slots[slot].deallocate()
                slots[slot] = .allocate(capacity: samples.count)
            }
            _ = slots[slot].initialize(fromContentsOf: samples)
            return appendLocked(Entry(payload: .samples(slot: slot, count: samples.count), kind: .droppable))
        }

        private func appendLocked(_ entry: Entry) -> Bool {
            switch entry.kind {
            case .droppable:
                guard droppable < CallbackQueue.droppableCapacity else { return false }
                droppable += 1
            case .kept:
                guard kept < CallbackQueue.keptCapacity else { return false }
                kept += 1
            case .terminal: break
            }
            entries.append(entry)
            startLocked()
            wake()
            return true
        }

        func startIfNeeded() { lock.withLock { startLocked() } }

        private func startLocked() {
            guard !started else { return }
            started = true
            let thread = Thread { [self] in run() }
            thread.name = "NeoNui.callbacks"
            thread.start()
        }

        /// Signals the thread if it sleeps. Under the lock.
        private func wake() {
            if sleeping.exchange(false, ordering: .acquiringAndReleasing) { host.signal() }
        }

        var waiting: (droppable: Int, kept: Int) { lock.withLock { (droppable, kept) } }

        func suspend(by change: Int) {
            lock.withLock {
                suspended += change
                wake()
            }
        }

        func close() {
            lock.withLock {
                closed = true
                host.signal()
            }
        }

        var isCurrent: Bool { lock.withLock { thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false } }

        /// The loop: take the next callback (if any and not held back), run a drain round of the host's front
        /// ends (after taking it: what the round posts goes after it, in post order; and a front end cancelled
        /// before the callback was posted has delivered its end before the callback runs), run the callback;
        /// with nothing to run, sleep on the host's semaphore.
        private func run() {
            lock.lock()
            thread = pthread_self()
            while true {
                guard head < entries.count, suspended == 0 else {
                    if closed && head == entries.count { break } // closed and empty
                    sleeping.store(true, ordering: .releasing)
                    lock.unlock()
                    host.waitForWork(milliseconds: 1000) // posts and the front ends signal; idle: no timeout
                    sleeping.store(false, ordering: .releasing)
                    host.runRounds()
                    lock.lock()
                    continue
                }
                let entry = entries[head]
                head += 1
                if head == entries.count || head >= 4096 { // compact: keep the array at about what waits
                    entries.removeFirst(head)
                    head = 0
                }
                let handler = outputHandler
                var samples: UnsafeBufferPointer<Int16>?
                if case .samples(let slot, let count) = entry.payload {
                    samples = UnsafeBufferPointer(rebasing: slots[slot][0..<count])
                }
                lock.unlock()
                host.runRounds()
                switch entry.payload {
                case .body(let body): body()
                case .samples: handler?(.samples(samples!))
                case .level(let level): handler?(.level(level))
                }
                lock.lock()
                if case .samples(let slot, _) = entry.payload { freeSlots.append(slot) }
                switch entry.kind {
                case .droppable: droppable -= 1
                case .kept: kept -= 1
                case .terminal: break
                }
            }
            thread = nil
            lock.unlock()
        }
    }
}
