import Synchronization

/// The reference (far-end) signal at the processing rate, kept by absolute sample position.
///
/// The producer (the reference push thread) always appends, overwriting the oldest samples once the window is
/// full: reference overflow drops the oldest. The consumer (the processing thread) reads any position range:
/// positions not yet written read as silence (counted as missing), positions already overwritten before they
/// were used read as silence (counted as dropped). One producer thread, one consumer thread; real-time safe.
final class ReferenceHistory: @unchecked Sendable {
    // Invariant for @unchecked Sendable (a seqlock over positions): before the producer overwrites slots it
    // announces how far it will write (`reserved`, then a release fence); it publishes the samples by storing
    // `written`. The consumer copies slots before `written`, then fences (acquire) and reads `reserved`, and
    // discards every slot the producer may have overwritten meanwhile (positions older than reserved − capacity).
    // Without the announcement a slot overwritten during the copy passed the re-check of `written` (which the
    // producer had not moved yet); without the fences the copy's loads may move past the re-check on ARM64.
    private let storage: UnsafeMutablePointer<Int16>
    private let mask: Int
    let capacity: Int
    private let written = Atomic<Int>(0)
    /// The end of what the producer writes or has written: ≥ `written`; set before any slot is overwritten.
    private let reserved = Atomic<Int>(0)
    /// The end of the last range skipped by ``advance(to:)``: silence, not reference, so never counted dropped.
    private let skippedTo = Atomic<Int>(0)
    private var consumedUpTo = 0
    /// Samples the consumer asked for that had not arrived yet (consumer thread).
    private(set) var missingCount = 0
    /// Whether reads count missing samples: off while the app says nothing plays (no reference is expected
    /// then). Consumer thread.
    var countsMissing = true
    /// Samples overwritten before the consumer used them (consumer thread).
    private(set) var droppedCount = 0

    /// Reads in a row that found the reference still arriving but behind them (consumer thread): see
    /// ``lateReadsBeforeRealign``.
    private var lateReads = 0
    /// `written` at the consumer's previous accounting read (consumer thread).
    private var writtenAtLastRead = 0
    /// How far behind the first read of the current run found the reference (consumer thread).
    private var runShortfall = 0
    /// Whether a read has found the reference on time since the stream started or resumed after a stall
    /// (consumer thread): a stream that has been on time and then falls behind is a push thread scheduled late,
    /// and is never re-anchored (see ``lateReadsBeforeRealign``).
    private var onTimeSinceStart = false
    /// Reads in a row that waited for a reference that did not advance (consumer thread): a stall that long ends
    /// the stream; what comes after it starts a new one.
    private var stalledReads = 0
    /// How far behind a read the reference may be without counting as late (consumer thread): while the delay is
    /// still being estimated the consumer sets the reach of its estimator, which sees a reference that far behind
    /// and whose estimate, once there, moves the reads back over it.
    var lateTolerance = 0
    /// The end of the consumer's latest accounting read (consumer → producer).
    private let readEnd = Atomic<Int>(0)
    /// The consumer's own stream position (the mic samples it has processed; consumer → producer): where a
    /// play_start brings a lagging reference (``requestResync()``).
    private let consumerPosition = Atomic<Int>(0)
    /// Re-anchorings asked of the producer (``Reanchor`` bits), carried out at its next append: one mechanism for
    /// the two triggers, the consumer finding the reference late and the app's play_start hint.
    private let reanchorRequests = Atomic<Int>(0)
    /// How far the stream may lag ``consumerPosition`` at a play_start before it is moved there, samples.
    let resyncLag: Int
    /// Whether the producer has appended a sample yet (producer thread): see ``anchorFirstSample(at:)``.
    private(set) var hasAppended = false

    /// What the producer is asked to do at its next append (bits of ``reanchorRequests``).
    private enum Reanchor {
        /// play_start: move the stream to the consumer's position when it lags by more than ``resyncLag``.
        static let toConsumer = 1
        /// The reads found it late (``lateReadsBeforeRealign``): move it to where the consumer reads next.
        static let toReadEnd = 2
    }

