"""Container health check: exit 0 when this replica's `/healthz` answers "ok".

The Dockerfile's HEALTHCHECK runs it (`python /app/deploy/healthcheck.py`), so
compose and any orchestrator see a replica as healthy only while it serves.
It asks 127.0.0.1 on STUD_PORT (default 8765) and needs nothing but the
standard library. A stopping server answers 503, which counts as unhealthy.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request


def main() -> int:
    port = os.environ.get("STUD_PORT") or "8765"
    url = f"http://127.0.0.1:{port}/healthz"
    try:
        with urllib.request.urlopen(url, timeout=3) as reply:
            body = json.load(reply)
    except (OSError, ValueError) as e:
        print(f"unhealthy: {url}: {e}", file=sys.stderr)
        return 1
    if not isinstance(body, dict) or body.get("status") != "ok":
        print(f"unhealthy: {url}: {body!r}", file=sys.stderr)
        return 1
    print(f"ok: {body.get('tables')} tables, {body.get('connections')} connections")
    return 0


if __name__ == "__main__":
    sys.exit(main())
