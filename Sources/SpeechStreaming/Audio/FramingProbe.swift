import OggMux

/// The client's audio framing without a socket: records into the ``AudioRing``, then the ``FrameBuilder``
/// (PCM frames, or Opus packets muxed into Ogg pages by libogg) and the ``ReplayBuffer``, trims and replays as a
/// session does. For the fuzz targets (Fuzz/) and their regression tests. Package access only. Any thread, one at
/// a time; not real-time safe.
package struct FramingProbe {
    private let ring: AudioRing
    private let builder: FrameBuilder
    private var replay: ReplayBuffer
    private let format: AudioFormat
    /// Frames taken so far and the bytes they held.
    package private(set) var frames = 0
    package private(set) var frameBytes = 0
    /// Audio bytes (PCM) or packet bytes (Opus) that went into frames.
    package private(set) var audioBytes = 0
    /// Every frame's bytes, concatenated (kept only with `keepsBytes`).
    package private(set) var sentBytes: [UInt8] = []
    private let keepsBytes: Bool

    package init(format: AudioFormat, frameMilliseconds: Int = 100, maxBytes: Int = 16 * 1024,
                 replayCapacityBytes: Int = 1 << 20, keepsBytes: Bool = true) {
        self.format = format
        self.keepsBytes = keepsBytes
        ring = AudioRing(minimumCapacity: 1 << 16)
        builder = FrameBuilder(format: format, frameBytes: max(2, frameMilliseconds * 32), frameMilliseconds: frameMilliseconds,
                               maxBytes: maxBytes, headroom: 16, ringCapacity: ring.capacity)
        builder.begin(opusHeader: OpusStreamHeader())
        replay = ReplayBuffer(format: format, sampleRate: 16000, capacityBytes: replayCapacityBytes)
        replay.reset(preSkip: 312)
    }

    /// One record from the caller (PCM bytes, or one Opus packet of `duration48k`); then every frame that is ready
    /// goes out and into the replay buffer. Returns false when the record was refused (too long).
    @discardableResult
    package mutating func append(_ bytes: UnsafeRawBufferPointer, duration48k: Int = 960, draining: Bool = false) -> Bool {
        guard bytes.count <= 4000 || format == .pcm, ring.write(bytes, epoch: 1, tag: UInt32(max(0, duration48k))) else {
            return false
        }
        while let record = ring.peek() {
            switch format {
            case .pcm:
                if !builder.canTake(pcm: record.length) { takeFrame() }
                builder.takePCM(from: ring, length: record.length)
                audioBytes += record.length
            case .opus where record.length == 0:
                ring.skip(length: 0)
            case .opus:
                if !builder.hasRoom(packet: record.length) { takeFrame() }
                var replay = self.replay
                builder.takeOpus(from: ring, length: record.length, advance48k: Int(record.tag), end: false) {
                    replay.append(packet: $0, granuleEnd: $1)
                }
                self.replay = replay
                audioBytes += record.length
            }
            while builder.isReady(draining: false) { takeFrame() }
        }
        if draining { while builder.isReady(draining: true) { takeFrame() } }
        return true
    }

    private mutating func takeFrame() {
        frames += 1
        frameBytes += builder.count
        if keepsBytes { sentBytes += builder.payload }
        if format == .pcm { replay.append(pcm: builder.payload) }
        builder.sent()
    }

    /// A sentence ended at `milliseconds`; then the kept audio is replayed as after a reconnection. Returns the
    /// replayed bytes.
    package mutating func trimAndReplay(throughMilliseconds milliseconds: Int) -> Int {
        trimAndReplayStream(throughMilliseconds: milliseconds).count
    }

    /// ``trimAndReplay(throughMilliseconds:)``, returning the replayed bytes themselves.
    package mutating func trimAndReplayStream(throughMilliseconds milliseconds: Int) -> [UInt8] {
        replay.trim(throughMilliseconds: milliseconds)
        if format == .opus { builder.discardFrame() }
        return replay.replayFrames(frameBytes: 3200, frameMilliseconds: 100, packer: builder.packer).flatMap(\.bytes)
    }
}
