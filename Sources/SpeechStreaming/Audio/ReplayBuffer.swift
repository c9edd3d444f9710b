import COpus
import OggMux

/// The audio sent in the current task since the last sentence end, bounded, for re-sending after a
/// reconnection so that no sentence is lost.
///
/// Positions are in ms of task audio. PCM is kept as bytes; Opus as the packets themselves (with the granule
/// position each ends at), never as pages: on replay they are muxed again by the task's ``OggOpusPacker``, from
/// page sequence 0 with fresh header pages and the kept granule positions (the first audio page marks a start
/// offset, as RFC 7845 §4.5 allows), so the new connection receives a valid Ogg stream with no page re-parsed
/// and no CRC recomputed by hand. When more than the capacity accumulates without a sentence end, the oldest
/// audio is dropped and counted in ``droppedBytes``.
///
/// Storage is one byte ring preallocated at creation; ``append(pcm:)`` and ``append(packet:granuleEnd:)`` copy
/// into it and never allocate (the steady state); ``replayFrames(frameBytes:frameMilliseconds:packer:)`` (after a
/// reconnection) does. Network thread only.
struct ReplayBuffer {
    let format: AudioFormat
    let sampleRate: Int
    let capacityBytes: Int
    private(set) var droppedBytes = 0
    private var queue: ByteQueue
    /// PCM: task-audio byte position of the oldest kept byte.
    private var pcmStartByte = 0
    /// Opus: the pre-skip of the task's stream (48 kHz), to turn granule positions into ms.
    private var preSkip = 0
    /// Opus: end of the last packet dropped or trimmed, ms (where the kept audio starts when none is kept).
    private var trimmedEndMilliseconds = 0
    /// Opus: bytes of kept packets (headers not counted).
    private var packetBytes = 0

    /// Opus record: payload length, granule position at its end (Int64), then the packet.
    private static let recordHeader = 16

    init(format: AudioFormat, sampleRate: Int, capacityBytes: Int) {
        self.format = format
        self.sampleRate = sampleRate
        self.capacityBytes = capacityBytes
        // Opus: each packet's record header takes queue space too; room for one 16-byte header per 16 bytes of
        // packet keeps the capacity in packet bytes for any packet of 16 bytes or more (smaller ones, as in
        // DTX, are bounded by the queue instead: the oldest are dropped and counted the same way).
        queue = ByteQueue(capacity: format == .opus ? 2 * max(1, capacityBytes) + Self.recordHeader : max(1, capacityBytes))
    }

    /// Where the kept audio starts, in ms of task audio (the end of what was trimmed).
    var startMilliseconds: Int {
        switch format {
        case .pcm: milliseconds(ofByte: pcmStartByte)
        case .opus: trimmedEndMilliseconds
        }
    }

    /// Bytes of audio kept.
    var keptBytes: Int { format == .pcm ? queue.count : packetBytes }

