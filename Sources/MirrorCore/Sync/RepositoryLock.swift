import Foundation

/// One writer per repository: an exclusive `flock(2)` on a lock file beside the
/// store (`<store>.locks/<owner>+<name>.lock`), taken before syncing or
/// importing a repository and held until done.
///
/// The second writer does not wait: `acquire` throws `RepositoryLockError.busy`
/// at once, naming the holder, and the caller skips that repository (the service
/// tries again on its next interval; a one-shot run reports it). The
/// kernel drops the lock when its holder exits, however it exits, so a crashed
/// or killed writer never leaves a stale lock behind.
public final class RepositoryLock {
    public let path: String
    private var descriptor: Int32
    /// A database store's claim (PostgreSQL: an advisory lock), instead of a file.
    private var claim: (any RepositoryClaim)?

    private init(path: String, descriptor: Int32, claim: (any RepositoryClaim)? = nil) {
        self.path = path
        self.descriptor = descriptor
        self.claim = claim
    }

    /// The claim's fenced writer when the claim is a database's (`RepositoryClaim.openWriter`), else `nil`.
    public func openClaimWriter() throws -> (any MirrorWriter)? {
        try claim?.openWriter()
    }

    /// The lock file for `repository` beside the store's file (names are case-insensitive).
    public static func lockPath(store: StoreLocation, repository: RepositoryName) -> String {
        "\(store.sqlitePath ?? store.description).locks/\(repository.owner.lowercased())+\(repository.name.lowercased()).lock"
    }

    /// Takes the lock or throws `RepositoryLockError.busy` when another writer holds it.
    /// `holder` is recorded in the file for the other side's message (e.g. the service's name).
    public static func acquire(
        store: StoreLocation, repository: RepositoryName,
        holder: String = ProcessInfo.processInfo.processName
    ) throws -> RepositoryLock {
        switch try store.claimInDatabase(repository: repository, holder: holder) {
        case .held(let claim): return RepositoryLock(path: store.description, descriptor: -1, claim: claim)
        case .busy: throw RepositoryLockError.busy(repository: repository, holder: nil)
        case .notADatabase: break
        }
        let path = lockPath(store: store, repository: repository)
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw RepositoryLockError.unavailable(path: directory, reason: (error as NSError).localizedDescription)
        }
        let descriptor = try lockedDescriptor(path: path, repository: repository)
        let record = "\(getpid()) \(holder)\n"
        if ftruncate(descriptor, 0) == 0 {
            _ = record.withCString { pwrite(descriptor, $0, strlen($0), 0) }
        }
        return RepositoryLock(path: path, descriptor: descriptor)
    }

    /// Opens and locks the file at `path`. A lock file is deleted (by
    /// `removeLockFile`) only while locked, so a lock taken on a file that was
    /// deleted meanwhile guards nothing: it is dropped and the current file locked.
    private static func lockedDescriptor(path: String, repository: RepositoryName) throws -> Int32 {
        while true {
            var descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o664)
            if descriptor < 0 && errno == EACCES {
                // flock works on a read-only descriptor; we just cannot record who we are.
                descriptor = open(path, O_RDONLY | O_CLOEXEC)
            }
            guard descriptor >= 0 else {
                throw RepositoryLockError.unavailable(path: path, reason: String(cString: strerror(errno)))
            }
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                if errno == EINTR { continue }
                let reason = errno
                let current = Self.readHolder(descriptor)
                close(descriptor)
                if reason == EWOULDBLOCK {
                    throw RepositoryLockError.busy(repository: repository, holder: current)
                }
                throw RepositoryLockError.unavailable(path: path, reason: String(cString: strerror(reason)))
            }
            var held = stat()
            var named = stat()
            if fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev {
                return descriptor
            }
            close(descriptor)
        }
    }

    /// Deletes the lock file of a repository no longer mirrored, so lock files do
    /// not accumulate. Only when no one holds it (a writer busy with it keeps its
    /// file; the next removal takes it); a missing file is fine.
    public static func removeLockFile(store: StoreLocation, repository: RepositoryName) {
        guard store.sqlitePath != nil else { return }
        let path = lockPath(store: store, repository: repository)
        let descriptor = open(path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return }
        var held = stat()
        var named = stat()
        // Unlinked while still locked: whoever opened it before sees a deleted inode and retries.
        if fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino, held.st_dev == named.st_dev {
            unlink(path)
        }
        flock(descriptor, LOCK_UN)
    }

    /// Releases the lock (also done on deinit and, by the kernel, on exit).
    public func release() {
        claim?.release()
        claim = nil
        guard descriptor >= 0 else { return }
        _ = ftruncate(descriptor, 0)
        flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }

    private static func readHolder(_ descriptor: Int32) -> String? {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = text.split(separator: " ", maxSplits: 1)
        guard let pid = parts.first.flatMap({ Int32($0) }) else { return nil }
        return parts.count > 1 ? "\(parts[1]) (pid \(pid))" : "pid \(pid)"
    }
}

@available(*, unavailable)
extension RepositoryLock: Sendable {}

public enum RepositoryLockError: Error, Sendable, CustomStringConvertible {
    /// Another process is syncing or importing the repository right now.
    case busy(repository: RepositoryName, holder: String?)
    case unavailable(path: String, reason: String)

    public var description: String {
        switch self {
        case .busy(let repository, let holder):
            return
                "\(repository) is being synced by another process (\(holder ?? "holder unknown")) right now; skipped it, try again when that finishes"
        case .unavailable(let path, let reason):
            return "cannot use the lock file \(path): \(reason); the store's directory must be writable"
        }
    }
}
