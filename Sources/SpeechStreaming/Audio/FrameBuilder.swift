import OggMux

/// Builds the next binary WebSocket frame in place, in a buffer with libwebsockets' headroom (`LWS_PRE`) in front,
/// so `lws_write` sends it from there: PCM as frames of exactly ``frameBytes`` bytes; Opus by muxing each packet
/// from the ring into an Ogg page of its own (the task's ``OggOpusPacker``, libogg), pages grouped into a frame
/// until it holds ``frameMilliseconds`` of audio or ``maxBytes``.
///
/// Copies per frame on this side (see the README's "One path from push to socket"): PCM ring → frame (straight in
/// when the record fits, else through the spill buffer); Opus ring → libogg (in place unless the record wraps
/// around the ring's end) → frame (header and body from libogg's buffers). Network thread only; allocates only at
/// creation and at a task's start (its packer).
final class FrameBuilder {
    let format: AudioFormat
    /// PCM: the size of every frame but the last.
    let frameBytes: Int
    /// Opus: a frame closes once it holds this much audio, or ``maxBytes``.
    let frameMilliseconds: Int
    let maxBytes: Int
    private let headroom: Int
    private let capacity: Int
    private let storage: UnsafeMutableRawPointer
    /// PCM bytes taken from the ring that did not fit in the frame; Opus: a packet that wrapped around the ring.
    private let spill: UnsafeMutableRawPointer
    private let spillCapacity: Int
    private var spillStart = 0
    private var spillCount = 0
    /// Bytes in the frame.
    private(set) var count = 0
    /// Opus: 48 kHz samples of audio in the frame.
    private(set) var duration48k = 0
    /// Opus: the task's stream (nil before a task starts).
    private(set) var packer: OggOpusPacker?

    /// The largest page a packet of at most 4000 bytes makes: 27-byte header, 16 lacing values, the body.
    static let maximumPacketPageBytes = 27 + 16 + 4000

    init(format: AudioFormat, frameBytes: Int, frameMilliseconds: Int, maxBytes: Int, headroom: Int, ringCapacity: Int) {
        self.format = format
        self.frameBytes = frameBytes
        self.frameMilliseconds = frameMilliseconds
        self.maxBytes = maxBytes
        self.headroom = headroom
        capacity = format == .pcm ? frameBytes : maxBytes + Self.maximumPacketPageBytes + 2 * 1024
        storage = .allocate(byteCount: headroom + capacity, alignment: 16)
        spillCapacity = ringCapacity
        spill = .allocate(byteCount: ringCapacity, alignment: 16)
    }

    deinit {
        storage.deallocate()
        spill.deallocate()
    }

