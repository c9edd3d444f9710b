import Foundation

/// The command line of `afe stream`, parsed. Each bad option becomes one message naming the problem; the NUI
/// parameters it makes are in `StreamOptions+Nui.swift`.
struct StreamOptions {
    var mic = ""
    var reference: String?
    var url = ""
    var wire = "dashscope"
    var model = "fun-asr-realtime"
    var format = "pcm"
    var realtime = false
    var appKey = "default"
    var debugPath: String?
    var maxSentenceSilence: Int?
    var finishTimeout: Int?
    var expected: String?
    var partials: Bool?
    var frontEnd = FrontEndOptions()

    static let usage = """
    usage: afe stream --mic FILE [--reference FILE] --url URL [--protocol dashscope|nls] [--model NAME]
                       [--format pcm|opus] [--realtime] [--app-key KEY] [--max-sentence-silence MS]
                       [--finish-timeout MS] [--debug-path DIR] [--expected TEXT] [--partials | --no-partials]
                       [--aec default|webrtc|webrtc-mobile|speex|off] [--suppression low|moderate|high]
                       [--ns off|low|moderate|high|very-high] [--channel N]

    Runs the whole path, front end → encoder → streaming client, on a microphone file (and the reference the
    device played, pushed as played: the canceller removes its echo), prints partial and final results as they
    arrive, then a summary: sentences, echo delay found, echo removed, speech segments, drops and timings.
    It runs through the NUI SDK (NeoNui) as a ported NUI app does: nui_initialize, nui_set_params,
    nui_dialog_start, the mic by nui_update_audio_data and the reference (resampled to the mic's rate) by
    nui_push_reference_data between play_start and play_over, nui_dialog_cancel. The protocol follows
    the URL's path (/api-ws/v1/inference DashScope, /ws/v1 NLS). --debug-path DIR has the SDK write its log and
    debug WAVs (mic.wav, reference.wav, aec_output.wav) there, and print its log lines on standard error.
    --aec off with no --reference streams the raw mic.
    The DashScope API key comes from the environment variable DASHSCOPE_API_KEY only (not needed for a local
    server at 127.0.0.1); an NLS token from NLS_TOKEN. --realtime paces the input at real time; otherwise it
    goes as fast as the service accepts. --finish-timeout MS: how long to wait for the final result after the
    audio ends (NUI's finish_timeout, 1000-600000; default the SDK's 10000): the audio is sent faster than real
    time, so a slow recognizer may still be decoding when it ends. --expected TEXT prints the word error rate of
    what was heard.
    Partial results are updated in place on a terminal (--partials prints each as a line, --no-partials none).
    """

    typealias Failure = ArgumentReader.Failure

    init(_ arguments: [String]) throws {
        var parsed = FrontEndOptions()
        try parsed.parse(arguments, command: "stream", usage: Self.usage) { argument, reader in
            switch argument {
            case "--mic": mic = try reader.value(argument)
            case "--reference": reference = try reader.value(argument)
            case "--url": url = try reader.value(argument)
            case "--protocol": wire = try reader.choice(argument, ["dashscope", "nls"])
            case "--model": model = try reader.value(argument)
            case "--format": format = try reader.choice(argument, ["pcm", "opus"])
            case "--realtime": realtime = true
            case "--app-key": appKey = try reader.value(argument)
            case "--debug-path": debugPath = try reader.value(argument)
            case "--ca-file":
                throw Failure(message: "--ca-file is not available: the NUI SDK verifies wss:// with the system's trust store")
            case "--max-sentence-silence": maxSentenceSilence = try reader.integer(argument)
            case "--finish-timeout":
                let milliseconds = try reader.integer(argument)
                guard (1000...600_000).contains(milliseconds) else {
                    throw Failure(message: "--finish-timeout takes 1000-600000 ms (NUI's finish_timeout), not \(milliseconds)")
                }
                finishTimeout = milliseconds
            case "--expected": expected = try reader.value(argument)
            case "--partials": partials = true
            case "--no-partials": partials = false
            case "--api-key", "--apikey", "--token":
                throw Failure(message: "\(argument) is not accepted: set DASHSCOPE_API_KEY (or NLS_TOKEN) in the environment")
            default: return false
            }
            return true
        }
        frontEnd = parsed
        if let option = parsed.processOnly.first {
            throw Failure(message: "\(option) is not available in afe stream: the NUI SDK picks the processing rate and finds the delay")
        }
        guard !mic.isEmpty else { throw Failure(message: "--mic FILE is required") }
        guard !url.isEmpty else { throw Failure(message: "--url URL is required (ws:// or wss://)") }
    }

    /// Whether the URL points at this machine (a local reference server needs no key).
    var isLoopback: Bool { isLoopbackURL(url) }
}

/// Whether `url`'s host is this machine (localhost, ::1, 127.0.0.0/8).
func isLoopbackURL(_ url: String) -> Bool {
    guard let host = URLComponents(string: url)?.host else { return false }
    return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
}
