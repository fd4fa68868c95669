import Foundation

/// Real git behind real HTTP on loopback: `git http-backend` (smart HTTP,
/// protocol v2 when the client asks with `Git-Protocol`) under the CGI bridge
/// the benchmarks run too (Tests/git-http-backend.py), on an ephemeral port of
/// 127.0.0.1. Serves every repository under `root`, with `uploadpack.allowFilter`
/// as the server's configuration. Each request's `Authorization` header (or `-`)
/// is appended to `authorizationLog`, so a test can see what the server was sent.
public final class GitHTTPServer: Sendable {
    public let port: Int
    public let authorizationLog: String
    private let process: ChildProcess

    /// How the bridge departs from plain `git http-backend`, to test failures.
    public struct Faults: Sendable {
        /// Answer every request with a 302 to this origin (same path).
        public var redirectTo: String?
        /// Do not pass `Git-Protocol` on: git then answers with protocol v0.
        public var protocolV0Only = false
        /// Answer 401 unless `Authorization` is exactly this.
        public var requiredAuthorization: String?
        /// Cut the response to `fetch` (the pack) in half.
        public var truncatePack = false

        public init() {}
    }

    public init(root: String, scratch: TemporaryDirectory, faults: Faults = Faults()) async throws {
        let script = PackagePaths.packageRoot.appendingPathComponent("Tests/git-http-backend.py").path
        authorizationLog = scratch.path("authorization.log")
        var environment = ["AUTH_LOG": authorizationLog, "BRIDGE_SCRATCH": scratch.path("."), "HOME": scratch.path(".")]
        if let redirectTo = faults.redirectTo { environment["REDIRECT_TO"] = redirectTo }
        if faults.protocolV0Only { environment["PROTOCOL_V0_ONLY"] = "1" }
        if let required = faults.requiredAuthorization { environment["REQUIRED_AUTHORIZATION"] = required }
        if faults.truncatePack { environment["TRUNCATE_PACK"] = "1" }
        process = try ChildProcess(
            "/usr/bin/python3", [script, root], environment: Executables.environment(environment), stdout: .pipe,
            stderr: .file(scratch.path("bridge.stderr")))
        // The bridge prints its port once it listens.
        let output = process.output!
        let line = try await onThread { () -> String in
            var bytes: [UInt8] = []
            while let byte = try output.read(upToCount: 1)?.first, byte != 0x0A { bytes.append(byte) }
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let port = Int(line) else {
            process.kill()
            throw ChildProcessError.spawn("git-http-backend.py: no port (\(line))", 0)
        }
        self.port = port
    }

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// What the server was sent as `Authorization`, one entry per request (`-` for none).
    public func receivedAuthorizations() -> [String] {
        ((try? String(contentsOfFile: authorizationLog, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    public func stop() {
        process.kill()
    }

    deinit { process.kill() }
}
