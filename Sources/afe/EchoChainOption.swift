import AudioFrontEnd

/// `--echo-chain KEY=VALUE,...` of `afe process`: the default echo chain's settings (speex MDF, then WebRTC AEC2;
/// ``FrontEndConfiguration/defaultEchoCancellation``) for tuning on the scenario matrix; keys not given keep the
/// library's defaults (`tail-ms` without `grow-tail-ms` turns the tail's growth off). Only with `--aec default`.
enum EchoChainOption {
    static let keys = "tail-ms, suppress-db, suppress-active-db, aec2-level (0 low, 1 moderate, 2 high), aec2-extended (0 or 1), blocks (1, 2, 4, 5 or 8), residual (0 or 1), residual-ms (0: speexdsp's preprocessor, 1...5: the low-delay suppressor), grow-tail-ms (0: never), grow-limit-db, reset-db (-99: off), reset-frames, aec2-change-level (-1 off, 0 low, 1 moderate, 2 high), aec2-change-ms, path-depth-db (-1: off), path-hold-ms"

    static func parse(_ text: String, into chain: inout FrontEndConfiguration.EchoCancellation) throws {
        guard case .speexThenWebRTC(var speex, var webRTC) = chain else {
            throw ArgumentReader.Failure(message: "--echo-chain applies to --aec default only")
        }
        let pairs = try KeyValueOption.pairs(text, option: "--echo-chain", keys: keys)
        for (key, value, number) in pairs {
            guard Float(number) == value else {
                throw ArgumentReader.Failure(message: "--echo-chain: \(key) takes a whole number, not \(value)")
            }
            switch key {
            case "tail-ms": speex.tailMilliseconds = number
            case "suppress-db": speex.echoSuppressDecibels = number
            case "suppress-active-db": speex.echoSuppressActiveDecibels = number
            case "blocks": speex.blocksPerFrame = number
            case "grow-tail-ms": speex.grownTailMilliseconds = number == 0 ? nil : number
            case "grow-limit-db": speex.growLimitDecibels = Float(number)
            case "reset-db": speex.divergenceResetDecibels = number == -99 ? nil : Float(number)
            case "reset-frames": speex.divergenceFrames = number
            case "aec2-change-level":
                webRTC.pathChangeSuppressionLevel = number < 0 ? nil : WebRTCEchoCanceller.Configuration.SuppressionLevel(rawValue: Int32(clamping: number))
                if number >= 0 && webRTC.pathChangeSuppressionLevel == nil {
                    throw ArgumentReader.Failure(message: "--echo-chain: aec2-change-level takes -1, 0, 1 or 2, not \(number)")
                }
            case "residual-ms": speex.lowDelayResidualMilliseconds = number == 0 ? nil : number
            case "aec2-change-ms": webRTC.pathChangeMilliseconds = number
            case "path-depth-db": webRTC.pathChangeOutputDepthDecibels = number < 0 ? nil : Float(number)
            case "path-hold-ms": webRTC.pathChangeOutputMilliseconds = number
            case "residual":
                guard number == 0 || number == 1 else {
                    throw ArgumentReader.Failure(message: "--echo-chain: residual takes 0 or 1, not \(number)")
                }
                speex.residualEchoSuppression = number == 1
            case "aec2-level":
                guard let level = WebRTCEchoCanceller.Configuration.SuppressionLevel(rawValue: Int32(clamping: number)) else {
                    throw ArgumentReader.Failure(message: "--echo-chain: aec2-level takes 0, 1 or 2, not \(number)")
                }
                webRTC.suppressionLevel = level
            case "aec2-extended":
                guard number == 0 || number == 1 else {
                    throw ArgumentReader.Failure(message: "--echo-chain: aec2-extended takes 0 or 1, not \(number)")
                }
                webRTC.extendedFilter = number == 1
            default: throw ArgumentReader.Failure(message: "--echo-chain: unknown key '\(key)' (keys: \(keys))")
            }
        }
        // A tail given alone is the tail used (no growth), as before growth existed.
        if pairs.contains(where: { $0.key == "tail-ms" }), !pairs.contains(where: { $0.key == "grow-tail-ms" }) {
            speex.grownTailMilliseconds = nil
        }
        chain = .speexThenWebRTC(speex, webRTC)
    }
}
