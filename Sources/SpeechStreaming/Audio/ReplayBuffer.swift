/// The audio sent in the current task since the last sentence end, bounded, for re-sending after a
/// reconnection so that no sentence is lost.
///
/// Positions are in ms of task audio. PCM is kept as bytes; Ogg Opus as whole pages plus the two header
/// pages, renumbered on replay so the new connection receives a valid Ogg stream (sequence numbers from 0,
/// granule positions kept, so the first audio page marks a start offset as RFC 7845 allows).
/// When more than the capacity accumulates without a sentence end, the oldest audio is dropped and
/// counted in ``droppedBytes``. Network thread only; allocates.
struct ReplayBuffer {
    let format: AudioFormat
    let sampleRate: Int
    let capacityBytes: Int
    private(set) var droppedBytes = 0

    private var pcm: [UInt8] = []
    /// Task-audio byte position of `pcm[0]`.
    private var pcmStartByte = 0

    private var headers: [[UInt8]] = []
    private var pages: [(bytes: [UInt8], start: Int, end: Int)] = []
    private var pagesBytes = 0
    private var lastEndMilliseconds = 0

    init(format: AudioFormat, sampleRate: Int, capacityBytes: Int) {
        self.format = format
        self.sampleRate = sampleRate
        self.capacityBytes = capacityBytes
    }

    /// Where the kept audio starts, in ms of task audio (the end of what was trimmed).
    var startMilliseconds: Int {
        switch format {
        case .pcm: milliseconds(ofByte: pcmStartByte)
        case .opus: pages.first?.start ?? lastEndMilliseconds
        }
    }

    /// Bytes of audio kept (not counting Ogg header pages).
    var keptBytes: Int { format == .pcm ? pcm.count : pagesBytes }

    /// Records a frame that went out; returns the bytes of old audio this dropped to stay within capacity.
    @discardableResult
    mutating func append(_ frame: AudioFrame) -> Int {
        let droppedBefore = droppedBytes
        switch format {
        case .pcm:
            pcm.append(contentsOf: frame.bytes)
            if pcm.count > capacityBytes {
                let excess = (pcm.count - capacityBytes + 1) & ~1
                dropPCM(excess)
                droppedBytes += excess
            }
        case .opus:
            for page in frame.pages where !page.isOpaque {
                let bytes = Array(frame.bytes[page.range])
                if page.isHeader {
                    headers.append(bytes)
                } else {
                    pages.append((bytes, page.startMilliseconds, page.endMilliseconds))
                    pagesBytes += bytes.count
                    lastEndMilliseconds = page.endMilliseconds
                }
            }
            while pagesBytes > capacityBytes, let first = pages.first {
                pages.removeFirst()
                pagesBytes -= first.bytes.count
                droppedBytes += first.bytes.count
            }
        }
        return droppedBytes - droppedBefore
    }

    /// Forgets the audio up to `milliseconds` of task audio (a sentence ended there).
    mutating func trim(throughMilliseconds milliseconds: Int) {
        switch format {
        case .pcm:
            let target = byte(ofMilliseconds: milliseconds)
            dropPCM(max(0, min(target - pcmStartByte, pcm.count)))
        case .opus:
            while let first = pages.first, first.end <= milliseconds {
                pages.removeFirst()
                pagesBytes -= first.bytes.count
            }
        }
    }

    /// The kept audio as binary frames for a new task, each with the ms of audio it holds: PCM in
    /// `frameBytes` pieces; Ogg as the header pages and then the kept pages, renumbered, grouped into frames
    /// of at least `frameMilliseconds`.
    func replayFrames(frameBytes: Int, frameMilliseconds: Int) -> [(bytes: [UInt8], milliseconds: Int)] {
        switch format {
        case .pcm:
            return stride(from: 0, to: pcm.count, by: frameBytes).map {
                let end = min($0 + frameBytes, pcm.count)
                return (Array(pcm[$0..<end]), milliseconds(ofByte: end - $0))
            }
        case .opus:
            guard !pages.isEmpty else { return [] }
            var sequence: UInt32 = 0
            var frames: [(bytes: [UInt8], milliseconds: Int)] = []
            var current: [UInt8] = []
            for header in headers {
                current += OggPage.renumbered(header[...], sequence: sequence)
                sequence += 1
            }
            var frameStart = pages[0].start
            for page in pages {
                current += OggPage.renumbered(page.bytes[...], sequence: sequence)
                sequence += 1
                if page.end - frameStart >= frameMilliseconds {
                    frames.append((current, page.end - frameStart))
                    current = []
                    frameStart = page.end
                }
            }
            if !current.isEmpty { frames.append((current, lastEndMilliseconds - frameStart)) }
            return frames
        }
    }

    /// Forgets everything (a new task).
    mutating func reset() {
        pcm.removeAll(keepingCapacity: true)
        pcmStartByte = 0
        headers.removeAll()
        pages.removeAll()
        pagesBytes = 0
        lastEndMilliseconds = 0
        droppedBytes = 0
    }

    private mutating func dropPCM(_ count: Int) {
        guard count > 0 else { return }
        pcm.removeFirst(count)
        pcmStartByte += count
    }

    private func milliseconds(ofByte byte: Int) -> Int { (byte / 2) * 1000 / sampleRate }
    private func byte(ofMilliseconds ms: Int) -> Int { (ms * sampleRate / 1000) * 2 }
}
