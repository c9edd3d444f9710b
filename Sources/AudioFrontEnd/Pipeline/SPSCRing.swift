import Synchronization

/// A lock-free single-producer single-consumer ring of trivially copyable elements.
///
/// Design (the one ring of the project): preallocated power-of-two storage; free-running 64-bit indices (never
/// wrapped, so `write - read` is the fill); the producer publishes with a release store of `writeIndex` and the
/// consumer reads it with acquire, and symmetrically for `readIndex`; the two indices live on separate cache
/// lines. It never blocks. Overrun policy: the producer is told how much fit (``write(_:)`` returns the count
/// accepted) and nothing unread is ever overwritten.
///
/// Threading: exactly one producer thread calls the `write` family, exactly one consumer thread calls the
/// `read` family; the fill queries may be called from either. All calls are real-time safe.
public final class SPSCRing<Element: BitwiseCopyable>: @unchecked Sendable {
    // Invariant for @unchecked Sendable: `storage` is written only by the producer in [read+capacity, write) ...
    // precisely, the producer writes only free slots and the consumer reads only published slots; the atomics
    // order those accesses.
    private let storage: UnsafeMutablePointer<Element>
    private let mask: Int
    /// Number of elements the ring holds.
    public let capacity: Int

    private let writeIndex = Atomic<Int>(0)
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    private let readIndex = Atomic<Int>(0)

    /// Creates a ring that holds at least `minimumCapacity` elements (rounded up to a power of two). Allocates.
    public init(minimumCapacity: Int) {
        var capacity = 1
        while capacity < max(1, minimumCapacity) { capacity <<= 1 }
        self.capacity = capacity
        self.mask = capacity - 1
        self.storage = .allocate(capacity: capacity)
        _ = padding
    }

    deinit { storage.deallocate() }

    /// Elements ready to read. Either thread.
    public var count: Int {
        writeIndex.load(ordering: .acquiring) - readIndex.load(ordering: .acquiring)
    }

    /// Free slots. Either thread.
    public var freeCount: Int { capacity - count }

    /// Total elements ever written (the producer's free-running index). Either thread.
    public var totalWritten: Int { writeIndex.load(ordering: .acquiring) }

    /// Total elements ever read. Either thread.
    public var totalRead: Int { readIndex.load(ordering: .acquiring) }

    // MARK: Producer

    /// Writes as many of `elements` as fit, in order, and returns how many. Producer thread; real-time safe.
    @discardableResult
    public func write(_ elements: UnsafeBufferPointer<Element>) -> Int {
        guard let source = elements.baseAddress, !elements.isEmpty else { return 0 }
        let write = writeIndex.load(ordering: .relaxed)
        let read = readIndex.load(ordering: .acquiring)
        let n = min(elements.count, capacity - (write - read))
        guard n > 0 else { return 0 }
        let start = write & mask
        let first = min(n, capacity - start)
        (storage + start).update(from: source, count: first)
        if n > first { storage.update(from: source + first, count: n - first) }
        writeIndex.store(write + n, ordering: .releasing)
        return n
    }

    /// Writes one element if there is room. Producer thread; real-time safe.
    @discardableResult
    public func write(_ element: Element) -> Bool {
        let write = writeIndex.load(ordering: .relaxed)
        let read = readIndex.load(ordering: .acquiring)
        guard write - read < capacity else { return false }
        (storage + (write & mask)).initialize(to: element)
        writeIndex.store(write + 1, ordering: .releasing)
        return true
    }

    // MARK: Consumer

    /// Reads up to `destination.count` elements and returns how many. Consumer thread; real-time safe.
    @discardableResult
    public func read(into destination: UnsafeMutableBufferPointer<Element>) -> Int {
        let n = peek(into: destination)
        if n > 0 { readIndex.store(readIndex.load(ordering: .relaxed) + n, ordering: .releasing) }
        return n
    }

    /// Reads one element, or nil when empty. Consumer thread; real-time safe.
    public func read() -> Element? {
        let read = readIndex.load(ordering: .relaxed)
        guard writeIndex.load(ordering: .acquiring) - read > 0 else { return nil }
        let element = storage[read & mask]
        readIndex.store(read + 1, ordering: .releasing)
        return element
    }

    /// Copies up to `destination.count` elements without consuming them. Consumer thread; real-time safe.
    @discardableResult
    public func peek(into destination: UnsafeMutableBufferPointer<Element>) -> Int {
        guard let target = destination.baseAddress, !destination.isEmpty else { return 0 }
        let read = readIndex.load(ordering: .relaxed)
        let write = writeIndex.load(ordering: .acquiring)
        let n = min(destination.count, write - read)
        guard n > 0 else { return 0 }
        let start = read & mask
        let first = min(n, capacity - start)
        target.update(from: storage + start, count: first)
        if n > first { (target + first).update(from: storage, count: n - first) }
        return n
    }

    /// Drops up to `n` readable elements and returns how many. Consumer thread; real-time safe.
    @discardableResult
    public func discard(_ n: Int) -> Int {
        let read = readIndex.load(ordering: .relaxed)
        let dropped = min(max(0, n), writeIndex.load(ordering: .acquiring) - read)
        if dropped > 0 { readIndex.store(read + dropped, ordering: .releasing) }
        return dropped
    }
}