    /// Records PCM that went out; returns the bytes of old audio this dropped to stay within capacity.
    /// Real-time safe (no allocation).
    @discardableResult
    mutating func append(pcm bytes: UnsafeRawBufferPointer) -> Int {
        guard !bytes.isEmpty else { return 0 }
        let excess = max(0, queue.count + bytes.count - capacityBytes)
        let drop = min(queue.count, (excess + 1) & ~1)
        dropPCM(drop)
        droppedBytes += drop
        let kept = min(bytes.count, capacityBytes - queue.count)
        if kept < bytes.count { // larger than the whole capacity: only its end is kept
            droppedBytes += bytes.count - kept
            pcmStartByte += bytes.count - kept
        }
        queue.append(UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - kept)...]))
        return drop + bytes.count - kept
    }

    /// Records one Opus packet muxed into the task's stream, ending at granule position `granuleEnd`; returns
    /// the bytes of old packets this dropped to stay within capacity. Real-time safe (no allocation).
    @discardableResult
    mutating func append(packet: UnsafeRawBufferPointer, granuleEnd: Int64) -> Int {
        guard packet.count <= capacityBytes else {
            droppedBytes += packet.count
            return packet.count
        }
        var dropped = 0
        while packetBytes + packet.count > capacityBytes || queue.count + Self.recordHeader + packet.count > queue.capacity,
              let first = firstPacket() {
            dropFirstPacket(first)
            trimmedEndMilliseconds = milliseconds(ofGranule: first.granuleEnd)
            dropped += first.length
        }
        droppedBytes += dropped
        var header = (UInt64(packet.count).littleEndian, UInt64(bitPattern: granuleEnd).littleEndian)
        withUnsafeBytes(of: &header) { queue.append($0) }
        queue.append(packet)
        packetBytes += packet.count
        return dropped
    }

    /// Forgets the audio up to `milliseconds` of task audio (a sentence ended there).
    mutating func trim(throughMilliseconds milliseconds: Int) {
        switch format {
        case .pcm:
            let target = byte(ofMilliseconds: milliseconds)
            dropPCM(max(0, min(target - pcmStartByte, queue.count)))
        case .opus:
            while let first = firstPacket(), self.milliseconds(ofGranule: first.granuleEnd) <= milliseconds {
                dropFirstPacket(first)
                trimmedEndMilliseconds = self.milliseconds(ofGranule: first.granuleEnd)
            }
        }
    }

    /// The kept audio as binary frames for a new task, each with the ms of audio it holds: PCM in `frameBytes`
    /// pieces; Opus muxed again by `packer` (restarted: header pages, then the kept packets) into frames of at
    /// least `frameMilliseconds`. Without a packer (the fuzz probe) Opus frames hold the bare packets. Allocates.
    func replayFrames(frameBytes: Int, frameMilliseconds: Int,
                      packer: OggOpusPacker? = nil) -> [(bytes: [UInt8], milliseconds: Int)] {
        let all = queue.copyAll()
        switch format {
        case .pcm:
            return stride(from: 0, to: all.count, by: max(1, frameBytes)).map {
                let end = min($0 + max(1, frameBytes), all.count)
                return (Array(all[$0..<end]), milliseconds(ofByte: end - $0))
            }
        case .opus:
            var packets: [(bytes: ArraySlice<UInt8>, granuleEnd: Int64)] = []
            var offset = 0
            while offset + Self.recordHeader <= all.count {
                let length = Int(truncatingIfNeeded: Self.load(all, offset)), granule = Int64(bitPattern: Self.load(all, offset + 8))
                guard length >= 0, length <= all.count - offset - Self.recordHeader else { break } // never: append fits whole records
                packets.append((all[(offset + Self.recordHeader)..<(offset + Self.recordHeader + length)], granule))
                offset += Self.recordHeader + length
            }
            guard let first = packets.first else { return [] }
            var frames: [(bytes: [UInt8], milliseconds: Int)] = []
            var current: [UInt8] = []
            let sink: OggOpusPacker.PageSink = { current += $0 }
            var previous = first.granuleEnd - Int64(Self.duration48k(first.bytes))
            packer?.start(atGranule: previous, into: sink)
            var frameStart = startMilliseconds
            for packet in packets {
                if let packer {
                    packet.bytes.withUnsafeBytes {
                        packer.append(packet: $0, granuleAdvance: packet.granuleEnd - previous, flush: true, into: sink)
                    }
                } else {
                    current += packet.bytes
                }
                previous = packet.granuleEnd
                let end = milliseconds(ofGranule: packet.granuleEnd)
                if end - frameStart >= frameMilliseconds {
                    frames.append((current, end - frameStart))
                    current = []
                    frameStart = end
                }
            }
            if !current.isEmpty { frames.append((current, max(0, milliseconds(ofGranule: previous) - frameStart))) }
            return frames
        }
    }

    /// Forgets everything (a new task whose Opus stream has pre-skip `preSkip`).
    mutating func reset(preSkip: Int = 0) {
        queue.removeAll()
        pcmStartByte = 0
        packetBytes = 0
        trimmedEndMilliseconds = 0
        droppedBytes = 0
        self.preSkip = preSkip
    }

    // MARK: Records

    private func firstPacket() -> (length: Int, granuleEnd: Int64)? {
        guard format == .opus, queue.count >= Self.recordHeader else { return nil }
        var header: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &header) { queue.peek(into: $0) }
        return (Int(UInt64(littleEndian: header.0)), Int64(bitPattern: UInt64(littleEndian: header.1)))
    }

    private mutating func dropFirstPacket(_ first: (length: Int, granuleEnd: Int64)) {
        queue.drop(Self.recordHeader + first.length)
        packetBytes -= first.length
    }

    private mutating func dropPCM(_ count: Int) {
        guard count > 0 else { return }
        queue.drop(count)
        pcmStartByte += count
    }

    private static func load(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in (0..<8).reversed() { value = value << 8 | UInt64(bytes[offset + i]) }
        return value
    }

    /// 48 kHz samples of an Opus packet, from its table-of-contents byte (RFC 6716 §3.1); 0 when malformed.
    /// Real-time safe. The corresponding C function is `opus_packet_get_nb_samples`.
    static func duration48k(_ packet: UnsafeRawBufferPointer) -> Int {
        guard let base = packet.baseAddress, !packet.isEmpty else { return 0 }
        return max(0, Int(opus_packet_get_nb_samples(base.assumingMemoryBound(to: UInt8.self), Int32(packet.count), 48000)))
    }

    static func duration48k(_ packet: ArraySlice<UInt8>) -> Int { packet.withUnsafeBytes { duration48k($0) } }

    private func milliseconds(ofGranule granule: Int64) -> Int { max(0, Int(granule) - preSkip) / 48 }
    private func milliseconds(ofByte byte: Int) -> Int { (byte / 2) * 1000 / sampleRate }
    private func byte(ofMilliseconds ms: Int) -> Int { (ms * sampleRate / 1000) * 2 }
}

