import AudioFrontEnd
import Foundation
import SpeechStreaming
import VoiceRecognition

/// The command line of `afe stream`, parsed. Each bad option becomes one message naming the problem.
struct StreamOptions {
    var mic = ""
    var reference: String?
    var url = ""
    var wire = "dashscope"
    var model = "fun-asr-realtime"
    var format = AudioFormat.pcm
    var realtime = false
    var appKey = "default"
    var caFile: String?
    var maxSentenceSilence: Int?
    var expected: String?
    var partials: Bool?
    var frontEnd = FrontEndOptions()

    static let usage = """
    usage: afe stream --mic FILE [--reference FILE] --url URL [--protocol dashscope|nls] [--model NAME]
                      [--format pcm|opus] [--realtime] [--app-key KEY] [--max-sentence-silence MS]
                      [--ca-file PEM] [--expected TEXT] [--partials | --no-partials]
    \(FrontEndOptions.usage)

    Runs the whole path, front end → encoder → streaming client, on a microphone file (and the reference the
    device played, pushed as played: the canceller removes its echo), prints partial and final results as they
    arrive, then a summary: sentences, echo delay found, echo removed, speech segments, drops and timings.
    --aec off with no --reference streams the raw mic.
    The DashScope API key comes from the environment variable DASHSCOPE_API_KEY only (not needed for a local
    server at 127.0.0.1); an NLS token from NLS_TOKEN. --realtime paces the input at real time; otherwise it
    goes as fast as the service accepts. --expected TEXT prints the word error rate of what was heard.
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
            case "--format": format = AudioFormat(rawValue: try reader.choice(argument, ["pcm", "opus"]))!
            case "--realtime": realtime = true
            case "--app-key": appKey = try reader.value(argument)
            case "--ca-file": caFile = try reader.value(argument)
            case "--max-sentence-silence": maxSentenceSilence = try reader.integer(argument)
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
        guard !mic.isEmpty else { throw Failure(message: "--mic FILE is required") }
        guard !url.isEmpty else { throw Failure(message: "--url URL is required (ws:// or wss://)") }
        frontEnd.resolve(hasReference: reference != nil)
    }

    /// Whether the URL points at this machine (a local reference server needs no key).
    var isLoopback: Bool {
        guard let host = URLComponents(string: url)?.host else { return false }
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// The recognition configuration; the key or token is read from the environment here and nowhere else.
    func configuration(environment: [String: String]) throws -> RecognitionConfiguration {
        let connection = ConnectionOptions(caFilePath: caFile, finishTimeout: .seconds(60))
        let service: RecognitionConfiguration.Service
        if wire == "nls" {
            service = .nls(NLSConfiguration(url: url, token: environment["NLS_TOKEN"], appKey: appKey,
                                            maxSentenceSilenceMilliseconds: maxSentenceSilence, connection: connection))
        } else {
            let key = environment["DASHSCOPE_API_KEY"].flatMap { $0.isEmpty ? nil : $0 } ?? (isLoopback ? "local" : nil)
            guard let key else {
                throw Failure(message: "set DASHSCOPE_API_KEY in the environment (the key is never taken from an argument)")
            }
            service = .dashScope(DashScopeConfiguration(url: url, apiKey: key, parameters: DashScopeParameters(
                model: model, maxSentenceSilenceMilliseconds: maxSentenceSilence), connection: connection))
        }
        return RecognitionConfiguration(frontEnd: frontEnd.configuration, service: service, audioFormat: format,
                                        sampleRate: format == .opus ? frontEnd.configuration.processingRate : 16000,
                                        queueFullPolicy: realtime ? .drop : .wait, reportsAudio: false)
    }
}
