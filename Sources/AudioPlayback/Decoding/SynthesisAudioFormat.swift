/// The audio formats a speech-synthesis task delivers (the `format` parameter of the TTS protocol).
///
/// - `pcm`: raw 16-bit little-endian mono at the task's `sample_rate`.
/// - `wav`: a RIFF/WAVE header in the first binary frame, then 16-bit PCM.
/// - `mp3`: MPEG audio frames (libmpg123), the first binary frame may carry an ID3v2 tag or a Xing/LAME frame.
/// - `opus`: an Ogg Opus stream (RFC 7845), each binary frame normally one Ogg page.
public enum SynthesisAudioFormat: String, Sendable, Hashable, CaseIterable, BitwiseCopyable {
    case pcm, wav, mp3, opus
}
