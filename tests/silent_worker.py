"""A stand-in for the Cognee adapter's worker (baselines/adapters/_cognee_worker.py) that starts, says
which cognee it runs (the version in SILENT_WORKER_COGNEE_VERSION), and then never answers again: a
library that stalls. Standard library only."""

import json
import os
import sys
import time


def send(result) -> None:
    print(json.dumps({"ok": True, "result": result}), flush=True)


send("ready")
for line in sys.stdin:
    if json.loads(line)["op"] == "version":
        version = os.environ["SILENT_WORKER_COGNEE_VERSION"]
        send({"cognee": version, "python": sys.version.split()[0], "prefix": sys.prefix})
    else:
        time.sleep(3600)
