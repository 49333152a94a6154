"""Hosts that share nothing but an object store and the scheduler build a table there: a scheduler, two workers
and a driver, each in a network namespace of its own (tests/hosts.py), each worker with a /dev/shm and a /tmp of
its own and the driver with a /tmp of its own, and the S3-protocol server (tests/object_store.py) listening on
the hosts' bridge. No folder the build writes to is shared: the workers read the levels below from the store and
put their parts there. The tables are byte for byte those of a build by one process in a folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import require
from hosts import Hosts, usable
from test_hosts import finish, local_build
from test_object_store_builds import plain_files

pytestmark = pytest.mark.slow  # other hosts: see conftest.py

CRAM = ["--game", f"{Path(__file__).resolve().parent.parent / 'examples' / 'cram.py'}:Cram", "--rows", "3",
        "--cols", "5"]


@pytest.fixture(autouse=True, scope="module")
def _hosts_can_be_made() -> None:
    why = usable()
    require(None if why is None else f"separate hosts cannot be made: {why}")


def test_hosts_that_share_only_the_store_and_the_scheduler_build_the_same_bytes(tmp_path, s3_server):
    import os
    import subprocess

    from hosts import REPO

    server, prefix = s3_server, f"apart-{os.getpid()}"
    with Hosts(workers=2, private_tmp=True) as hosts, server.also_on(hosts.reach_from_here()) as endpoint:
        env = {**server.env(), "AWS_ENDPOINT_URL": endpoint}
        hosts.worker_env = env  # each host its own AWS variables, as machines have
        hosts.start_cluster(tmp_path)
        seen = json.loads(hosts.python("drv", f"""
import json, os
from distributed import Client
with Client({hosts.scheduler!r}) as c:
    print(json.dumps(list(c.run(lambda: (os.stat("/dev/shm").st_dev, os.stat("/tmp").st_dev)).values())))
"""))
        assert len({shm for shm, _ in seen}) == len({tmp for _, tmp in seen}) == 2  # nothing shared in them
        built = {}
        for game in (["chomp", "--rows", "9", "--cols", "9"], CRAM):
            build = subprocess.Popen(hosts.tablebase("build", *game, "--partition-rows", "2000", "--out",
                                                     f"s3://tables/{prefix}", "--scheduler", hosts.scheduler),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=hosts.env(env), cwd=REPO)
            code, out, err = finish(build)
            assert code == 0, err
            assert "2 workers" in err
            built[json.loads(out.splitlines()[-1])["table"]] = game
        for table, game in built.items():
            stored = plain_files(server, f"{prefix}/{table}")
            local_build(tmp_path / "local", *game, "--partition-rows", "2000")
            folder = tmp_path / "local" / table
            local = {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
            assert sorted(stored) == sorted(local), table
            assert [name for name in local if stored[name] != local[name]] == [], table
        assert not os.path.exists(REPO / "s3:")
