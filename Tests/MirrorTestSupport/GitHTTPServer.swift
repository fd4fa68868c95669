import Foundation

/// Real git behind real HTTP on loopback: `git http-backend` (smart HTTP,
/// protocol v2 when the client asks with `Git-Protocol`) under a small CGI
/// bridge in python3, on an ephemeral port of 127.0.0.1. Serves every
/// repository under `root`, with `uploadpack.allowFilter` as the server's
/// configuration. Each request's `Authorization` header (or `-`) is appended
/// to `authorizationLog`, so a test can see what the server was sent.
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
        let script = try scratch.write("git-cgi-bridge.py", Self.bridge)
        authorizationLog = scratch.path("authorization.log")
        let globalConfig = try scratch.write("server.gitconfig", "[uploadpack]\n\tallowFilter = true\n[protocol]\n\tversion = 2\n")
        var environment = [
            "GIT_PROJECT_ROOT": root, "AUTH_LOG": authorizationLog, "GIT_CONFIG_GLOBAL": globalConfig,
            "GIT_CONFIG_NOSYSTEM": "1", "HOME": scratch.path("."),
        ]
        if let redirectTo = faults.redirectTo { environment["REDIRECT_TO"] = redirectTo }
        if faults.protocolV0Only { environment["PROTOCOL_V0_ONLY"] = "1" }
        if let required = faults.requiredAuthorization { environment["REQUIRED_AUTHORIZATION"] = required }
        if faults.truncatePack { environment["TRUNCATE_PACK"] = "1" }
        process = try ChildProcess(
            "/usr/bin/python3", [script], environment: Executables.environment(environment), stdout: .pipe,
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
            throw ChildProcessError.spawn("git-cgi-bridge.py: no port (\(line))", 0)
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

    private static let bridge = #"""
        import http.server, os, subprocess, sys

        class Bridge(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_any(self):
                with open(os.environ["AUTH_LOG"], "a") as log:
                    log.write(self.headers.get("Authorization", "-") + "\n")
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length) if length else b""
                redirect = os.environ.get("REDIRECT_TO")
                if redirect:
                    self.send_response(302)
                    self.send_header("Location", redirect + self.path)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                required = os.environ.get("REQUIRED_AUTHORIZATION")
                if required and self.headers.get("Authorization") != required:
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", 'Basic realm="git"')
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                path, _, query = self.path.partition("?")
                env = dict(os.environ)
                env.update({
                    "GATEWAY_INTERFACE": "CGI/1.1", "REQUEST_METHOD": self.command, "PATH_INFO": path,
                    "QUERY_STRING": query, "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                    "CONTENT_LENGTH": str(len(body)), "REMOTE_ADDR": "127.0.0.1", "GIT_HTTP_EXPORT_ALL": "1",
                })
                if self.headers.get("Git-Protocol") and not os.environ.get("PROTOCOL_V0_ONLY"):
                    env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
                result = subprocess.run(["git", "http-backend"], input=body, capture_output=True, env=env)
                head, _, payload = result.stdout.partition(b"\r\n\r\n")
                if not _:
                    head, _, payload = result.stdout.partition(b"\n\n")
                status, headers = 200, []
                for line in head.decode("latin-1").splitlines():
                    name, _, value = line.partition(":")
                    if name.lower() == "status":
                        status = int(value.strip().split()[0])
                    elif name:
                        headers.append((name, value.strip()))
                if os.environ.get("TRUNCATE_PACK") and b"command=fetch" in body:
                    payload = payload[: len(payload) // 2]
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_GET = handle_any
            do_POST = handle_any

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Bridge)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """#
}
