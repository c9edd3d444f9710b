#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// A POSIX thread that can be joined: `Foundation.Thread` is always detached, so an owner that stops its thread
/// cannot wait for it to be gone, and what the thread's closure holds outlives the owner by up to one poll (a
/// program exiting right after `nui_release` ended inside that window, and LeakSanitizer saw the closure's weak
/// reference as a leak). Linux and Darwin (`pthread_create`, `pthread_join`, `pthread_detach`).
///
/// Create it, then ``join()`` from any other thread once the body has been told to return; a ``join()`` from the
/// thread itself (an owner released inside its own callback) detaches it instead. Not real-time safe.
package final class JoinableThread: Sendable {
    private final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    /// The thread's key (``currentThreadKey()``) until the first ``join()`` or the deinit takes it.
    private let handle = Atomic<UInt>(0)
    /// The same key for ``isCurrent``: kept while a ``join()`` from another thread waits (the thread still runs
    /// then and must still recognise itself), cleared once that join returned (the key may name a new thread then).
    private let key = Atomic<UInt>(0)

    /// Starts `body` on a new thread named `name` (Linux keeps its first 15 bytes).
    /// - Returns: nil when the system refuses a thread (`pthread_create` failed).
    package init?(name: String, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(name: name, run: body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        let status = pthread_create(&thread, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context).takeRetainedValue()
            Thread.current.name = body.name
            body.run()
            return nil
        }, context)
        guard status == 0, let thread else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        handle.store(UInt(bitPattern: thread), ordering: .releasing)
        key.store(UInt(bitPattern: thread), ordering: .releasing)
        #else
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            Thread.current.name = body.name // Glibc's pthread_setname_np is not visible to Swift; Foundation calls it
            body.run()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        handle.store(UInt(thread), ordering: .releasing)
        key.store(UInt(thread), ordering: .releasing)
        #endif
    }

    /// Whether the caller is this thread: known once init has returned (the body may run before that; an owner
    /// that asks from the body starts it under a lock the body takes first, as `EventPump` does) and until a
    /// join from another thread has returned. Any thread.
    package var isCurrent: Bool {
        let key = key.load(ordering: .acquiring)
        return key != 0 && key == currentThreadKey()
    }

    /// Waits until the thread has returned (its body and everything it captured released); from the thread
    /// itself, detaches it. Later calls do nothing.
    package func join() { end(waiting: true) }

    /// Never waits: an object released without ``join()`` leaves its thread detached.
    deinit { end(waiting: false) }

    private func end(waiting: Bool) {
        let key = handle.exchange(0, ordering: .acquiringAndReleasing)
        guard key != 0 else { return }
        #if canImport(Darwin)
        let thread = pthread_t(bitPattern: key)!
        #else
        let thread = pthread_t(key)
        #endif
        if waiting && key != currentThreadKey() {
            pthread_join(thread, nil)
            self.key.store(0, ordering: .releasing)
        } else {
            pthread_detach(thread)
        }
    }
}
