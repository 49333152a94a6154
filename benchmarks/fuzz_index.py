"""The probe index under a longer run of the structure-aware fuzzer (tests/index_fuzz.py) than the test suite's.

    python benchmarks/fuzz_index.py [--cases 5000] [--seed N] [--case K --keep DIR] [--python-only]

Writes the seed indexes, builds the C command with AddressSanitizer and UndefinedBehaviorSanitizer, and runs
``--cases`` cases of run ``--seed``: each a seed whose numbers are set to anything, every CRC-32 made right,
read by the C command (exit 0 or 2, no sanitizer's report) and by the Python reader (an answer or a StoreError,
within seconds, no allocation of gigabytes). Prints what the readers did and each failure with its case;
``--case K --keep DIR`` runs that case alone and leaves its files in DIR/case.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))

from index_fuzz import fuzz  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=5000, help="cases to run")
    parser.add_argument("--seed", type=int, default=int(time.time()), help="the run (default: a new one each time)")
    parser.add_argument("--case", type=int, help="run this case of the run alone")
    parser.add_argument("--keep", type=Path, help="work in this folder and leave it (default: a temporary one)")
    parser.add_argument("--python-only", action="store_true", help="no C compiler: the Python reader alone")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        root = args.keep or Path(temporary)
        root.mkdir(parents=True, exist_ok=True)
        began = time.perf_counter()
        report = fuzz(root, args.cases, args.seed, args.case, c=not args.python_only)
        print(json.dumps({"seed": args.seed, **report.summary(), "seconds": round(time.perf_counter() - began, 1)}))
        for failure in report.failures:
            print(failure)
    sys.exit(1 if report.failures else 0)


if __name__ == "__main__":
    main()
