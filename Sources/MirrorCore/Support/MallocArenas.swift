import CMalloc
import Foundation
import Synchronization

/// glibc gives threads that allocate at the same time arenas of their own (up
/// to eight a core), and memory freed in an arena stays with it. A long sync
/// hands work between threads (libcurl's, the pack reader's, the store's), so
/// every arena keeps its own high-water mark and the process's resident
/// memory climbs with the work done: measured here, a first sync of 1,000,000
/// commits over git peaked at 68 MB with glibc's default and 59 MB with two
/// arenas, in the same time. The executables call this first.
public enum MallocArenas {
    public static let defaultLimit: Int32 = 2

    /// Limits the arenas to `count`, unless the operator chose with `MALLOC_ARENA_MAX`.
    public static func limit(to count: Int32 = defaultLimit) {
        guard getenv("MALLOC_ARENA_MAX") == nil else { return }
        _ = cmalloc_set_arena_max(count)
    }

    /// Hands the free pages inside the arenas back to the system (glibc's
    /// `malloc_trim`). A daemon syncing thousands of small repositories frees
    /// most of what each sync allocated, but in pieces between live ones, which
    /// `free` does not return, so its anonymous memory grows to about twice its
    /// heap (docs/MEASURED-REASONS.md, "Measured reasons: memory and
    /// checkpoints"). Costs a walk of the free lists: call it now and then, not after every sync.
    public static func trim() {
        _ = cmalloc_trim()
    }

    /// `trim()`, unless the last trim through here was less than `interval` ago:
    /// for loops that finish work often (a daemon after each sync), whichever loop it is.
    /// Whether it trimmed.
    @discardableResult
    public static func trim(atMostEvery interval: Duration) -> Bool {
        let due = lastTrim.withLock { last in
            let now = ContinuousClock.now
            guard last.map({ now - $0 >= interval }) ?? true else { return false }
            last = now
            return true
        }
        if due { trim() }
        return due
    }

    private static let lastTrim = Mutex<ContinuousClock.Instant?>(nil)
}
