import AudioFrontEnd

/// The command line of `afe process`, parsed. Each bad option becomes one message naming the problem.
struct ProcessOptions {
    var mic = ""
    var reference: String?
    var output = ""
    var opus: String?
    var vadLabels: String?
    var report: String?
    private var outputRate: Int?
    var frontEnd = FrontEndOptions()
    var configuration: FrontEndConfiguration {
        get { frontEnd.configuration }
        set { frontEnd.configuration = newValue }
    }
    var channel: Int { frontEnd.channel }

    static let usage = """
    usage: afe process --mic FILE [--reference FILE] --output FILE [--opus FILE.opus] [--vad-labels FILE.csv]
                       [--output-rate HZ] [--report FILE.json]
    \(FrontEndOptions.usage)

    Runs the front end (echo cancellation, noise suppression, VAD, resampling, Opus) over a microphone file and
    the reference the device played, and writes the processed audio as 16-bit WAV aligned with the mic input.
    Inputs: any format libsndfile reads (WAV incl. float and 24-bit, FLAC, Ogg, AIFF); multi-channel input uses
    the first channel unless --channel N (1-based) is given.
    """

    typealias Failure = ArgumentReader.Failure

    init(_ arguments: [String]) throws {
        var parsed = FrontEndOptions()
        try parsed.parse(arguments, command: "process", usage: Self.usage) { argument, reader in
            switch argument {
            case "--mic": mic = try reader.value(argument)
            case "--reference": reference = try reader.value(argument)
            case "--output": output = try reader.value(argument)
            case "--opus": opus = try reader.value(argument)
            case "--vad-labels": vadLabels = try reader.value(argument)
            case "--report": report = try reader.value(argument)
            case "--output-rate": outputRate = try reader.integer(argument)
            default: return false
            }
            return true
        }
        frontEnd = parsed
        guard !mic.isEmpty else { throw Failure(message: "--mic FILE is required") }
        guard !output.isEmpty else { throw Failure(message: "--output FILE is required") }
        frontEnd.resolve(hasReference: reference != nil)
        configuration.outputRate = outputRate
        if opus != nil { configuration.encoding = FrontEndConfiguration.Encoding() }
    }
}
