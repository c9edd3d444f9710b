import CAudioShims
import COpus

extension Opus {
    /// Decodes Opus packets to 16-bit PCM at any Opus rate, and conceals lost packets (PLC or in-band FEC).
    ///
    /// Used by the tests and the command-line tools to check what the encoder produced. Lifecycle: create
    /// (allocates, may throw) → decode calls (real-time safe) → ``reset()`` → deinit. One thread at a time
    /// (the class owns the C handle; that invariant is why it is `@unchecked Sendable`).
    public final class Decoder: @unchecked Sendable {
        /// Output sample rate in Hz: 8000, 12000, 16000, 24000 or 48000, whatever rate the stream was encoded at.
        public let sampleRate: Int
        /// 1 or 2 (interleaved).
        public let channelCount: Int
        /// Samples per channel of the longest packet (120 ms): an output buffer of this many samples per
        /// channel holds any packet.
        public let maximumFrameLength: Int

        private let handle: OpaquePointer

        /// Creates a decoder. Allocates; not real-time safe; any thread.
        /// The corresponding C function is `opus_decoder_create`.
        /// - Throws: ``AudioFrontEndError/Code/unsupportedSampleRate`` or
        ///   ``AudioFrontEndError/Code/invalidConfiguration`` (channel count) naming the value.
        public init(sampleRate: Int = 16000, channelCount: Int = 1) throws {
            try Opus.checkSampleRate(sampleRate, for: "The Opus decoder")
            try Opus.checkChannelCount(channelCount, for: "The Opus decoder")
            var error: Int32 = OPUS_OK
            guard let handle = opus_decoder_create(Int32(sampleRate), Int32(channelCount), &error),
                  error == OPUS_OK else {
                throw AudioFrontEndError(.libraryFailure, "opus_decoder_create failed: \(Opus.errorDescription(error))",
                                         libraryStatus: error)
            }
            self.handle = handle
            self.sampleRate = sampleRate
            self.channelCount = channelCount
            self.maximumFrameLength = Opus.maximumPacketDuration48kHz * sampleRate / Opus.granuleRate
        }

        deinit { opus_decoder_destroy(handle) }

        /// Decodes one packet. Real-time safe; the decoder's thread.
        ///
        /// - Parameters:
        ///   - packet: one whole Opus packet.
        ///   - pcm: room for the packet's samples (interleaved); ``maximumFrameLength`` × ``channelCount`` always suffice.
        /// - Returns: samples per channel decoded, or a negative status (``StageStatus/outputTooSmall``, or
        ///   libopus's code, e.g. -4 for a malformed packet). The corresponding C function is `opus_decode`.
        public func decode(packet: UnsafeBufferPointer<UInt8>, into pcm: UnsafeMutableBufferPointer<Int16>) -> Int {
            guard let data = packet.baseAddress, packet.count > 0 else { return Int(OPUS_INVALID_PACKET) }
            return run(data, Int32(clamping: packet.count), pcm, capacity: pcm.count / channelCount, fec: 0)
        }

        /// Fills the gap of one lost packet with packet-loss concealment. Real-time safe.
        ///
        /// - Parameters:
        ///   - duration: samples per channel the lost packet held (a multiple of 2.5 ms), e.g. ``lastPacketDuration``.
        ///   - pcm: room for `duration` × ``channelCount`` samples.
        /// - Returns: samples per channel produced, or a negative status. The corresponding C function is
        ///   `opus_decode` with a null packet.
        public func concealLoss(duration: Int, into pcm: UnsafeMutableBufferPointer<Int16>) -> Int {
            guard duration > 0, pcm.count >= duration * channelCount else { return Int(StageStatus.outputTooSmall.code) }
            return run(nil, 0, pcm, capacity: duration, fec: 0)
        }

        /// Recovers a lost packet from the in-band FEC data that the packet after it carries. Real-time safe.
        ///
        /// Call it with the packet that follows the loss, then decode that same packet normally with
        /// ``decode(packet:into:)``. When `nextPacket` has no FEC data, this conceals the loss like
        /// ``concealLoss(duration:into:)``.
        /// - Parameters:
        ///   - nextPacket: the packet received after the lost one.
        ///   - duration: samples per channel the lost packet held.
        ///   - pcm: room for `duration` × ``channelCount`` samples.
        /// - Returns: samples per channel produced (`duration`), or a negative status.
        ///   The corresponding C function is `opus_decode` with `decode_fec` = 1.
        public func recoverLoss(from nextPacket: UnsafeBufferPointer<UInt8>, duration: Int,
                                into pcm: UnsafeMutableBufferPointer<Int16>) -> Int {
            guard let data = nextPacket.baseAddress, nextPacket.count > 0 else { return Int(OPUS_INVALID_PACKET) }
            guard duration > 0, pcm.count >= duration * channelCount else { return Int(StageStatus.outputTooSmall.code) }
            return run(data, Int32(clamping: nextPacket.count), pcm, capacity: duration, fec: 1)
        }

        private func run(_ data: UnsafePointer<UInt8>?, _ length: Int32, _ pcm: UnsafeMutableBufferPointer<Int16>,
                         capacity: Int, fec: Int32) -> Int {
            guard let output = pcm.baseAddress, capacity > 0 else { return Int(StageStatus.outputTooSmall.code) }
            let result = opus_decode(handle, data, length, output, Int32(clamping: capacity), fec)
            if result == OPUS_BUFFER_TOO_SMALL { return Int(StageStatus.outputTooSmall.code) }
            return Int(result)
        }

        /// Samples per channel of the last packet decoded or concealed. Real-time safe.
        /// The corresponding C request is `OPUS_GET_LAST_PACKET_DURATION`.
        public var lastPacketDuration: Int {
            var value: Int32 = 0
            _ = afe_opus_decoder_get_last_packet_duration(handle, &value)
            return Int(value)
        }

        /// The range decoder's final state after the last packet (compare with ``Encoder/finalRange``).
        /// Real-time safe. The corresponding C request is `OPUS_GET_FINAL_RANGE`.
        public var finalRange: UInt32 {
            var value: UInt32 = 0
            _ = afe_opus_decoder_get_final_range(handle, &value)
            return value
        }

        /// Forgets the decoding history, keeping the rate and channels. Real-time safe.
        /// The corresponding C request is `OPUS_RESET_STATE`.
        public func reset() {
            _ = afe_opus_decoder_reset(handle)
        }
    }
}