    /// The frame's bytes, `LWS_PRE` bytes of headroom before them. Valid until the next change.
    var payload: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage + headroom, count: count) }

    /// Audio taken from the ring that has not gone out yet.
    var pendingBytes: Int { count + spillCount }

    /// Whether the frame should go out now (with `draining`, whatever it holds does).
    func isReady(draining: Bool) -> Bool {
        if draining { return count > 0 }
        switch format {
        case .pcm: return count >= frameBytes
        case .opus: return duration48k >= frameMilliseconds * 48 || count >= maxBytes
        }
    }

    /// The frame's audio in ms (the pacer's measure).
    func milliseconds(sampleRate: Int) -> Double {
        format == .pcm ? Double(count / 2) * 1000 / Double(sampleRate) : Double(duration48k) / 48
    }

    // MARK: Task

    /// A new task: forgets everything pending; for Opus starts a new Ogg stream (allocates) whose OpusHead and
    /// OpusTags pages open the first frame.
    func begin(opusHeader: OpusStreamHeader) {
        reset()
        guard format == .opus else { return }
        packer = OggOpusPacker(serialNumber: UInt32.random(in: 0...UInt32.max),
                               head: OggOpusHeaderPackets.identification(channelCount: 1, preSkip: opusHeader.preSkip,
                                                                         inputSampleRate: opusHeader.inputSampleRate),
                               tags: OggOpusHeaderPackets.comments(vendor: opusHeader.vendor, comments: []))
        packer?.start { copyIn($0) }
    }

    /// Forgets the frame and the spill.
    func reset() {
        count = 0
        duration48k = 0
        spillStart = 0
        spillCount = 0
    }

    /// The frame went out: starts the next one, with what the spill holds first.
    func sent() {
        count = 0
        duration48k = 0
        refill()
    }

    // MARK: PCM

    /// Whether a PCM record of `length` bytes can be taken now (the spill has room for what does not fit).
    func canTake(pcm length: Int) -> Bool {
        (spillCount == 0 && count + length <= frameBytes) || spillCount + length <= spillCapacity
    }

    /// Takes the ring's next record (PCM, `length` bytes; check ``canTake(pcm:)``) into the frame.
    func takePCM(from ring: AudioRing, length: Int) {
        if spillCount == 0 && count + length <= frameBytes {
            ring.read(length: length, into: storage + headroom + count)
            count += length
            return
        }
        if spillStart + spillCount + length > spillCapacity {
            spill.copyMemory(from: spill + spillStart, byteCount: spillCount)
            spillStart = 0
        }
        ring.read(length: length, into: spill + spillStart + spillCount)
        spillCount += length
        refill()
    }

    private func refill() {
        let n = min(spillCount, frameBytes - count)
        guard format == .pcm, n > 0 else { return }
        (storage + headroom + count).copyMemory(from: spill + spillStart, byteCount: n)
        count += n
        spillStart += n
        spillCount -= n
        if spillCount == 0 { spillStart = 0 }
    }

    // MARK: Opus

    /// Whether the frame has room for the page of a packet of `length` bytes.
    func hasRoom(packet length: Int) -> Bool { capacity - count >= 27 + length / 255 + 1 + length }

    /// Muxes the ring's next record (one Opus packet of `length` bytes covering `advance48k` samples; check
    /// ``hasRoom(packet:)``) into a page of its own at the end of the frame, releases it from the ring, and hands
    /// the packet to `keep` (the replay buffer) with the granule position it ends at. `end` sets the end-of-stream
    /// flag. Real-time safe: no allocation.
    func takeOpus(from ring: AudioRing, length: Int, advance48k: Int, end: Bool,
                  keep: (UnsafeRawBufferPointer, Int64) -> Void) {
        guard let packer, length <= spillCapacity else { return ring.skip(length: length) }
        let packet: UnsafeRawBufferPointer
        if let inPlace = ring.contiguousPayload(length: length) {
            packet = inPlace
        } else {
            ring.read(length: length, into: spill)
            packet = UnsafeRawBufferPointer(start: spill, count: length)
        }
        packer.append(packet: packet, granuleAdvance: Int64(advance48k), end: end, flush: true, parts: { header, body in
            copyIn(header)
            copyIn(body)
        })
        duration48k += advance48k
        keep(packet, packer.granulePosition)
        if packet.baseAddress != UnsafeRawPointer(spill) { ring.skip(length: length) }
    }

    /// Drops the frame being built (its packets are in the replay buffer, which re-muxes them after a
    /// reconnection in a stream of their own).
    func discardFrame() {
        count = 0
        duration48k = 0
    }

    private func copyIn(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0, count + bytes.count <= capacity else { return }
        (storage + headroom + count).copyMemory(from: base, byteCount: bytes.count)
        count += bytes.count
    }
}

/// What the OpusHead of the Ogg stream a session sends records: what the packets passed to
/// ``SpeechStreamingSession/send(opusPacket:durationSamples48k:)`` were encoded from.
public struct OpusStreamHeader: Sendable, Equatable {
    /// Samples at 48 kHz a decoder drops at the start: the encoder's lookahead (``312`` for libopus at 16 kHz),
    /// plus any start-up delay of what fed the encoder. 0...65535.
    public var preSkip: Int
    /// The rate the audio was encoded from (informational in Ogg Opus), Hz.
    public var inputSampleRate: Int
    /// The OpusTags vendor string.
    public var vendor: String

    public init(preSkip: Int = 312, inputSampleRate: Int = 16000, vendor: String = "AudioFrontEnd SpeechStreaming") {
        self.preSkip = min(max(0, preSkip), 65535)
        self.inputSampleRate = max(1, inputSampleRate)
        self.vendor = vendor
    }
}