    /// How many reads in a row may find the reference behind them (by more than ``lateTolerance``), while it
    /// keeps arriving, before the stream is re-anchored (200 ms of 10 ms frames).
    ///
    /// Reference is placed by sample count, so a stream that starts after the mic (one resumed after a stall
    /// without a play_start hint; a first sample whose producer did not anchor it with ``anchorFirstSample(at:)``)
    /// stays behind by that late start for good: with an echo path shorter than the alignment's margin every read
    /// then finds silence and nothing is cancelled. Such a stream is moved forward, with silence over what was
    /// already read, so that its next sample lands where the consumer reads next: the smallest move that ends the
    /// shortfall. A stream that stops (a stall, nothing played) does not count — reads count only while `written`
    /// advances — and one that catches up (a stalled thread pushing what it owed) resets the count: its samples are where
    /// they belong. So does a lag that keeps changing (by more than two reads' length from the run's first): a
    /// thread running slower or faster than the mic for a while is scheduling, and re-anchoring it would move the
    /// reference later for good each time (two push threads at 20x speed on a loaded machine did that until the
    /// echo came before its reference). A late start lags by a constant, and from its first sample: a stream that
    /// was on time once is not re-anchored until it stalls for as long again (a reference thread steadily a push
    /// behind the mic on a loaded machine ratcheted the reference later at every run of 20 reads: the C program's
    /// ERLE fell from 30 to 10.6 dB at load 16). 200 ms is ten times a scheduling hiccup and costs a fifth of a
    /// second of echo at a late start.
    static let lateReadsBeforeRealign = 20

    /// - Parameters:
    ///   - minimumCapacity: the window, samples (rounded up to a power of two).
    ///   - resyncLag: how far the stream may lag the consumer's position at a play_start before
    ///     ``requestResync()`` moves it there, samples.
    init(minimumCapacity: Int, resyncLag: Int = .max) {
        self.resyncLag = resyncLag
        var capacity = 1
        while capacity < minimumCapacity { capacity <<= 1 }
        self.capacity = capacity
        mask = capacity - 1
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
    }

    deinit { storage.deallocate() }

    /// Samples appended so far: the position of the next sample. Either thread.
    var writePosition: Int { written.load(ordering: .acquiring) }

    /// Publishes the consumer's stream position (the mic samples processed so far), where a play_start brings a
    /// lagging reference. Consumer thread; real-time safe.
    func publishConsumerPosition(_ position: Int) { consumerPosition.store(position, ordering: .releasing) }

    /// The app's play_start hint: before its next samples the producer moves the stream, with silence, to the
    /// consumer's position if it lags that by more than ``resyncLag`` (the app pushed no reference while nothing
    /// played, so the stream lags the mic by the gap; one that kept pushing silence lags by scheduling jitter only
    /// and keeps its alignment). The same re-anchoring the late-reads detection asks for, without its 200 ms of
    /// evidence. Any thread; real-time safe.
    func requestResync() { reanchorRequests.bitwiseOr(Reanchor.toConsumer, ordering: .acquiringAndReleasing) }

    /// Before the stream's first sample only (a no-op after it): moves the write position, with silence, to
    /// `position`, the mic's position when that sample is played, so that it lands beside the mic it is heard in.
    ///
    /// A stream has no alignment to keep before its first sample, and one that starts after the mic would
    /// otherwise start at 0, behind the mic by its late start: every read finds its reference not there yet
    /// (counted missing, nothing cancelled) until the late reads re-anchor it, after the delay estimator's lock and
    /// ``lateReadsBeforeRealign`` reads (0.5-0.8 s). A NeoNui dialog that starts between a player's reference push
    /// and its device write takes that buffer's mic without its reference: the next reference is the next
    /// buffer, and belongs one buffer after the mic's start. Producer thread; real-time safe.
    func anchorFirstSample(at position: Int) {
        guard !hasAppended else { return }
        advance(to: position)
    }

    /// Appends samples, after the re-anchorings asked for. Producer thread; real-time safe.
    func append(_ samples: UnsafeBufferPointer<Int16>) {
        guard let source = samples.baseAddress, !samples.isEmpty else { return }
        hasAppended = true
        if reanchorRequests.load(ordering: .relaxed) != 0 {
            reanchor(reanchorRequests.exchange(0, ordering: .acquiringAndReleasing))
        }
        var w = written.load(ordering: .relaxed)
        var offset = 0
        var remaining = samples.count
        if remaining > capacity { // only the newest `capacity` samples can be kept
            offset = remaining - capacity
            w += offset
            remaining = capacity
        }
        announce(w + remaining)
        while remaining > 0 {
            let start = w & mask
            let n = min(remaining, capacity - start)
            (storage + start).update(from: source + offset, count: n)
            offset += n
            w += n
            remaining -= n
        }
        written.store(w, ordering: .releasing)
    }

    /// Carries out the re-anchorings in `requests` (``Reanchor`` bits): the play_start's first, then the late
    /// reads' (a no-op when the first already moved the stream past the reads). Producer thread; real-time safe.
    private func reanchor(_ requests: Int) {
        if requests & Reanchor.toConsumer != 0 {
            let target = consumerPosition.load(ordering: .acquiring)
            if target - written.load(ordering: .relaxed) > resyncLag { advance(to: target) }
        }
        if requests & Reanchor.toReadEnd != 0 { advance(to: readEnd.load(ordering: .acquiring)) }
    }

