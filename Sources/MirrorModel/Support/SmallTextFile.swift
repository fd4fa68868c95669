import Foundation

/// Reads a small text file a user named (a configuration, a mailmap) without
/// ever blocking or holding more than the limit: stat first (a FIFO would block
/// the open, a device never ends), open without blocking, and read at most one
/// byte past the limit, so a file that grew after the stat is still refused.
public enum SmallTextFile {
    /// Why the file could not be read, as a fact; callers say what they expected.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case missing
        /// A directory, FIFO, device or socket.
        case notAFile(FileKind)
        /// open(2) or read(2) failed: `errno`'s text.
        case unreadable(reason: String)
        case tooLarge(limit: Int)
        case notUTF8

        /// "does not exist", "is a FIFO (named pipe), not a regular file" …, to follow the path.
        public var description: String {
            switch self {
            case .missing: return "does not exist"
            case .notAFile(let kind): return "is \(kind), not a regular file"
            case .unreadable(let reason): return "cannot be read: \(reason)"
            case .tooLarge(let limit): return "is larger than \(SmallTextFile.sizeText(limit))"
            case .notUTF8: return "is not UTF-8 text"
            }
        }
    }

    public static func contents(of path: String, limit: Int) -> Result<String, Problem> {
        let kind = FileKind.of(path)
        switch kind {
        case .missing: return .failure(.missing)
        case .unknown(let reason): return .failure(.unreadable(reason: reason))
        case .regularFile(let size) where size > limit: return .failure(.tooLarge(limit: limit))
        case .regularFile: break
        default: return .failure(.notAFile(kind))
        }
        // O_NONBLOCK: a FIFO swapped in after the stat still cannot block the open.
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.unreadable(reason: String(cString: strerror(errno)))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .failure(.notAFile(FileKind.of(path))) }
        var data = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count < data.count {
            let got = data.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { return .failure(.unreadable(reason: String(cString: strerror(errno)))) }
            if got == 0 { break }
            count += got
        }
        guard count <= limit else { return .failure(.tooLarge(limit: limit)) }
        guard let text = String(validating: data[..<count], as: UTF8.self) else { return .failure(.notUTF8) }
        return .success(text)
    }

    /// "1 MiB", "64 KiB", "100 bytes".
    static func sizeText(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return "\(bytes) bytes"
    }
}
