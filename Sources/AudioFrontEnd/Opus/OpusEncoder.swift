import CAudioShims
import COpus

extension Opus {
    /// Encodes 16-bit PCM into Opus packets, one packet per call, with libopus.
    ///
    /// Lifecycle: create with a ``Configuration`` (allocates, may throw) → ``encode(frame:into:)`` per packet
    /// (real-time safe) → ``reset()`` → deinit. The encoder is not thread-safe: one thread at a time may call
    /// it (the class owns the C handle; that invariant is why it is `@unchecked Sendable`).
    ///
    /// The decoded signal lags the input by ``lookahead`` samples. Ogg Opus files record it as the pre-skip
    /// (``preSkip``, at 48 kHz) so that players drop it.
    public final class Encoder: @unchecked Sendable {
        /// The settings the encoder was created with.
        public let configuration: Configuration
        /// Samples per channel each ``encode(frame:into:)`` call takes (the packet duration at the input rate).
        public let frameLength: Int
        /// The encoder's delay in samples per channel at the input rate: decoded sample `n + lookahead`
        /// corresponds to input sample `n`. The corresponding C request is `OPUS_GET_LOOKAHEAD`.
        public let lookahead: Int

        private let handle: OpaquePointer

        /// Creates and configures an encoder. Allocates; not real-time safe; any thread.
        ///
        /// The corresponding C functions are `opus_encoder_create` and `opus_encoder_ctl`.
        /// - Throws: ``AudioFrontEndError`` (``AudioFrontEndError/Code/unsupportedSampleRate``,
        ///   ``AudioFrontEndError/Code/invalidConfiguration`` naming the value) when a setting is out of range,
        ///   ``AudioFrontEndError/Code/libraryFailure`` when libopus refuses one.
        public init(configuration: Configuration = Configuration()) throws {
            try configuration.validate()
            var error: Int32 = OPUS_OK
            guard let handle = opus_encoder_create(Int32(configuration.sampleRate), Int32(configuration.channelCount),
                                                   configuration.application.cValue, &error), error == OPUS_OK else {
                throw AudioFrontEndError(.libraryFailure, "opus_encoder_create failed: \(Opus.errorDescription(error))",
                                         libraryStatus: error)
            }
            self.handle = handle
            self.configuration = configuration
            self.frameLength = configuration.frameLength
            do {
                try Self.apply(configuration, to: handle)
                var lookahead: Int32 = 0
                try Opus.check(afe_opus_get_lookahead(handle, &lookahead), "OPUS_GET_LOOKAHEAD")
                self.lookahead = Int(lookahead)
            } catch {
                opus_encoder_destroy(handle)
                throw error
            }
        }

        deinit { opus_encoder_destroy(handle) }

        private static func apply(_ c: Configuration, to handle: OpaquePointer) throws {
            try Opus.check(afe_opus_set_bitrate(handle, Int32(c.bitrate)), "OPUS_SET_BITRATE(\(c.bitrate))")
            try Opus.check(afe_opus_set_complexity(handle, Int32(c.complexity)), "OPUS_SET_COMPLEXITY(\(c.complexity))")
            try Opus.check(afe_opus_set_vbr(handle, c.bitrateMode == .constant ? 0 : 1), "OPUS_SET_VBR")
            try Opus.check(afe_opus_set_vbr_constraint(handle, c.bitrateMode == .constrainedVariable ? 1 : 0),
                           "OPUS_SET_VBR_CONSTRAINT")
            try Opus.check(afe_opus_set_dtx(handle, c.discontinuousTransmission ? 1 : 0), "OPUS_SET_DTX")
            try Opus.check(afe_opus_set_inband_fec(handle, c.inbandFEC ? 1 : 0), "OPUS_SET_INBAND_FEC")
            try Opus.check(afe_opus_set_packet_loss_perc(handle, Int32(c.expectedPacketLossPercent)),
                           "OPUS_SET_PACKET_LOSS_PERC(\(c.expectedPacketLossPercent))")
            try Opus.check(afe_opus_set_signal(handle, c.signal.cValue), "OPUS_SET_SIGNAL")
        }

        /// The input sample rate in Hz.
        public var sampleRate: Int { configuration.sampleRate }
        /// 1 or 2.
        public var channelCount: Int { configuration.channelCount }

        /// The ``lookahead`` in samples at 48 kHz: the pre-skip an Ogg Opus header records (RFC 7845 §4.2).
        public var preSkip: Int { lookahead * Opus.granuleRate / configuration.sampleRate }

        /// Encodes one packet. Real-time safe (no allocation, no locks); the encoder's thread.
        ///
        /// - Parameters:
        ///   - frame: exactly ``frameLength`` × ``channelCount`` samples (interleaved when stereo).
        ///   - packet: where the packet goes; ``Opus/maximumPacketBytes`` always suffice. A smaller buffer caps
        ///     the packet size (and so the bitrate) of this packet.
        /// - Returns: the packet's length in bytes (1 or 2 bytes in DTX silence: such a packet need not be
        ///   sent), or a negative status: ``StageStatus/wrongFrameLength`` when `frame` has another length,
        ///   ``StageStatus/outputTooSmall`` when `packet` cannot hold the packet, else libopus's error code.
        ///   The corresponding C function is `opus_encode`.
        public func encode(frame: UnsafeBufferPointer<Int16>, into packet: UnsafeMutableBufferPointer<UInt8>) -> Int {
            guard frame.count == frameLength * configuration.channelCount, let input = frame.baseAddress else {
                return Int(StageStatus.wrongFrameLength.code)
            }
            guard let output = packet.baseAddress, packet.count > 0 else { return Int(StageStatus.outputTooSmall.code) }
            let capacity = Int32(clamping: packet.count)
            let result = opus_encode(handle, input, Int32(frameLength), output, capacity)
            if result == OPUS_BUFFER_TOO_SMALL { return Int(StageStatus.outputTooSmall.code) }
            return Int(result)
        }

        /// The range coder's final state after the last packet: equal to the decoder's ``Decoder/finalRange``
        /// after decoding that packet when both agree bit for bit. Real-time safe.
        /// The corresponding C request is `OPUS_GET_FINAL_RANGE`.
        public var finalRange: UInt32 {
            var value: UInt32 = 0
            _ = afe_opus_get_final_range(handle, &value)
            return value
        }

        /// Whether the last packet was a DTX (silence) packet. Real-time safe.
        /// The corresponding C request is `OPUS_GET_IN_DTX`.
        public var isInDTX: Bool {
            var value: Int32 = 0
            _ = afe_opus_get_in_dtx(handle, &value)
            return value != 0
        }

        /// Forgets the signal history (as at creation), keeping the configuration. Real-time safe.
        /// The corresponding C request is `OPUS_RESET_STATE`.
        public func reset() {
            _ = afe_opus_encoder_reset(handle)
        }
    }
}