    /// Moves the write position forward to `position` (no-op when already there), the skipped positions
    /// reading as silence: the reference stream resumes at `position`. Producer thread; real-time safe.
    func advance(to position: Int) {
        let w = written.load(ordering: .relaxed)
        guard position > w else { return }
        // Silence over the skipped slots (at most the whole ring), then publish the new position.
        announce(position)
        var p = max(w, position - capacity)
        while p < position {
            let start = p & mask
            let n = min(position - p, capacity - start)
            (storage + start).update(repeating: 0, count: n)
            p += n
        }
        skippedTo.store(position, ordering: .relaxed)
        written.store(position, ordering: .releasing)
    }

    /// Announces that slots up to `end` are about to be written: the release fence keeps the slot stores after it.
    private func announce(_ end: Int) {
        reserved.store(end, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
    }

    /// Copies positions `position ..< position + destination.count` into `destination`; positions not available
    /// read as zero. Marks everything before the end of the range as consumed. Consumer thread; real-time safe.
    func read(from position: Int, into destination: UnsafeMutableBufferPointer<Int16>) {
        copy(from: position, into: destination, accounting: true)
    }

    /// Like ``read(from:into:)`` but changes no counter and marks nothing consumed (for analysis). Consumer thread.
    func peek(from position: Int, into destination: UnsafeMutableBufferPointer<Int16>) {
        copy(from: position, into: destination, accounting: false)
    }

    private func copy(from position: Int, into destination: UnsafeMutableBufferPointer<Int16>, accounting: Bool) {
        let count = destination.count
        guard let target = destination.baseAddress, count > 0 else { return }
        let end = position + count
        let before = written.load(ordering: .acquiring)
        // Copy what exists now.
        let availableStart = max(position, before - capacity, 0) // positions before the stream's start are silence
        let availableEnd = min(end, before)
        if availableStart < availableEnd {
            var p = availableStart
            while p < availableEnd {
                let start = p & mask
                let n = min(availableEnd - p, capacity - start)
                (target + (p - position)).update(from: storage + start, count: n)
                p += n
            }
        }
        // Zero what was not there, and what the producer may have overwritten during the copy (the fence keeps
        // the copy's loads before the load of `reserved`).
        atomicMemoryFence(ordering: .acquiring)
        let after = reserved.load(ordering: .relaxed)
        let validStart = max(availableStart, after - capacity)
        zero(target, from: 0, to: max(0, min(count, validStart - position)))
        zero(target, from: max(0, availableEnd - position), to: count)
        guard accounting else { return }
        noteLateness(readEnd: end, written: before, readLength: count)
        consumedUpTo = max(consumedUpTo, skippedTo.load(ordering: .relaxed))
        // Before the first reference sample nothing is missing: the app plays nothing yet, or never pushes one.
        if end > before && countsMissing && before > 0 { missingCount += end - max(position, before, 0) }
        // Count reference that was overwritten before anyone used it.
        let lostEnd = min(end, after - capacity)
        if lostEnd > consumedUpTo { droppedCount += lostEnd - consumedUpTo }
        consumedUpTo = max(consumedUpTo, min(end, before))
    }

    /// Counts reads that found the reference arriving but behind them, and asks the producer to re-anchor the
    /// stream after ``lateReadsBeforeRealign`` in a row. Consumer thread; real-time safe.
    private func noteLateness(readEnd end: Int, written: Int, readLength: Int) {
        readEnd.store(end, ordering: .releasing)
        defer { writtenAtLastRead = written }
        let shortfall = end - written
        guard shortfall > lateTolerance else {
            lateReads = 0
            stalledReads = 0
            if written > 0 && shortfall <= 0 { onTimeSinceStart = true } // all there: within the tolerance is not on time
            return
        }
        guard written > writtenAtLastRead else { // a stall or no reference at all: not a late stream
            stalledReads += 1
            if stalledReads >= Self.lateReadsBeforeRealign { onTimeSinceStart = false; lateReads = 0 }
            return
        }
        stalledReads = 0
        guard !onTimeSinceStart else { lateReads = 0; return } // scheduling, not a late start
        if lateReads > 0 && abs(shortfall - runShortfall) > 2 * readLength { lateReads = 0 } // a changing lag
        if lateReads == 0 { runShortfall = shortfall }
        lateReads += 1
        if lateReads >= Self.lateReadsBeforeRealign {
            lateReads = 0
            reanchorRequests.bitwiseOr(Reanchor.toReadEnd, ordering: .releasing)
        }
    }

    private func zero(_ target: UnsafeMutablePointer<Int16>, from: Int, to: Int) {
        if to > from { (target + from).update(repeating: 0, count: to - from) }
    }
}
