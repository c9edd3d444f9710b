/// Sample-rate facts shared by the stages.
public enum SampleRates {
    /// The rates webrtc-audio-processing runs at natively.
    public static let webRTCNative: Set<Int> = [8000, 16000, 32000, 48000]
    /// The range of rates the resamplers and file I/O accept.
    public static let supported: ClosedRange<Int> = 8000...48000

    /// Samples in one 10 ms frame at `sampleRate`, or nil when 10 ms is not a whole number of samples.
    public static func samplesPer10ms(_ sampleRate: Int) -> Int? {
        sampleRate % 100 == 0 ? sampleRate / 100 : nil
    }

    /// Samples in 10 ms at `sampleRate`, throwing ``AudioFrontEndError/Code/unsupportedSampleRate`` otherwise.
    static func frameLength(_ sampleRate: Int, for component: String) throws -> Int {
        guard supported.contains(sampleRate), let length = samplesPer10ms(sampleRate) else {
            throw AudioFrontEndError(.unsupportedSampleRate,
                                     "\(component) needs a rate from 8000 to 48000 Hz with whole 10 ms frames, not \(sampleRate) Hz")
        }
        return length
    }
}
