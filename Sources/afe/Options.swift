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
    the reference the device played, with the library's defaults (barge-in echo chain, NS off, VAD on, 16000 Hz,
    delay auto).
    Inputs: any format libsndfile reads (WAV incl. float and 24-bit, FLAC, Ogg, AIFF), mic at 16000-48000 Hz,
    reference at 8000-48000 Hz; rates and lengths may differ. A multi-channel mic uses its first
    channel unless --channel N (1-based); a multi-channel reference is mixed to mono (every speaker's
    sound reaches the mic).
    Outputs: --output 16-bit WAV at the processing rate (or --output-rate), aligned sample for sample with the
    mic (mic samples x output rate / mic rate; the stages' processing delay, reported, is removed); --opus Ogg
    Opus (its pre-skip covers that delay, so players decode it aligned too); --vad-labels one line per 10 ms output frame,
    `frame_index,0|1`; --report JSON (durations, delay estimate over time, echo metrics, VAD segments, drops,
    processing time and real-time factor). A progress bar shows on a terminal for inputs over 5 s.
    --aec default (the default) is the library's barge-in chain: speex MDF with mild residual-echo suppression,
    then WebRTC AEC2 at low suppression; --suppression applies to the WebRTC modes.
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
