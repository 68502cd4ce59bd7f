"""A stand-in for an app process: which process nginx sent a request to, without Streamlit."""

from __future__ import annotations

import http.server
import threading


class StandIn:
    """A tiny HTTP server in place of one Streamlit process (on ``port``, or a free one): answers
    200 with its name and keeps the headers of every request it got. Behind ``deploy/serve.sh``'s
    nginx it shows which process a request reached (tests/test_deploy.py, bench/bench_balance.py).

    >>> s = StandIn("A"); s.port > 0
    True
    >>> s.close()
    """

    def __init__(self, name: str, port: int = 0):
        self.name = name
        self.requests: list[tuple[str, dict[str, str]]] = []
        stand_in = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):  # the name http.server calls
                stand_in.requests.append((self.path, {k.lower(): v for k, v in self.headers.items()}))
                body = stand_in.name.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                # No keep-alive: once closed, this stand-in answers nothing more, like a dead process.
                self.send_header("Connection", "close")
                self.close_connection = True
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()
