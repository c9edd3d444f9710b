import AudioFrontEnd
import AudioPlayback
import NuiSDK

/// The NUI recognizer as the TTS playback's echo reference: give `NeoNui.get_instance()` as the `reference` of a
/// ``StreamInputTtsPlayback`` and what it plays reaches the ASR front end on the path of
/// `nui_push_reference_data` (and its start and end on that of `play_start` / `play_over`), from the playback's
/// render thread, real-time safe — the app joins the two SDKs without pushing any reference for the speech.
///
/// The front end is made at the first `nui_dialog_start`: before it, the pushes are not taken and counted in the
/// player's ``AudioPlayback/PlaybackCounts/refusedReferenceSamples`` (there is no mic to align them with either),
/// and the last playing hint is kept and handed to the front end when it starts. See
/// ``NuiSDK/NeoNui/pushReference(samples:)``.
///
/// The playback then owns the reference stream: it pushes every buffer it hands to the device, silence included,
/// and each push extends the stream by its length. The app's own sounds pushed with `nui_push_reference_data`
/// meanwhile are mixed into those buffers (``NuiSDK/NeoNui/attachPlayback(sampleRate:channelCount:)``, the
/// player's `appReference`), not pushed beside them — a second stream would interleave with it and break the
/// alignment with the mic.
extension NeoNui: EchoReferenceSink {}

extension StreamInputTtsPlayback {
    /// The reference format `reference` expects (interleaved 16-bit), when it is known to the SDK: a ``FrontEnd``'s
    /// configured reference, or a ``NeoNui``'s `nls_config.sample_rate`, mono. Throws for a NeoNui without
    /// `nui_set_params` yet (its rate is unknown, and every push would be at a guessed rate).
    static func referenceFormat(of reference: (any EchoReferenceSink)?) throws -> (sampleRate: Int, channelCount: Int)? {
        if let frontEnd = reference as? FrontEnd {
            return (frontEnd.configuration.reference.sampleRate, frontEnd.configuration.reference.channelCount)
        }
        if let nui = reference as? NeoNui {
            guard let rate = nui.referenceSampleRate else {
                throw AudioFrontEndError(.invalidState, "the NeoNui reference has no sample rate yet: call nui_set_params before creating the playback")
            }
            return (rate, 1)
        }
        return nil
    }
}