/// A FIFO of bytes in one preallocated circular buffer. Single thread; append/drop/peek never allocate.
struct ByteQueue {
    private let storage: UnsafeMutableRawBufferPointer
    private let owner: Owner
    private var head = 0
    private(set) var count = 0
    var capacity: Int { storage.count }

    private final class Owner {
        let storage: UnsafeMutableRawBufferPointer
        init(_ storage: UnsafeMutableRawBufferPointer) { self.storage = storage }
        deinit { storage.deallocate() }
    }

    init(capacity: Int) {
        storage = .allocate(byteCount: capacity, alignment: 16)
        owner = Owner(storage)
    }

    /// Appends `bytes`; the caller made room (bytes beyond the capacity are not kept).
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        let n = min(bytes.count, capacity - count)
        guard n > 0, let source = bytes.baseAddress, let base = storage.baseAddress else { return }
        let tail = (head + count) % capacity
        let first = min(n, capacity - tail)
        (base + tail).copyMemory(from: source, byteCount: first)
        if first < n { base.copyMemory(from: source + first, byteCount: n - first) }
        count += n
    }

    /// Copies the oldest `destination.count` bytes without removing them.
    func peek(into destination: UnsafeMutableRawBufferPointer) {
        let n = min(destination.count, count)
        guard n > 0, let target = destination.baseAddress, let base = storage.baseAddress else { return }
        let first = min(n, capacity - head)
        target.copyMemory(from: base + head, byteCount: first)
        if first < n { (target + first).copyMemory(from: base, byteCount: n - first) }
    }

    mutating func drop(_ n: Int) {
        let n = min(n, count)
        head = (head + n) % capacity
        count -= n
    }

    mutating func removeAll() {
        head = 0
        count = 0
    }

    /// Everything queued, as an array (allocates).
    func copyAll() -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            peek(into: UnsafeMutableRawBufferPointer(buffer))
            initialized = count
        }
    }
}
