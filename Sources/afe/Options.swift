import AudioFrontEnd

/// The command line of `afe process`, parsed. Each bad option becomes one message naming the problem.
struct ProcessOptions {
    var mic = ""
    var reference: String?
    var output = ""
    var opus: String?
    var vadLabels: String?
    var report: String?
    var channel = 0
    var configuration = FrontEndConfiguration()

    static let usage = """
    usage: afe process --mic FILE [--reference FILE] --output FILE [--opus FILE.opus] [--vad-labels FILE.csv]
                       [--aec default|webrtc|webrtc-mobile|speex|off] [--suppression low|moderate|high]
                       [--ns off|low|moderate|high|very-high] [--rate 16000|48000] [--output-rate HZ]
                       [--delay-ms N|auto] [--channel N] [--report FILE.json]

    Runs the front end (echo cancellation, noise suppression, VAD, resampling, Opus) over a microphone file and
    the reference the device played, with the library's defaults (barge-in echo chain, NS off, VAD on, 16000 Hz,
    delay auto).
    Inputs: any format libsndfile reads (WAV incl. float and 24-bit, FLAC, Ogg, AIFF), mic at 16000-48000 Hz,
    reference at 8000-48000 Hz; rates and lengths may differ. A multi-channel mic uses its first
    channel unless --channel N (1-based); the reference uses its first channel.
    Outputs: --output 16-bit WAV at the processing rate (or --output-rate), aligned sample for sample with the
    mic (mic samples x output rate / mic rate); --opus Ogg Opus; --vad-labels one line per 10 ms output frame,
    `frame_index,0|1`; --report JSON (durations, delay estimate over time, echo metrics, VAD segments, drops,
    processing time and real-time factor). A progress bar shows on a terminal for inputs over 5 s.
    --aec default (the default) is the library's barge-in chain: speex MDF with mild residual-echo suppression,
    then WebRTC AEC2 at low suppression; --suppression applies to the WebRTC modes.
    """

    struct Failure: Error { let message: String }

    init(_ arguments: [String]) throws {
        var webRTC = WebRTCEchoCanceller.Configuration()
        var aec = "default"
        var i = 0
        func value(_ name: String) throws -> String {
            i += 1
            guard i < arguments.count else { throw Failure(message: "\(name) needs a value") }
            return arguments[i]
        }
        func integer(_ name: String) throws -> Int {
            let text = try value(name)
            guard let number = Int(text) else { throw Failure(message: "\(name) takes a whole number, not '\(text)'") }
            return number
        }
        while i < arguments.count {
            let argument = arguments[i]
            switch argument {
            case "--mic": mic = try value(argument)
            case "--reference": reference = try value(argument)
            case "--output": output = try value(argument)
            case "--opus": opus = try value(argument)
            case "--vad-labels": vadLabels = try value(argument)
            case "--report": report = try value(argument)
            case "--channel":
                channel = try integer(argument) - 1
                guard channel >= 0 else { throw Failure(message: "--channel counts from 1") }
            case "--aec":
                aec = try value(argument)
                guard ["default", "webrtc", "webrtc-mobile", "speex", "off"].contains(aec) else {
                    throw Failure(message: "--aec takes default, webrtc, webrtc-mobile, speex or off, not '\(aec)'")
                }
            case "--suppression":
                let level = try value(argument)
                guard let parsed = ["low": WebRTCEchoCanceller.Configuration.SuppressionLevel.low,
                                    "moderate": .moderate, "high": .high][level] else {
                    throw Failure(message: "--suppression takes low, moderate or high, not '\(level)'")
                }
                webRTC.suppressionLevel = parsed
            case "--ns":
                let level = try value(argument)
                let levels: [String: WebRTCNoiseSuppressor.Configuration.Level] =
                    ["low": .low, "moderate": .moderate, "high": .high, "very-high": .veryHigh]
                if level == "off" { configuration.noiseSuppression = .off } else {
                    guard let parsed = levels[level] else {
                        throw Failure(message: "--ns takes off, low, moderate, high or very-high, not '\(level)'")
                    }
                    var ns = WebRTCNoiseSuppressor.Configuration()
                    ns.level = parsed
                    configuration.noiseSuppression = .webRTC(ns)
                }
            case "--rate": configuration.processingRate = try integer(argument)
            case "--output-rate": configuration.outputRate = try integer(argument)
            case "--delay-ms":
                let text = try value(argument)
                if text != "auto" {
                    guard let ms = Int(text) else { throw Failure(message: "--delay-ms takes a number of ms or auto, not '\(text)'") }
                    configuration.alignment = .fixed(milliseconds: ms)
                }
            case "--help", "-h": throw Failure(message: Self.usage)
            default: throw Failure(message: "unknown option '\(argument)' (see afe process --help)")
            }
            i += 1
        }
        guard !mic.isEmpty else { throw Failure(message: "--mic FILE is required") }
        guard !output.isEmpty else { throw Failure(message: "--output FILE is required") }
        switch aec {
        case "off": configuration.echoCancellation = .off
        case "speex": configuration.echoCancellation = .speex(SpeexEchoCanceller.Configuration())
        case "webrtc-mobile":
            webRTC.mode = .mobile
            configuration.echoCancellation = .webRTC(webRTC)
        case "webrtc": configuration.echoCancellation = .webRTC(webRTC)
        default: break // FrontEndConfiguration.defaultEchoCancellation
        }
        if opus != nil { configuration.encoding = FrontEndConfiguration.Encoding() }
        if reference == nil, aec != "off" { configuration.echoCancellation = .off }
    }
}
