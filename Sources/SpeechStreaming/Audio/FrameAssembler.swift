/// One binary WebSocket frame of audio, and for Ogg Opus the pages it holds.
struct AudioFrame {
    var bytes: [UInt8]
    /// The Ogg pages in `bytes` (empty for PCM).
    var pages: [PageInfo]
}

/// An Ogg page inside a frame: its byte range and the audio time it covers.
struct PageInfo: Equatable {
    var range: Range<Int>
    var startMilliseconds: Int
    var endMilliseconds: Int
    /// OpusHead or OpusTags (granule 0 before any audio page).
    var isHeader: Bool
    /// Bytes that did not parse as an Ogg page; sent, never replayed.
    var isOpaque: Bool
}

/// Cuts the caller's audio into binary frames of about ``ConnectionOptions/frameDuration``: PCM into
/// frames of exactly that many bytes, Ogg Opus into groups of whole pages lasting at least that long.
///
/// Network thread only. It allocates (the frames it returns); it never runs on the audio thread.
struct FrameAssembler {
    enum Framing: Equatable {
        case pcm(frameBytes: Int)
        case ogg(frameMilliseconds: Int, maxBytes: Int)
    }

    let framing: Framing
    private var pending: [UInt8] = []
    private var head = 0
    /// Ogg: pages found in `pending[head...]` that are not in a frame yet (ranges index `pending`).
    private var pages: [PageInfo] = []
    private var scanOffset = 0
    private var preSkip = 0
    private var lastEndMilliseconds = 0
    private var sawAudioPage = false

    init(framing: Framing) { self.framing = framing }

    /// Bytes waiting to go out.
    var pendingBytes: Int { pending.count - head }

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        pending.append(contentsOf: bytes)
        if case .ogg = framing { scanPages() }
    }

    /// The next frame when enough audio is here, or, when `draining`, whatever is left.
    mutating func nextFrame(draining: Bool) -> AudioFrame? {
        switch framing {
        case .pcm(let frameBytes):
            let count = pendingBytes >= frameBytes ? frameBytes : (draining ? pendingBytes : 0)
            guard count > 0 else { return nil }
            let frame = AudioFrame(bytes: Array(pending[head..<head + count]), pages: [])
            head += count
            compact()
            return frame
        case .ogg(let frameMilliseconds, let maxBytes):
            if draining { flushInvalidTail() }
            guard let first = pages.first else { return nil }
            var count = 0
            var bytes = 0
            for page in pages {
                count += 1
                bytes += page.range.count
                if page.isOpaque || page.endMilliseconds - first.startMilliseconds >= frameMilliseconds
                    || bytes >= maxBytes { break }
            }
            let reachedEnd = count == pages.count
            let last = pages[count - 1]
            let full = last.isOpaque || last.endMilliseconds - first.startMilliseconds >= frameMilliseconds
                || bytes >= maxBytes
            guard full || (draining && reachedEnd) else { return nil }
            let start = first.range.lowerBound, end = last.range.upperBound
            let framePages = pages[0..<count].map {
                PageInfo(range: ($0.range.lowerBound - start)..<($0.range.upperBound - start),
                         startMilliseconds: $0.startMilliseconds, endMilliseconds: $0.endMilliseconds,
                         isHeader: $0.isHeader, isOpaque: $0.isOpaque)
            }
            let frame = AudioFrame(bytes: Array(pending[start..<end]), pages: framePages)
            pages.removeFirst(count)
            head = end
            compact()
            return frame
        }
    }

    /// Forgets everything pending (a new task).
    mutating func reset() {
        pending.removeAll(keepingCapacity: true)
        head = 0
        pages.removeAll()
        scanOffset = 0
        preSkip = 0
        lastEndMilliseconds = 0
        sawAudioPage = false
    }

    // MARK: Ogg

    private mutating func scanPages() {
        while scanOffset < pending.count {
            switch OggPage.scan(pending, at: scanOffset) {
            case .page(let length):
                addPage(scanOffset..<scanOffset + length)
                scanOffset += length
            case .incomplete:
                return
            case .invalid:
                // Not a page: everything up to the next capture pattern is sent as one opaque piece.
                var next = scanOffset + 1
                while next < pending.count, OggPage.scan(pending, at: next) == .invalid { next += 1 }
                addOpaque(scanOffset..<next)
                scanOffset = next
            }
        }
    }

    private mutating func addPage(_ range: Range<Int>) {
        let page = pending[range]
        let granule = OggPage.granule(page)
        if let skip = OggPage.opusPreSkip(page) { preSkip = skip }
        let isHeader = !sawAudioPage && granule == 0
        if !isHeader { sawAudioPage = true }
        let start = lastEndMilliseconds
        if granule >= 0 { lastEndMilliseconds = max(start, Int(max(0, granule - Int64(preSkip)) / 48)) }
        pages.append(PageInfo(range: range, startMilliseconds: start, endMilliseconds: lastEndMilliseconds,
                              isHeader: isHeader, isOpaque: false))
    }

    private mutating func addOpaque(_ range: Range<Int>) {
        pages.append(PageInfo(range: range, startMilliseconds: lastEndMilliseconds,
                              endMilliseconds: lastEndMilliseconds, isHeader: false, isOpaque: true))
    }

    /// At the end of the stream an incomplete page will never complete: send it as opaque bytes.
    private mutating func flushInvalidTail() {
        if scanOffset < pending.count {
            addOpaque(scanOffset..<pending.count)
            scanOffset = pending.count
        }
    }

    private mutating func compact() {
        guard head > 0, head >= pending.count / 2 || head == pending.count else { return }
        pending.removeFirst(head)
        for i in pages.indices { pages[i].range = (pages[i].range.lowerBound - head)..<(pages[i].range.upperBound - head) }
        scanOffset -= head
        head = 0
    }
}
