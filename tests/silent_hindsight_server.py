"""A stand-in for the Hindsight adapter's server script (baselines/adapters/_hindsight_server.py).

SILENT_HINDSIGHT_MODE=mute: it starts and never says it is ready (a server that never comes up).
SILENT_HINDSIGHT_MODE=stall: it serves HTTP, answers ``/v1/version`` as hindsight-api 1.1.0 would, and
never answers anything else (a server that stalls). Standard library only."""

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path == "/v1/version":
            data = json.dumps({"api_version": os.environ.get("SILENT_HINDSIGHT_VERSION", "1.1.0")}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        else:
            time.sleep(3600)

    def do_PUT(self):
        time.sleep(3600)

    do_POST = do_PATCH = do_DELETE = do_PUT


if os.environ.get("SILENT_HINDSIGHT_MODE") == "mute":
    time.sleep(3600)
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
threading.Thread(target=server.serve_forever, daemon=True).start()
print(json.dumps({"ok": True, "url": f"http://127.0.0.1:{server.server_address[1]}"}), flush=True)
sys.stdin.read()
