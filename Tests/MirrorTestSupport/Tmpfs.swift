import Foundation

/// A small tmpfs, where a store meets a real ENOSPC.
public enum Tmpfs {
    /// Whether this process may mount one: CAP_SYS_ADMIN, root in CI.
    public static let canMount: Bool = {
        guard getuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("tmpfs-probe-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: probe) }
        guard (try? runProgramBlocking("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe]))?.status == 0 else { return false }
        _ = try? runProgramBlocking("/bin/umount", [probe])
        return true
    }()
}

extension Tmpfs {
    /// Mounts a tmpfs of `size` (such as `1m`) at `path`, creating the directory; whether it mounted.
    public static func mount(at path: String, size: String) async throws -> Bool {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return try await runProgram("/bin/mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path]).status == 0
    }

    /// Gives the tmpfs at `path` another size (room again after a full disk); whether it did.
    public static func resize(_ path: String, to size: String) async throws -> Bool {
        try await runProgram("/bin/mount", ["-o", "remount,size=\(size)", path]).status == 0
    }

    /// Unmounts it lazily: a process still holding a file there does not keep it mounted.
    public static func unmount(_ path: String) {
        _ = try? runProgramBlocking("/bin/umount", ["-l", path])
    }
}
