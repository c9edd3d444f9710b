import Foundation
import Synchronization

/// Hands the running dialog to the audio push paths without a lock: a push reads the dialog through
/// ``withDialog(_:)`` (two atomic operations, wait-free), and ``remove()`` on a control thread takes it out and
/// waits until no push is still inside (a push takes microseconds). Like read-copy-update with a reader count.
final class DialogSlot: Sendable {
    private let pointer = Atomic<UInt>(0)
    private let readers = Atomic<Int>(0)

    deinit { _ = remove() }

    /// Installs `dialog` (retained), replacing and returning the previous one. Control thread.
    @discardableResult
    func install(_ dialog: DialogAudio) -> DialogAudio? {
        let previous = remove()
        pointer.store(UInt(bitPattern: Unmanaged.passRetained(dialog).toOpaque()), ordering: .sequentiallyConsistent)
        return previous
    }

    /// Takes the dialog out; when this returns, no push uses it any more. Control thread (never from a push).
    @discardableResult
    func remove() -> DialogAudio? {
        let old = pointer.exchange(0, ordering: .sequentiallyConsistent)
        while readers.load(ordering: .sequentiallyConsistent) != 0 { sched_yield() }
        guard old != 0, let raw = UnsafeRawPointer(bitPattern: old) else { return nil }
        return Unmanaged<DialogAudio>.fromOpaque(raw).takeRetainedValue()
    }

    /// Takes `dialog` out if it is the one installed (atomically: a dialog installed meanwhile stays).
    /// Returns whether it was. Control thread.
    @discardableResult
    func remove(_ dialog: DialogAudio) -> Bool {
        let address = UInt(bitPattern: Unmanaged.passUnretained(dialog).toOpaque())
        guard pointer.compareExchange(expected: address, desired: 0, ordering: .sequentiallyConsistent).exchanged else {
            return false
        }
        while readers.load(ordering: .sequentiallyConsistent) != 0 { sched_yield() }
        Unmanaged<DialogAudio>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).release()
        return true
    }

    /// Runs `body` with the installed dialog, or returns nil when there is none. Real-time safe (no lock, no
    /// allocation, no reference counting of the dialog).
    func withDialog<R>(_ body: (DialogAudio) -> R) -> R? {
        readers.add(1, ordering: .sequentiallyConsistent)
        defer { readers.subtract(1, ordering: .sequentiallyConsistent) }
        let raw = pointer.load(ordering: .sequentiallyConsistent)
        guard raw != 0, let address = UnsafeRawPointer(bitPattern: raw) else { return nil }
        return Unmanaged<DialogAudio>.fromOpaque(address)._withUnsafeGuaranteedRef { body($0) }
    }
}
