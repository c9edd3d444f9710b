import Foundation
import SpeechSynthesis

/// The command line of `afe speak`, parsed. Each bad option becomes one message naming the problem.
struct SpeakOptions {
    var text: String?
    var textFile: String?
    var output = ""
    var url = ""
    var format: SynthesisFormat?
    var parameters = SynthesisParameters(voice: "longxiaochun_v2")
    var chunkCharacters: Int?

    static let usage = """
    usage: afe speak (TEXT | --text TEXT | --text-file FILE) --output FILE --url URL [--format pcm|wav|mp3|opus]
                     [--model NAME] [--voice NAME] [--sample-rate HZ] [--volume 0-100] [--speech-rate 0.5-2.0]
                     [--pitch 0.5-2.0] [--bit-rate 6-510] [--word-timestamps] [--ssml] [--chunk N]

    Synthesizes text to an audio file through the speech-synthesis client (DashScope CosyVoice task protocol:
    run-task, continue-task, finish-task) and prints a summary: sentences, characters billed, audio, word
    timestamps, connect time and the first audio's delay after the first text. --text-file - reads standard input.
    --format defaults from the output's extension (.pcm/.raw, .wav, .mp3, .opus/.ogg). A WAV file gets its real
    sizes written into the header at the end, an Ogg Opus file the end-of-stream flag on its last page (the
    service's stream has none); otherwise the file holds the frames as the service sent them. --chunk N sends the text in continue-tasks of N characters, as a language model's
    stream would. Defaults: model cosyvoice-v2, voice longxiaochun_v2, 22050 Hz, the service's volume, rate and
    pitch. The DashScope API key comes from the environment variable DASHSCOPE_API_KEY only (not needed for a
    local server at 127.0.0.1, such as Scripts/reference-server/server.py).
    """

    typealias Failure = ArgumentReader.Failure

    init(_ arguments: [String]) throws {
        var reader = ArgumentReader(arguments)
        while let argument = reader.next() {
            switch argument {
            case "--help", "-h": throw Failure(message: Self.usage)
            case "--text": text = try reader.value(argument)
            case "--text-file": textFile = try reader.value(argument)
            case "--output": output = try reader.value(argument)
            case "--url": url = try reader.value(argument)
            case "--format": format = SynthesisFormat(rawValue: try reader.choice(argument, ["pcm", "wav", "mp3", "opus"]))
            case "--model": parameters.model = try reader.value(argument)
            case "--voice": parameters.voice = try reader.value(argument)
            case "--sample-rate":
                parameters.sampleRate = try reader.integer(argument)
                guard SynthesisParameters.sampleRates.contains(parameters.sampleRate) else {
                    throw Failure(message: "--sample-rate takes 8000, 16000, 22050, 24000, 44100 or 48000, not \(parameters.sampleRate)")
                }
            case "--volume": parameters.volume = try ranged(&reader, argument, 0...100)
            case "--speech-rate": parameters.rate = try reader.number(argument, 0.5...2.0)
            case "--pitch": parameters.pitch = try reader.number(argument, 0.5...2.0)
            case "--bit-rate": parameters.bitRate = try ranged(&reader, argument, 6...510)
            case "--word-timestamps": parameters.wordTimestampEnabled = true
            case "--ssml": parameters.enableSSML = true
            case "--chunk": chunkCharacters = try ranged(&reader, argument, 1...20_000)
            case "--api-key", "--apikey":
                throw Failure(message: "\(argument) is not accepted: set DASHSCOPE_API_KEY in the environment")
            case let value where !value.hasPrefix("-") && text == nil: text = value
            default: throw Failure(message: "unknown option '\(argument)' (see afe speak --help)")
            }
        }
        guard (text == nil) != (textFile == nil) else {
            throw Failure(message: text == nil ? "the text is required: TEXT, --text TEXT or --text-file FILE"
                          : "give the text once: TEXT/--text or --text-file, not both")
        }
        guard !output.isEmpty else { throw Failure(message: "--output FILE is required") }
        guard !url.isEmpty else { throw Failure(message: "--url URL is required (ws:// or wss://)") }
        if format == nil {
            let ext = URL(fileURLWithPath: output).pathExtension.lowercased()
            format = ["pcm": .pcm, "raw": .pcm, "wav": .wav, "mp3": .mp3, "opus": .opus, "ogg": .opus][ext]
            guard format != nil else {
                throw Failure(message: "--format is required: the output's extension '.\(ext)' names no format")
            }
        }
        parameters.format = format!
        if parameters.bitRate != nil && format != .opus { throw Failure(message: "--bit-rate is for --format opus only") }
    }

    private func ranged(_ reader: inout ArgumentReader, _ name: String, _ range: ClosedRange<Int>) throws -> Int {
        let value = try reader.integer(name)
        guard range.contains(value) else {
            throw Failure(message: "\(name) takes \(range.lowerBound)-\(range.upperBound), not \(value)")
        }
        return value
    }


    /// The text to speak: the argument, the file, or standard input for `--text-file -`.
    func readText() throws -> String {
        if let text { return text }
        let path = textFile!
        let data = path == "-" ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: path)
        guard let data else { throw RunFailure(message: "--text-file \(path) cannot be read") }
        guard let text = String(data: data, encoding: .utf8) else { throw RunFailure(message: "--text-file \(path) is not UTF-8 text") }
        guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw RunFailure(message: "--text-file \(path) holds no text")
        }
        return text
    }

    /// Whether the URL points at this machine (a local reference server needs no key).
    var isLoopback: Bool { isLoopbackURL(url) }
}
