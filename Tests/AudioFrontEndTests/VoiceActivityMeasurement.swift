import AudioFrontEnd

/// Runs detectors and the segmenter over whole signals for the VAD tests (allocating; test code).
enum VoiceActivityMeasurement {
    /// The detector's decision for every whole 10 ms frame of `samples`.
    static func decisions(_ detector: some VoiceActivityDetector, _ samples: [Int16]) -> [Bool] {
        let length = detector.frameLength
        let frames = samples.count / length
        var out = [Bool](repeating: false, count: frames)
        samples.withUnsafeBufferPointer { all in
            for f in 0..<frames {
                let frame = UnsafeBufferPointer(rebasing: all[(f * length)..<((f + 1) * length)])
                precondition(detector.process(frame).isOK)
                out[f] = detector.isSpeech
            }
        }
        return out
    }

    /// Frame decisions smoothed by `segmenter`: true inside each segment [start, end) it reports.
    static func segmented(_ decisions: [Bool], _ segmenter: SpeechSegmenter) -> [Bool] {
        var segmenter = segmenter
        var out = [Bool](repeating: false, count: decisions.count)
        var openStart: Int?
        func apply(_ event: SpeechSegmenter.Event?) {
            switch event {
            case .speechStart(let at, _)?: openStart = at.frame
            case .speechEnd(let at, _, _)?:
                for f in (openStart ?? at.frame)..<at.frame { out[f] = true }
                openStart = nil
            case nil: break
            }
        }
        for d in decisions { apply(segmenter.process(isSpeech: d)) }
        apply(segmenter.finish())
        return out
    }
}
