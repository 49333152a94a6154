"""Threads share the algebra's intern table and caches (a server answers requests side by side): forms met
for the first time by many threads at once come out as one thread alone makes them.

Threads are switched every microsecond, so that they meet inside each other's additions to the table; the
oracle is the same texts valued by a fresh process with one thread.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

from tablebase.cgt import parse

THREADS = 8
BASE = 7_340_000  # numbers no other test makes, so that every form here is new to the process


def texts(t: int) -> list[str]:
    """Sums whose canonical forms are new general forms, different in each thread."""
    return [f"{{{BASE + t * 1000 + i}|{{{i}|-{t}}}}} + {{{i}/{2 ** (t % 5 + 1)}|*{t % 3}}} + {{^|{i}/2}}"
            for i in range(120)]


def test_threads_meeting_new_forms_at_once_agree_with_one_thread():
    out: dict[int, list[str]] = {}
    errors: list[str] = []

    def work(t: int) -> None:
        try:
            out[t] = [str(parse(text)) for text in texts(t)]
        except Exception as e:  # every thread's failure is reported, not just the first
            errors.append(f"thread {t}: {type(e).__name__}: {e}")

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
    alone = subprocess.run([sys.executable, "-c", "import json, sys; sys.path.insert(0, sys.argv[1]); "
                            "from test_cgt_threads import texts, THREADS; from tablebase.cgt import parse; "
                            "print(json.dumps([[str(parse(x)) for x in texts(t)] for t in range(THREADS)]))",
                            str(Path(__file__).parent)],
                           capture_output=True, text=True, check=True)
    assert [out[t] for t in range(THREADS)] == json.loads(alone.stdout)
