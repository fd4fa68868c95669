#!/usr/bin/env python3
"""Real git over smart HTTP: `git http-backend` under a small CGI bridge.

Serves every repository under ROOT (as /OWNER/NAME.git) on 127.0.0.1, protocol
v2 when the client asks with `Git-Protocol`, with `uploadpack.allowFilter` on,
and streams git's answer as it is written (chunked), so a timed clone waits
for git alone, never for the bridge to buffer a pack. Prints the port once it
listens; stops on SIGTERM.

    Benchmarks/git-http-backend.py ROOT [PORT]
"""

import http.server
import os
import subprocess
import sys


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

    def handle_any(self):
        body = self.request_body()
        path, _, query = self.path.partition("?")
        env = dict(os.environ)
        env.update({
            "GATEWAY_INTERFACE": "CGI/1.1", "REQUEST_METHOD": self.command, "PATH_INFO": path,
            "QUERY_STRING": query, "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)), "REMOTE_ADDR": "127.0.0.1", "GIT_HTTP_EXPORT_ALL": "1",
            "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
        })
        if self.headers.get("Git-Protocol"):
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
        while chunk := backend.stdout.read(1 << 16):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        self.wfile.write(b"0\r\n\r\n")
        backend.wait()

    do_GET = handle_any
    do_POST = handle_any


def main():
    os.environ["GIT_PROJECT_ROOT"] = os.path.abspath(sys.argv[1])
    # The server's own configuration, whatever the caller exported for its clients.
    os.environ.update({
        "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "uploadpack.allowFilter", "GIT_CONFIG_VALUE_0": "true",
        "GIT_CONFIG_NOSYSTEM": "1",
    })
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Bridge)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
