"""The JSON API under a longer run of the property-based fuzzer (schemathesis) than the test suite's.

    python benchmarks/fuzz_serve.py [--examples 2000] [--seed N]

Builds three small tables, serves them in process (ASGI) and lets the fuzzer
send what the API's own description allows and what it does not, to every
operation, and each request also to every real table. Prints the requests sent
by operation and the failures found (a 500, or an answer the description does not document).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))

from test_serve_fuzz import fuzz  # noqa: E402

from tablebase.build import build_tables  # noqa: E402
from tablebase.build.jobs import spec_for  # noqa: E402
from tablebase.http.app import create_app  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--examples", type=int, default=2000, help="generated requests per operation")
    parser.add_argument("--seed", type=int, help="repeat a run (default: a new one each time)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        specs = [spec_for("chomp", dict(rows=4, cols=5)), spec_for("nim", dict(heaps=3, max_heap=6)),
                 spec_for("wythoff", {"max": 30})]
        list(build_tables(specs, Path(root), workers=1, partition_rows=7, quiet=True))
        began = time.perf_counter()
        sent: dict[str, int] = {}
        failures = []
        try:
            fuzz(create_app(root), args.examples, args.seed, sent)
        except Exception as e:  # the fuzzer's report of what failed, shrunk to the smallest request
            failures = ["".join(traceback.format_exception(e))]
        print(json.dumps({"requests": sum(sent.values()), "by_operation": sent, "failures": len(failures),
                          "seconds": round(time.perf_counter() - began, 1)}, indent=1))
        for failure in failures:
            print(failure)


if __name__ == "__main__":
    main()
