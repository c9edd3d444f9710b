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

    /// The thread's key (``currentThreadKey()``); 0 once joined or detached.
    private let handle = Atomic<UInt>(0)

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
        #endif
    }

    /// Whether the caller is this thread.
    package var isCurrent: Bool {
        let key = handle.load(ordering: .acquiring)
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
        } else {
            pthread_detach(thread)
        }
    }
}
