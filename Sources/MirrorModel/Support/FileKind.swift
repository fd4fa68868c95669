import Foundation

/// What is at a path, found with stat(2) alone. Nothing is opened: opening a
/// FIFO blocks until a writer appears, and a device or directory is never a
/// store or a configuration file. Symbolic links are followed.
public enum FileKind: Sendable, Equatable, CustomStringConvertible {
    case missing
    case regularFile(size: Int64)
    case directory
    case fifo
    case characterDevice
    case blockDevice
    case socket
    /// stat(2) failed for another reason (permission, a loop of links …): `errno`'s text.
    case unknown(reason: String)

    public static func of(_ path: String) -> FileKind {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            return code == ENOENT || code == ENOTDIR ? .missing : .unknown(reason: String(cString: strerror(code)))
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regularFile(size: Int64(info.st_size))
        case S_IFDIR: return .directory
        case S_IFIFO: return .fifo
        case S_IFCHR: return .characterDevice
        case S_IFBLK: return .blockDevice
        case S_IFSOCK: return .socket
        default: return .unknown(reason: "unknown file type")
        }
    }

    /// "a FIFO (named pipe)", for "PATH is …, not a store file".
    public var description: String {
        switch self {
        case .missing: return "missing"
        case .regularFile: return "a regular file"
        case .directory: return "a directory"
        case .fifo: return "a FIFO (named pipe)"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .socket: return "a socket"
        case .unknown(let reason): return "not usable (\(reason))"
        }
    }

    /// A directory, FIFO, device or socket: something that exists and is no file
    /// (`.unknown` is left to the open that follows, which reports it precisely).
    public var isSpecial: Bool {
        switch self {
        case .directory, .fifo, .characterDevice, .blockDevice, .socket: return true
        case .missing, .regularFile, .unknown: return false
        }
    }
}
