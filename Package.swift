// swift-tools-version:6.0
// AudioFrontEnd: an on-device voice front end (AEC, NS, VAD, resampling, Opus) over Debian's C libraries.
import PackageDescription

/// A system-library target for a Debian C library found through pkg-config.
func systemLibrary(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, pkgConfig: pkgConfig, providers: [.apt([apt])])
}

let package = Package(
    name: "AudioFrontEnd",
    products: [
        .library(name: "AudioFrontEnd", targets: ["AudioFrontEnd"]),
        .library(name: "AudioPlayback", targets: ["AudioPlayback"]),
        .library(name: "SpeechStreaming", targets: ["SpeechStreaming"]),
        .library(name: "SpeechSynthesis", targets: ["SpeechSynthesis"]),
        .library(name: "VoiceRecognition", targets: ["VoiceRecognition"]),
        .library(name: "NuiSDK", targets: ["NuiSDK"]),
        .library(name: "NuiTTS", targets: ["NuiTTS"]),
        .executable(name: "afe", targets: ["afe"]),
        .executable(name: "afe-bench", targets: ["afe-bench"]),
        .executable(name: "afe-soak", targets: ["afe-soak"]),
        // The C ABI of the NUI SDK as a shared library, libnui.so, for C/C++ apps (header: Sources/CNui/include/nui.h).
        .library(name: "nui", type: .dynamic, targets: ["NuiC"]),
    ],
    targets: [
        systemLibrary("CSpeexDSP", pkgConfig: "speexdsp", apt: "libspeexdsp-dev"),
        systemLibrary("CWebRTCAudioProcessing", pkgConfig: "webrtc-audio-processing", apt: "libwebrtc-audio-processing-dev"),
        systemLibrary("CSampleRate", pkgConfig: "samplerate", apt: "libsamplerate0-dev"),
        systemLibrary("COpus", pkgConfig: "opus", apt: "libopus-dev"),
        systemLibrary("COgg", pkgConfig: "ogg", apt: "libogg-dev"),
        systemLibrary("CSndFile", pkgConfig: "sndfile", apt: "libsndfile1-dev"),
        systemLibrary("CWebSockets", pkgConfig: "libwebsockets", apt: "libwebsockets-dev"),
        systemLibrary("CMpg123", pkgConfig: "libmpg123", apt: "libmpg123-dev"),
        .target(
            name: "CAudioShims",
            dependencies: ["CWebRTCAudioProcessing", "COpus"],
            cxxSettings: [.define("WEBRTC_POSIX"), .define("WEBRTC_AUDIO_PROCESSING_ONLY_BUILD")]
        ),
        // The package's one Ogg Opus muxer over libogg (package API): the file writer and the streaming socket path.
        .target(name: "OggMux", dependencies: ["COgg"]),
        // Joinable POSIX threads and the calling thread's key (package API), for every target that starts a thread.
        .target(name: "Threads"),
        .target(
            name: "AudioFrontEnd",
            dependencies: ["CAudioShims", "CSpeexDSP", "CSampleRate", "COpus", "OggMux", "CSndFile", "Threads"]
        ),
        // Speech-synthesis playback: streaming pcm/wav/mp3/opus decoders and the player that is its own echo
        // reference. Its own target so that libmpg123 is linked only by apps that play synthesis.
        .target(name: "AudioPlayback", dependencies: ["AudioFrontEnd", "CMpg123", "COgg", "COpus", "Threads"], exclude: ["README.md"]),
        .target(name: "SpeechStreaming", dependencies: ["CWebSockets", "COpus", "OggMux", "Threads"]),
        // The DashScope speech-synthesis (CosyVoice) client over SpeechStreaming's transport.
        .target(name: "SpeechSynthesis", dependencies: ["SpeechStreaming", "Threads"]),
        .target(name: "VoiceRecognition", dependencies: ["AudioFrontEnd", "SpeechStreaming", "Threads"]),
        .target(name: "NuiSDK", dependencies: ["AudioFrontEnd", "SpeechStreaming", "VoiceRecognition", "Threads"], exclude: ["ResultCodes.md", "Callbacks.md"]),
        // The stream-input TTS SDK (NeoNuiStreamInputTts) beside NuiSDK, over SpeechSynthesis.
        .target(name: "NuiTTS", dependencies: ["NuiSDK", "SpeechSynthesis", "SpeechStreaming", "AudioPlayback", "AudioFrontEnd", "Threads"], exclude: ["StreamInputTts.md"]),
        .target(name: "CNui"),
        .target(name: "NuiC", dependencies: ["CNui", "NuiSDK", "NuiTTS", "Threads"]),
        .executableTarget(name: "afe", dependencies: ["AudioFrontEnd", "NuiSDK", "VoiceRecognition", "SpeechStreaming",
                                                    "SpeechSynthesis", "OggMux", "NuiTTS", "AudioPlayback"]),
        .target(name: "AllocationCounter", path: "Tests/AllocationCounter"),
        .target(
            name: "CReferencePipeline",
            dependencies: ["CWebRTCAudioProcessing", "CSpeexDSP", "COpus"],
            path: "Benchmarks/CReferencePipeline",
            cxxSettings: [.define("WEBRTC_POSIX"), .define("WEBRTC_AUDIO_PROCESSING_ONLY_BUILD")]
        ),
        .executableTarget(
            name: "afe-bench",
            dependencies: ["AudioFrontEnd", "CReferencePipeline", "AllocationCounter"],
            path: "Benchmarks/afe-bench"
        ),
        // Playback cost per format and the release check of the playback loop (Benchmarks/playback.sh); its own
        // program so that afe-bench does not link libmpg123.
        .executableTarget(
            name: "afe-playback-bench",
            dependencies: ["AudioPlayback", "AudioFrontEnd", "AllocationCounter"],
            path: "Benchmarks/afe-playback-bench"
        ),
        // Long runs of the release build through each public surface (Soak/run.sh).
        .executableTarget(
            name: "afe-soak",
            dependencies: ["AudioFrontEnd", "AudioPlayback", "SpeechStreaming", "VoiceRecognition", "NuiSDK", "NuiTTS",
                           "AllocationCounter"],
            path: "Soak/afe-soak"
        ),
        .testTarget(
            name: "AudioFrontEndTests",
            dependencies: ["AudioFrontEnd", "AllocationCounter", "Threads"]
        ),
        .testTarget(
            name: "AudioPlaybackTests",
            dependencies: ["AudioPlayback", "AudioFrontEnd", "AllocationCounter"]
        ),
        .testTarget(
            name: "SpeechStreamingTests",
            dependencies: ["SpeechStreaming", "AudioFrontEnd", "AllocationCounter", "COgg"]
        ),
        // The synthesis client and the stream-input TTS SDK (NuiTTS) against the reference server.
        .testTarget(name: "SpeechSynthesisTests", dependencies: ["SpeechSynthesis", "SpeechStreaming", "NuiTTS", "NuiSDK",
                                                          "AudioPlayback", "AudioFrontEnd", "AllocationCounter", "Threads"]),
        .testTarget(
            name: "VoiceRecognitionTests",
            dependencies: ["VoiceRecognition", "SpeechStreaming", "AudioFrontEnd", "AllocationCounter"]
        ),
        .testTarget(
            name: "NuiSDKTests",
            dependencies: ["NuiSDK", "VoiceRecognition", "AudioFrontEnd", "SpeechStreaming", "AllocationCounter"]
        ),
        // Runs the built afe binary (next to the test bundle) as a user would.
        .testTarget(name: "afeTests", dependencies: ["AudioFrontEnd"]),
        .testTarget(
            name: "NuiCTests",
            dependencies: ["NuiC", "CNui", "NuiSDK", "NuiTTS", "AudioFrontEnd", "AllocationCounter"]
        ),
    ],
    cxxLanguageStandard: .cxx14
)

// Coverage-guided fuzz targets (Fuzz/, libFuzzer): only with AFE_FUZZ=1, so the normal `swift build` and
// `swift test` never build them. Scripts/fuzz.sh builds them with `--sanitize=fuzzer --sanitize=address`.
if Context.environment["AFE_FUZZ"] == "1" {
    func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
        .executableTarget(name: name, dependencies: dependencies, path: "Fuzz/Targets/\(name)")
    }
    package.targets += [
        fuzzTarget("FuzzNuiParameters", ["NuiSDK"]),
        fuzzTarget("FuzzServerMessages", ["SpeechStreaming"]),
        fuzzTarget("FuzzAudioFile", ["AudioFrontEnd"]),
        fuzzTarget("FuzzOggOpus", ["AudioFrontEnd", "SpeechStreaming"]),
        fuzzTarget("FuzzNuiCalls", ["CNui", "NuiC"]),
        fuzzTarget("FuzzPlaybackDecoders", ["AudioPlayback"]),
    ]
}
