import CSpeexDSP

/// An internal owner of one speexdsp preprocessor state (`SpeexPreprocessState`), set up for denoising and,
/// when given an echo state, residual-echo suppression. AGC, VAD and dereverberation stay off.
///
/// Used by ``SpeexNoiseSuppressor`` and ``SpeexEchoCanceller``. speexdsp applies its gains only while denoise is
/// on, so residual-echo suppression alone runs the denoiser with a 0 dB noise floor (no noise attenuation).
/// The preprocessor's output lags its input by one frame (its overlap-add window spans two frames).
///
/// Invariant behind `@unchecked Sendable`: one thread at a time; an echo state passed in must outlive this object
/// and be used by the same thread (its owner destroys this first).
final class SpeexPreprocessor: @unchecked Sendable {
    /// What the preprocessor does; every field is checked at creation.
    struct Settings: Equatable {
        var sampleRate: Int
        var frameLength: Int
        /// Attenuate stationary noise by up to ``noiseSuppressDecibels``.
        var denoise: Bool
        /// Maximum noise attenuation, as speexdsp takes it: negative dB (-15 is speexdsp's default).
        var noiseSuppressDecibels: Int
        /// Maximum residual-echo attenuation while the far end alone talks, negative dB (speexdsp: -40).
        var echoSuppressDecibels: Int = -40
        /// Maximum residual-echo attenuation while the near end talks too, negative dB (speexdsp: -15).
        var echoSuppressActiveDecibels: Int = -15
    }

    private var state: OpaquePointer
    private let settings: Settings
    private var echoState: OpaquePointer?

    /// Creates the state and applies `settings`. Allocates; not real-time safe.
    /// The corresponding C functions are `speex_preprocess_state_init` and `speex_preprocess_ctl`.
    /// - Parameter echoState: a `SpeexEchoState` for residual-echo suppression, or nil.
    /// - Throws: ``AudioFrontEndError/Code/libraryFailure`` when speexdsp cannot create or configure the state.
    init(settings: Settings, echoState: OpaquePointer?, component: String) throws {
        self.settings = settings
        self.echoState = echoState
        state = try Self.makeState(settings, echoState: echoState, component: component)
    }

    deinit { speex_preprocess_state_destroy(state) }

    private static func makeState(_ s: Settings, echoState: OpaquePointer?, component: String) throws -> OpaquePointer {
        guard let state = speex_preprocess_state_init(Int32(s.frameLength), Int32(s.sampleRate)) else {
            throw AudioFrontEndError(.libraryFailure, "\(component): speex_preprocess_state_init failed at \(s.sampleRate) Hz")
        }
        // AGC, VAD and dereverberation are off in a new state (setting the VAD prints a warning to stderr).
        // Residual-echo gains are applied only with denoise on; without denoise the noise floor is 0 dB.
        let applyGains = s.denoise || echoState != nil
        let requests: [(Int32, Int32)] = [
            (SPEEX_PREPROCESS_SET_DENOISE, applyGains ? 1 : 0),
            (SPEEX_PREPROCESS_SET_NOISE_SUPPRESS, Int32(s.denoise ? s.noiseSuppressDecibels : 0)),
            (SPEEX_PREPROCESS_SET_ECHO_SUPPRESS, Int32(s.echoSuppressDecibels)),
            (SPEEX_PREPROCESS_SET_ECHO_SUPPRESS_ACTIVE, Int32(s.echoSuppressActiveDecibels)),
        ]
        for (request, value) in requests {
            var v = value
            if speex_preprocess_ctl(state, request, &v) != 0 {
                speex_preprocess_state_destroy(state)
                throw AudioFrontEndError(.libraryFailure, "\(component): speex_preprocess_ctl(\(request)) refused \(value)",
                                         libraryStatus: -1)
            }
        }
        if let echoState {
            speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_ECHO_STATE, UnsafeMutableRawPointer(echoState))
        }
        return state
    }

    /// Processes one frame of ``Settings/frameLength`` samples in place (the caller checks the length).
    /// Real-time safe. The corresponding C function is `speex_preprocess_run`.
    @inline(__always)
    func run(_ frame: UnsafeMutablePointer<Int16>) {
        _ = speex_preprocess_run(state, frame)
    }

    /// Reads its residual-echo estimate from `echoState` from now on (a canceller that changed filters).
    /// Real-time safe: speexdsp only stores the pointer. Only for a preprocessor created with an echo state.
    func attach(echoState: OpaquePointer) {
        guard self.echoState != nil else { return }
        self.echoState = echoState
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_SET_ECHO_STATE, UnsafeMutableRawPointer(echoState))
    }

    /// Forgets the noise and echo estimates by creating a fresh state with the same settings (speexdsp has no
    /// reset call). Allocates; not real-time safe. Keeps the old state if creation fails.
    func reset() {
        guard let fresh = try? Self.makeState(settings, echoState: echoState, component: "speex preprocessor") else {
            return
        }
        speex_preprocess_state_destroy(state)
        state = fresh
    }
}
