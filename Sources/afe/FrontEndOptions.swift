import AudioFrontEnd

/// Reads a command line one argument at a time; each bad value becomes one message naming the option.
struct ArgumentReader {
    struct Failure: Error { let message: String }

    private let arguments: [String]
    private var index = -1

    init(_ arguments: [String]) { self.arguments = arguments }

    /// The next option, or nil at the end.
    mutating func next() -> String? {
        index += 1
        return index < arguments.count ? arguments[index] : nil
    }

    /// The value after option `name`.
    mutating func value(_ name: String) throws -> String {
        index += 1
        guard index < arguments.count else { throw Failure(message: "\(name) needs a value") }
        return arguments[index]
    }

    /// The value after `name` as a whole number (any Int; out-of-range text such as 2^64 is refused, not wrapped).
    /// Callers check the range before any arithmetic on it.
    mutating func integer(_ name: String) throws -> Int {
        let text = try value(name)
        guard let number = Int(text) else { throw Failure(message: "\(name) takes a whole number, not '\(text)'") }
        return number
    }

    /// The value after `name` as a finite number in `range`.
    mutating func number(_ name: String, _ range: ClosedRange<Double>) throws -> Double {
        let text = try value(name)
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw Failure(message: "\(name) takes a number in \(range.lowerBound)-\(range.upperBound), not '\(text)'")
        }
        return value
    }

    /// The value after `name`, which must be one of `choices`.
    mutating func choice(_ name: String, _ choices: [String]) throws -> String {
        let text = try value(name)
        guard choices.contains(text) else {
            let list = choices.dropLast().joined(separator: ", ") + " or " + choices.last!
            throw Failure(message: "\(name) takes \(list), not '\(text)'")
        }
        return text
    }
}

/// The front-end options `afe process` and `afe stream` share, and the configuration they make.
struct FrontEndOptions {
    static let usage = """
                       [--aec default|webrtc|webrtc-mobile|speex|off] [--suppression low|moderate|high]
                       [--ns off|low|moderate|high|very-high] [--rate 16000|48000] [--delay-ms N|auto] [--channel N]
                       [--vad-onset-ms N] [--noise-onset off|DEV_DB,MS_PER_DB,MAX_MS] [--vad-voicing off|on|quiet|ABOVE,MARGIN_DB,MAX_DEV_DB[,MAX_NOISE_PERIODICITY[,CUTOFF_HZ]]] [--vad-edges off|on|MARGIN_DB,LEAD_MS,TRAIL_MS[,GAP_MS[,MAX_DEV_DB[,PEAK_RANGE_DB]]]] [--echo-gate KEY=VALUE,...] (tuning: \(EchoGateOption.keys))
                       [--echo-chain KEY=VALUE,...] (tuning, --aec default: \(EchoChainOption.keys))
                       [--transparency on|off] [--no-echo-pause on|off] [--late-echo off|on|KEY=VALUE,...] (tuning: \(LateEchoOption.keys))
                       [--far-end-only off|on|KEY=VALUE,...] (tuning: \(FarEndOnlyOption.keys))
                       [--barge-in off|KEY=VALUE,...] (tuning: \(BargeInOption.keys))
                       [--barge-in-suspicion off|on|KEY=VALUE,...] (the same keys; on: evidence-offset-db=0, and
                       both decisions at residual-db=12,echo-margin-db=10,warm-margin-ms=0)
    """

    var configuration = FrontEndConfiguration()
    /// The mic file's channel, 0-based.
    var channel = 0
    private var webRTC = WebRTCEchoCanceller.Configuration()
    /// The choices as given, for `afe stream` (which passes them to the NUI SDK as its own keys).
    private(set) var aec = "default"
    private(set) var suppression: String?
    private(set) var noiseSuppression: String?
    /// Options given that only `afe process` takes (the NUI SDK has no key for them).
    private(set) var processOnly: [String] = []

