/// The client's audio framing without a socket: bytes into the ``FrameAssembler`` (PCM or Ogg pages), its frames
/// into the ``ReplayBuffer``, trims and replays as a session does. For the fuzz targets (Fuzz/) and their
/// regression tests. Package access only. Any thread, one at a time; not real-time safe.
package struct FramingProbe {
    private var assembler: FrameAssembler
    private var replay: ReplayBuffer
    /// Frames taken so far and the bytes they held.
    package private(set) var frames = 0
    package private(set) var frameBytes = 0

    package init(format: AudioFormat, frameMilliseconds: Int = 100, maxBytes: Int = 16 * 1024,
                 replayCapacityBytes: Int = 1 << 20) {
        assembler = FrameAssembler(framing: format == .pcm ? .pcm(frameBytes: max(2, frameMilliseconds * 32))
                                   : .ogg(frameMilliseconds: frameMilliseconds, maxBytes: maxBytes))
        replay = ReplayBuffer(format: format, sampleRate: 16000, capacityBytes: replayCapacityBytes)
    }

    /// Bytes from the caller (the ring); then every frame that is ready goes out and into the replay buffer.
    package mutating func append(_ bytes: UnsafeRawBufferPointer, draining: Bool = false) {
        assembler.append(bytes)
        while let frame = assembler.nextFrame(draining: draining) {
            frames += 1
            frameBytes += frame.bytes.count
            replay.append(frame)
        }
    }

    /// A sentence ended at `milliseconds`; then the kept audio is replayed as after a reconnection. Returns the
    /// replayed bytes.
    package mutating func trimAndReplay(throughMilliseconds milliseconds: Int) -> Int {
        replay.trim(throughMilliseconds: milliseconds)
        return replay.replayFrames(frameBytes: 3200, frameMilliseconds: 100).reduce(0) { $0 + $1.bytes.count }
    }
}
