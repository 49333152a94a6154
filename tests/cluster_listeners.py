"""Run as a script: build a small table on a local cluster, and say as JSON what the cluster listened on.

    python tests/cluster_listeners.py OUT [--small] [--dashboard]

A process of its own, so that what it finds listening is the build's alone,
not the test session's cluster. What the cluster says of itself (the
addresses its scheduler and workers bound) is checked against what the
operating system says every process of the build listens on (psutil).
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

import psutil
from distributed.comm.utils import get_tcp_server_addresses


def listening() -> list[str]:
    """The address of every TCP socket that this process or any of its descendants listens on."""
    me = psutil.Process()
    pids = {me.pid} | {p.pid for p in me.children(recursive=True)}
    listening = [c for c in psutil.net_connections("inet") if c.pid in pids and c.status == psutil.CONN_LISTEN]
    return sorted({c.laddr.ip for c in listening})


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as e:
        return e.code


def http_hosts(dask_worker) -> list[str]:
    """Run on each worker: the hosts its HTTP server is bound to."""
    return sorted({host for host, _port, *_ in get_tcp_server_addresses(dask_worker.http_server)})


def main(out: Path, small: bool, dashboard: bool) -> dict:
    from tablebase.build import build_table, dask_client, spec_for
    from tablebase.build.cluster.start import dashboard_url

    with dask_client(workers=2, small=small, dashboard=dashboard) as client:
        summary = build_table(client, out, spec_for("nim", {"heaps": 2, "max_heap": 5}), every=float("inf"))
        scheduler = client.cluster.scheduler
        workers = client.scheduler_info()["workers"]
        url = dashboard_url(client)
        pages = [url, url.replace("/status", "/json/counts.json")]
        pages += [f"http://127.0.0.1:{w['services']['dashboard']}/health" for w in workers.values()]
        return {
            "positions": summary.positions,
            "scheduler": scheduler.address,
            "workers": sorted(workers),
            "scheduler_http": sorted({host for host, _port, *_ in get_tcp_server_addresses(scheduler.http_server)}),
            "workers_http": sorted({h for hosts in client.run(http_hosts).values() for h in hosts}),
            "dashboard": url,
            "pages": {page: status(page) for page in pages},
            "listening": listening(),
        }


if __name__ == "__main__":
    print(json.dumps(main(Path(sys.argv[1]), "--small" in sys.argv, "--dashboard" in sys.argv)))
