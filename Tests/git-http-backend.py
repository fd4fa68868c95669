#!/usr/bin/env python3
"""Real git over smart HTTP: `git http-backend` under a small CGI bridge.

Serves every repository under ROOT (as /OWNER/NAME.git) on 127.0.0.1, protocol
v2 when the client asks with `Git-Protocol`, with `uploadpack.allowFilter` on,
and streams git's answer as it is written (chunked), so a timed clone waits
for git alone, never for the bridge to buffer a pack. Prints the port once it
listens; stops on SIGTERM. The tests (MirrorTestSupport's GitHTTPServer) and
the benchmarks (Benchmarks/lib.sh) run this one bridge.

    Tests/git-http-backend.py ROOT [PORT]

How it departs from plain git, for tests, each named in the environment:
AUTH_LOG=FILE appends every request's Authorization header (or `-`);
REDIRECT_TO=ORIGIN answers every request with a 302 there (same path);
PROTOCOL_V0_ONLY=1 passes no `Git-Protocol` on (git then answers in v0);
REQUIRED_AUTHORIZATION=VALUE answers 401 to any other Authorization;
TRUNCATE_PACK=1 cuts the answer to `fetch` (the pack) in half.
BRIDGE_SCRATCH=DIR is where it keeps its server configuration (else /tmp).
"""

import atexit
import http.server
import os
import signal
import subprocess
import sys
import tempfile


class Bridge(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def request_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                body += self.rfile.read(size)
                self.rfile.readline()
                if size == 0:
                    return body
        length = int(self.headers.get("Content-Length", "0"))
        return self.rfile.read(length) if length else b""

    def answer_empty(self, status, headers):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def handle_any(self):
        if "AUTH_LOG" in os.environ:
            with open(os.environ["AUTH_LOG"], "a") as log:
                log.write(self.headers.get("Authorization", "-") + "\n")
        body = self.request_body()
        if os.environ.get("REDIRECT_TO"):
            return self.answer_empty(302, [("Location", os.environ["REDIRECT_TO"] + self.path)])
        required = os.environ.get("REQUIRED_AUTHORIZATION")
        if required and self.headers.get("Authorization") != required:
            return self.answer_empty(401, [("WWW-Authenticate", 'Basic realm="git"')])
        path, _, query = self.path.partition("?")
        env = dict(os.environ)
        env.update({
            "GATEWAY_INTERFACE": "CGI/1.1", "REQUEST_METHOD": self.command, "PATH_INFO": path,
            "QUERY_STRING": query, "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)), "REMOTE_ADDR": "127.0.0.1", "GIT_HTTP_EXPORT_ALL": "1",
            "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
        })
        if self.headers.get("Git-Protocol") and not os.environ.get("PROTOCOL_V0_ONLY"):
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        backend = subprocess.Popen(
            ["git", "http-backend"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, bufsize=0)
        backend.stdin.write(body)
        backend.stdin.close()
        status, headers = 200, []
        for raw in iter(backend.stdout.readline, b""):
            line = raw.decode("latin-1").rstrip("\r\n")
            if not line:
                break
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.strip().split()[0])
            else:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if os.environ.get("TRUNCATE_PACK") and b"command=fetch" in body:
            payload = backend.stdout.read()
            chunks = [payload[: len(payload) // 2]]
        else:
            chunks = iter(lambda: backend.stdout.read(1 << 16), b"")
        for chunk in chunks:
            if chunk:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        self.wfile.write(b"0\r\n\r\n")
        backend.wait()

    do_GET = handle_any
    do_POST = handle_any


def main():
    os.environ["GIT_PROJECT_ROOT"] = os.path.abspath(sys.argv[1])
    # The server's own global configuration, which a repository's may override, and none
    # of what the caller exported for its clients.
    # It lives in the caller's BRIDGE_SCRATCH directory when named (a killed bridge leaves nothing elsewhere).
    scratch = os.environ.get("BRIDGE_SCRATCH")
    config = tempfile.NamedTemporaryFile(
        "w", dir=scratch, prefix="git-http-backend-", suffix=".gitconfig", delete=False)
    config.write("[uploadpack]\n\tallowFilter = true\n")
    config.close()
    if not scratch:
        atexit.register(os.unlink, config.name)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    for name in [name for name in os.environ if name.startswith("GIT_CONFIG_")]:
        del os.environ[name]
    os.environ.update({"GIT_CONFIG_GLOBAL": config.name, "GIT_CONFIG_NOSYSTEM": "1"})
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Bridge)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