    /// Takes `option` (and its value) when it is a front-end option; returns false otherwise.
    mutating func parse(_ option: String, _ reader: inout ArgumentReader) throws -> Bool {
        switch option {
        case "--channel":
            // Checked before the subtraction: `Int.min - 1` would trap.
            let number = try reader.integer(option)
            guard number >= 1 else { throw ArgumentReader.Failure(message: "--channel counts from 1, not \(number)") }
            channel = number - 1
        case "--aec":
            aec = try reader.choice(option, ["default", "webrtc", "webrtc-mobile", "speex", "off"])
        case "--suppression":
            let levels: [String: WebRTCEchoCanceller.Configuration.SuppressionLevel] = ["low": .low, "moderate": .moderate, "high": .high]
            suppression = try reader.choice(option, ["low", "moderate", "high"])
            webRTC.suppressionLevel = levels[suppression!]!
        case "--ns":
            let levels: [String: WebRTCNoiseSuppressor.Configuration.Level] =
                ["low": .low, "moderate": .moderate, "high": .high, "very-high": .veryHigh]
            let level = try reader.choice(option, ["off", "low", "moderate", "high", "very-high"])
            noiseSuppression = level
            if let parsed = levels[level] {
                var ns = WebRTCNoiseSuppressor.Configuration()
                ns.level = parsed
                configuration.noiseSuppression = .webRTC(ns)
            } else {
                configuration.noiseSuppression = .off
            }
        case "--rate":
            configuration.processingRate = try reader.integer(option)
            processOnly.append(option)
        case "--delay-ms":
            let text = try reader.value(option)
            processOnly.append(option)
            if text != "auto" {
                guard let ms = Int(text) else {
                    throw ArgumentReader.Failure(message: "--delay-ms takes a number of ms or auto, not '\(text)'")
                }
                configuration.alignment = .fixed(milliseconds: ms)
            }
        case "--vad-onset-ms":
            configuration.voiceDetection?.segmenter.onsetMilliseconds = try reader.integer(option)
            processOnly.append(option)
        case "--noise-onset":
            let text = try reader.value(option)
            processOnly.append(option)
            if configuration.voiceDetection != nil {
                configuration.voiceDetection!.fluctuatingNoiseOnset = try NoiseOnsetOption.parse(text)
            }
        case "--vad-voicing":
            let text = try reader.value(option)
            processOnly.append(option)
            if case .energy(var c)? = configuration.voiceDetection?.detector {
                c.voicing = try VoicingOption.parse(text)
                configuration.voiceDetection!.detector = .energy(c)
            }
        case "--vad-edges":
            let text = try reader.value(option)
            processOnly.append(option)
            if configuration.voiceDetection != nil {
                configuration.voiceDetection!.speechEdges = try SpeechEdgesOption.parse(text)
            }
        case "--transparency":
            configuration.nearEndTransparency = try reader.choice(option, ["on", "off"]) == "on"
            processOnly.append(option)
        case "--no-echo-pause":
            configuration.pausesCancellersWithoutEcho = try reader.choice(option, ["on", "off"]) == "on"
            processOnly.append(option)
        case "--echo-gate":
            let text = try reader.value(option)
            processOnly.append(option)
            if configuration.voiceDetection != nil { try EchoGateOption.parse(text, into: &configuration.voiceDetection!.echoGate) }
        case "--late-echo":
            let text = try reader.value(option)
            processOnly.append(option)
            configuration.lateEchoSuppression = try LateEchoOption.parse(text)
        case "--far-end-only":
            let text = try reader.value(option)
            processOnly.append(option)
            configuration.farEndOnlyEcho = try FarEndOnlyOption.parse(text)
        case "--echo-chain":
            let text = try reader.value(option)
            processOnly.append(option)
            try EchoChainOption.parse(text, into: &configuration.echoCancellation)
        case "--barge-in":
            let text = try reader.value(option)
            processOnly.append(option)
            try BargeInOption.parse(text, into: &configuration)
        case "--barge-in-suspicion":
            let text = try reader.value(option)
            processOnly.append(option)
            try BargeInOption.parseSuspicion(text, into: &configuration)
        default:
            return false
        }
        return true
    }

    /// Parses a command's arguments: the front-end options here, the command's own through `own` (which
    /// returns false for an option it does not know), `--help` as the usage.
    mutating func parse(_ arguments: [String], command: String, usage: String,
                        own: (String, inout ArgumentReader) throws -> Bool) throws {
        var reader = ArgumentReader(arguments)
        while let argument = reader.next() {
            if try parse(argument, &reader) || (try own(argument, &reader)) { continue }
            if argument == "--help" || argument == "-h" { throw ArgumentReader.Failure(message: usage) }
            throw ArgumentReader.Failure(message: "unknown option '\(argument)' (see afe \(command) --help)")
        }
    }

    /// Sets the echo canceller chosen (off when there is no reference to cancel).
    mutating func resolve(hasReference: Bool) {
        switch aec {
        case "off": configuration.echoCancellation = .off
        case "speex": configuration.echoCancellation = .speex(SpeexEchoCanceller.Configuration())
        case "webrtc-mobile":
            webRTC.mode = .mobile
            configuration.echoCancellation = .webRTC(webRTC)
        case "webrtc": configuration.echoCancellation = .webRTC(webRTC)
        default: break // FrontEndConfiguration.defaultEchoCancellation
        }
        if !hasReference { configuration.echoCancellation = .off }
    }
}
