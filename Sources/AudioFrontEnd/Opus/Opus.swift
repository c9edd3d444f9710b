import COpus

/// The Opus codec (RFC 6716) through libopus: ``Opus/Encoder``, ``Opus/Decoder`` and the settings they share.
///
/// A namespace, so that our types do not collide with libopus's C types `OpusEncoder` and `OpusDecoder`.
/// Ogg encapsulation (RFC 7845) is ``OggOpusWriter``.
public enum Opus {
    /// The sample rates libopus encodes from and decodes to.
    public static let sampleRates: [Int] = [8000, 12000, 16000, 24000, 48000]

    /// The rate Opus works at internally; Ogg granule positions and pre-skip count samples at this rate.
    public static let granuleRate = 48000

    /// Bytes of output space that always hold one packet: the size libopus's documentation recommends for
    /// `opus_encode`'s `max_data_bytes` (a 60 ms packet at 510 kb/s is 3 832 bytes at most).
    public static let maximumPacketBytes = 4000

    /// The longest packet duration Opus allows, 120 ms, in samples per channel at 48 kHz.
    public static let maximumPacketDuration48kHz = 5760

    /// The libopus version, e.g. "libopus 1.3.1". The corresponding C function is `opus_get_version_string`.
    public static var libraryVersion: String { String(cString: opus_get_version_string()) }

    /// libopus's sentence for one of its negative return codes. The corresponding C function is `opus_strerror`.
    public static func errorDescription(_ status: Int32) -> String { String(cString: opus_strerror(status)) }

    /// What the encoder optimises for. The corresponding C constants are `OPUS_APPLICATION_*`.
    public enum Application: Sendable, Hashable, CaseIterable {
        /// Speech intelligibility (SILK-weighted, with speech enhancements). `OPUS_APPLICATION_VOIP`.
        case voip
        /// Faithful reproduction of any signal. `OPUS_APPLICATION_AUDIO`.
        case audio
        /// CELT only, the lowest algorithmic delay; 10 ms frames or shorter work best.
        /// `OPUS_APPLICATION_RESTRICTED_LOWDELAY`.
        case restrictedLowDelay

        var cValue: Int32 {
            switch self {
            case .voip: OPUS_APPLICATION_VOIP
            case .audio: OPUS_APPLICATION_AUDIO
            case .restrictedLowDelay: OPUS_APPLICATION_RESTRICTED_LOWDELAY
            }
        }
    }

    /// A hint about the input that biases the encoder's mode decisions. `OPUS_SET_SIGNAL`.
    public enum Signal: Sendable, Hashable, CaseIterable {
        /// No hint: the encoder decides from the signal (`OPUS_AUTO`).
        case auto
        /// Speech: favours SILK and hybrid modes (`OPUS_SIGNAL_VOICE`).
        case voice
        /// Music: favours CELT (`OPUS_SIGNAL_MUSIC`).
        case music

        var cValue: Int32 {
            switch self {
            case .auto: OPUS_AUTO
            case .voice: OPUS_SIGNAL_VOICE
            case .music: OPUS_SIGNAL_MUSIC
            }
        }
    }

    /// How the encoder spends bits over time. `OPUS_SET_VBR` and `OPUS_SET_VBR_CONSTRAINT`.
    public enum BitrateMode: Sendable, Hashable, CaseIterable {
        /// Constant bitrate: every packet of a stream has the same size (hard CBR).
        case constant
        /// Variable bitrate whose short-term rate stays near the target, like CBR's buffering needs.
        case constrainedVariable
        /// Unconstrained variable bitrate: the best quality for a given average rate.
        case variable
    }

    /// The duration of one Opus packet. Raw value: samples per channel at 48 kHz.
    public enum FrameDuration: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case milliseconds2_5 = 120
        case milliseconds5 = 240
        case milliseconds10 = 480
        case milliseconds20 = 960
        case milliseconds40 = 1920
        case milliseconds60 = 2880

        /// The duration in milliseconds (2.5 for the shortest).
        public var milliseconds: Double { Double(rawValue) / 48 }

        /// Samples per channel in one packet at `sampleRate` (one of ``Opus/sampleRates``).
        public func samples(atSampleRate sampleRate: Int) -> Int { rawValue * sampleRate / Opus.granuleRate }

        /// The duration of `milliseconds` milliseconds.
        /// - Throws: ``AudioFrontEndError/Code/invalidFrameLength`` unless it is 2.5, 5, 10, 20, 40 or 60.
        public init(milliseconds: Double) throws {
            guard let duration = Self.allCases.first(where: { $0.milliseconds == milliseconds }) else {
                throw AudioFrontEndError(.invalidFrameLength,
                                         "an Opus frame lasts 2.5, 5, 10, 20, 40 or 60 ms, not \(milliseconds) ms")
            }
            self = duration
        }

        public var description: String {
            self == .milliseconds2_5 ? "2.5 ms" : "\(rawValue / 48) ms"
        }
    }

    /// Throws ``AudioFrontEndError/Code/unsupportedSampleRate`` unless `sampleRate` is one libopus takes.
    static func checkSampleRate(_ sampleRate: Int, for component: String) throws {
        guard sampleRates.contains(sampleRate) else {
            throw AudioFrontEndError(.unsupportedSampleRate,
                                     "\(component) works at 8000, 12000, 16000, 24000 or 48000 Hz, not \(sampleRate) Hz")
        }
    }

    /// Throws ``AudioFrontEndError/Code/invalidConfiguration`` unless there are 1 or 2 channels.
    static func checkChannelCount(_ channelCount: Int, for component: String) throws {
        guard channelCount == 1 || channelCount == 2 else {
            throw AudioFrontEndError(.invalidConfiguration,
                                     "\(component) takes 1 or 2 channels, not \(channelCount)")
        }
    }

    /// Throws ``AudioFrontEndError/Code/libraryFailure`` naming `call` when libopus returned an error.
    static func check(_ status: Int32, _ call: String) throws {
        guard status >= 0 else {
            throw AudioFrontEndError(.libraryFailure, "\(call) failed: \(errorDescription(status))",
                                     libraryStatus: status)
        }
    }

    /// The duration of `packet` in samples per channel at `sampleRate`, or a negative libopus status for a
    /// malformed packet. Real-time safe; any thread. The corresponding C function is `opus_packet_get_nb_samples`.
    public static func packetDuration(_ packet: UnsafeBufferPointer<UInt8>, sampleRate: Int = granuleRate) -> Int {
        guard let base = packet.baseAddress, packet.count > 0 else { return Int(OPUS_INVALID_PACKET) }
        return Int(opus_packet_get_nb_samples(base, Int32(packet.count), Int32(sampleRate)))
    }
}
