import Foundation

/// Where the store lives: an explicit path, else `$COMMITS_DB`, else
/// `$XDG_DATA_HOME/commits-mirror/commits.sqlite` (`~/.local/share/...`).
public enum StorePath {
    public static func resolve(explicit: String?, environment: EnvironmentVariables = .process) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let fromEnvironment = environment.nonEmpty("COMMITS_DB") { return fromEnvironment }
        let dataHome = environment.nonEmpty("XDG_DATA_HOME") ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return dataHome + "/commits-mirror/commits.sqlite"
    }

    /// Throws `StoreError.databaseURL` for `scheme://…` (`postgresql://host/db`):
    /// taken as a path, it would create a directory `postgresql:` and a store in it.
    public static func refuseURL(_ path: String) throws {
        guard let separator = path.range(of: "://") else { return }
        let scheme = path[..<separator.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return }
        throw StoreError.databaseURL(scheme: String(scheme))
    }

    /// Creates the store's directory (and parents) if missing.
    public static func createDirectory(for path: String) throws {
        try refuseURL(path)
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw StoreError.cannotCreateDirectory(directory.path, reason: (error as NSError).localizedDescription)
        }
    }

    /// The directory holding the store (where SQLite keeps `-wal` and `-shm`).
    public static func directory(of path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().path
    }

    /// Whether the store file exists. A path this user may not look at (an
    /// unsearchable directory, an unreadable file or side file) is an error
    /// naming it, never "no store".
    public static func exists(_ path: String) throws -> Bool {
        var info = stat()
        if stat(path, &info) != 0 {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return false }
            if code == EACCES {
                throw StoreError.permissionDenied(path: path, blocked: firstUnsearchable(along: path) ?? directory(of: path))
            }
            return false
        }
        if access(path, R_OK) != 0 { throw StoreError.permissionDenied(path: path, blocked: path) }
        // SQLite reads the WAL side files too; one this user cannot read fails the open.
        for side in [path + "-wal", path + "-shm"] where access(side, F_OK) == 0 && access(side, R_OK) != 0 {
            throw StoreError.permissionDenied(path: path, blocked: side)
        }
        return true
    }

    /// The first directory on the way to `path` this user may not search (x), if any.
    static func firstUnsearchable(along path: String) -> String? {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in directory(of: path).split(separator: "/") {
            prefix += "/" + component
            if access(prefix, X_OK) != 0 { return prefix }
        }
        return nil
    }

    /// Whether both WAL side files (`-wal`, `-shm`) are there.
    package static func hasSideFiles(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path + "-wal") && FileManager.default.fileExists(atPath: path + "-shm")
    }

    /// False when the store's directory exists but this user may not create files in it.
    package static func isDirectoryWritable(for path: String) -> Bool {
        let directory = directory(of: path)
        guard FileManager.default.fileExists(atPath: directory) else { return true }
        return access(directory, W_OK) == 0
    }
}
