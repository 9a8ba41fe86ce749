"""A real HTTP file server for download tests: Python's http.server in a thread on 127.0.0.1, serving a
folder. ``cut`` makes the next N responses announce the whole file but send half of it and close the
connection (a download cut halfway); ``requests`` counts the GETs served."""

from __future__ import annotations

import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class FileServer:
    """Serves ``root`` at :attr:`url` until :meth:`close`."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.cut = 0
        self.requests = 0
        server = self

        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(server.root), **kwargs)

            def do_GET(self):  # the http.server hook
                server.requests += 1
                if server.cut > 0:
                    server.cut -= 1
                    body = (server.root / self.path.lstrip("/")).read_bytes()
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body[: len(body) // 2])
                    self.wfile.flush()
                    self.close_connection = True
                    return
                super().do_GET()

            def log_message(self, *args):  # keep pytest output clean
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()
