import Foundation

extension PostgreSQLServer {
    /// Sends `signal` to the server's postmaster and every process it started
    /// (SIGSTOP: a server that hangs, accepting nothing and answering nothing).
    public func signalAll(_ signal: Int32) throws {
        let pidFile = try String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8)
        guard let postmaster = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }) else {
            throw TestServerError("no postmaster pid in \(dataDirectory)/postmaster.pid")
        }
        kill(postmaster, signal)
        for child in Self.children(of: postmaster) { kill(child, signal) }
    }

    /// The processes whose parent is `parent`, from /proc.
    static func children(of parent: Int32) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After "pid (comm)": the state, then the parent's pid.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == parent ? pid : nil
        }
    }
}
