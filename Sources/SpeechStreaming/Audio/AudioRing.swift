import Synchronization

/// A lock-free single-producer, single-consumer ring of audio records, from the caller's audio thread to
/// the network thread.
///
/// Design (the one SPSC ring of style.md): preallocated power-of-two storage; free-running write and read
/// indices, each written by one side only, on separate cache lines; the producer publishes with release
/// and reads the consumer's index with acquire, and vice versa. A record is a 16-byte header (payload
/// length, epoch, tag, 0; little-endian UInt32s) and the payload, copied in and out in at most two pieces
/// around the wrap. Records are what the service gets: PCM bytes, or one Opus packet each with its
/// duration (the tag), never a container: the network thread muxes Ogg itself.
///
/// Overrun policy: a record that does not fit is refused whole and counted in ``overruns``; nothing
/// already queued is overwritten. The epoch tags each record with the task it belongs to, so the
/// consumer can drop stale audio of an earlier task without touching the producer's index.
final class AudioRing: @unchecked Sendable { // SPSC: write() on one thread, the read side on another
    static let headerBytes = 16
    /// The tag bit that marks a task's last record: the network thread ends the task's audio after it.
    static let endsAudio: UInt32 = 1 << 31
    /// The tag bit of an Opus stream's last packet: its page carries the end-of-stream flag (and may trim).
    static let endsStream: UInt32 = 1 << 30
    /// The tag bits of an Opus packet's duration (48 kHz samples).
    static let durationMask: UInt32 = (1 << 30) - 1
    let capacity: Int
    private let mask: Int
    private let storage: UnsafeMutableRawPointer
    private let writeIndex = PaddedIndex()
    private let readIndex = PaddedIndex()
    /// Records refused because the ring was full.
    let overruns = Atomic<Int>(0)

    /// Allocates storage of at least `minimumCapacity` bytes, rounded up to a power of two.
    init(minimumCapacity: Int) {
        var capacity = 64
        while capacity < minimumCapacity { capacity <<= 1 }
        self.capacity = capacity
        mask = capacity - 1
        storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
    }

    deinit { storage.deallocate() }

    // MARK: Producer

    /// Queues `bytes` as one record, or refuses it whole when it does not fit.
    ///
    /// Producer thread only. Real-time safe: no allocation, no lock, no system call.
    /// - Returns: false (and counts an overrun) when the ring lacks room.
    func write(_ bytes: UnsafeRawBufferPointer, epoch: UInt32, tag: UInt32 = 0) -> Bool {
        let w = writeIndex.value.load(ordering: .relaxed)
        let r = readIndex.value.load(ordering: .acquiring)
        let needed = Self.headerBytes + bytes.count
        guard needed <= capacity - (w - r) else {
            overruns.wrappingAdd(1, ordering: .relaxed)
            return false
        }
        var header = (UInt32(truncatingIfNeeded: bytes.count).littleEndian, epoch.littleEndian, tag.littleEndian,
                      UInt32(0))
        withUnsafeBytes(of: &header) { copyIn($0, at: w) }
        copyIn(bytes, at: w + Self.headerBytes)
        writeIndex.value.store(w + needed, ordering: .releasing)
        return true
    }

    /// Bytes queued (headers included), as the producer sees it. Any thread; real-time safe.
    var queuedBytes: Int {
        writeIndex.value.load(ordering: .acquiring) - readIndex.value.load(ordering: .acquiring)
    }

    // MARK: Consumer

    /// The next record's payload length, epoch and tag, or nil when the ring is empty. Consumer thread only.
    func peek() -> (length: Int, epoch: UInt32, tag: UInt32)? {
        let r = readIndex.value.load(ordering: .relaxed)
        let w = writeIndex.value.load(ordering: .acquiring)
        guard w - r >= Self.headerBytes else { return nil }
        var header: (UInt32, UInt32, UInt32, UInt32) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &header) { copyOut(to: $0.baseAddress!, count: Self.headerBytes, at: r) }
        return (Int(UInt32(littleEndian: header.0)), UInt32(littleEndian: header.1), UInt32(littleEndian: header.2))
    }

    /// The next record's payload in place when it does not wrap around the end of the storage (nil when it
    /// does): valid until ``skip(length:)`` releases it. Consumer thread only.
    func contiguousPayload(length: Int) -> UnsafeRawBufferPointer? {
        let offset = (readIndex.value.load(ordering: .relaxed) + Self.headerBytes) & mask
        guard offset + length <= capacity else { return nil }
        return UnsafeRawBufferPointer(start: storage + offset, count: length)
    }

    /// Copies the next record's payload (of `length` bytes, from ``peek()``) to `destination` and
    /// releases it. Consumer thread only.
    func read(length: Int, into destination: UnsafeMutableRawPointer) {
        let r = readIndex.value.load(ordering: .relaxed)
        copyOut(to: destination, count: length, at: r + Self.headerBytes)
        readIndex.value.store(r + Self.headerBytes + length, ordering: .releasing)
    }

    /// Releases the next record without reading it. Consumer thread only.
    func skip(length: Int) {
        let r = readIndex.value.load(ordering: .relaxed)
        readIndex.value.store(r + Self.headerBytes + length, ordering: .releasing)
    }

    /// Releases everything queued so far. Consumer thread only.
    func discardAll() {
        readIndex.value.store(writeIndex.value.load(ordering: .acquiring), ordering: .releasing)
    }

    // MARK: Copy around the wrap

    private func copyIn(_ source: UnsafeRawBufferPointer, at index: Int) {
        guard let base = source.baseAddress, source.count > 0 else { return }
        let offset = index & mask
        let first = min(source.count, capacity - offset)
        (storage + offset).copyMemory(from: base, byteCount: first)
        if first < source.count { storage.copyMemory(from: base + first, byteCount: source.count - first) }
    }

    private func copyOut(to destination: UnsafeMutableRawPointer, count: Int, at index: Int) {
        guard count > 0 else { return }
        let offset = index & mask
        let first = min(count, capacity - offset)
        destination.copyMemory(from: storage + offset, byteCount: first)
        if first < count { (destination + first).copyMemory(from: storage, byteCount: count - first) }
    }
}

/// An atomic index alone on its cache line (the padding keeps the two indices of a ring apart).
final class PaddedIndex: Sendable {
    let value = Atomic<Int>(0)
    private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
}
