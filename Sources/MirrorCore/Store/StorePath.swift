import Foundation

/// Where the store lives: an explicit path, else `$COMMITS_DB`, else
/// `$XDG_DATA_HOME/commits-mirror/commits.sqlite` (`~/.local/share/...`).
public enum StorePath {
    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let fromEnvironment = environment["COMMITS_DB"], !fromEnvironment.isEmpty { return fromEnvironment }
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return dataHome + "/commits-mirror/commits.sqlite"
    }

    /// Creates the store's directory (and parents) if missing.
    public static func createDirectory(for path: String) throws {
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

    /// False when the store's directory exists but this user may not create files in it.
    static func isDirectoryWritable(for path: String) -> Bool {
        let directory = directory(of: path)
        guard FileManager.default.fileExists(atPath: directory) else { return true }
        return access(directory, W_OK) == 0
    }
}
