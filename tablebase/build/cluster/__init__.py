"""The Dask cluster a build runs on, and its plumbing.

Starting it (``start.py``, workers forked from ``fork_server.py``), planning a
worker's memory (``memory_plan.py``), and the workarounds each with its reason:
freed memory kept by the allocator (``allocator.py``), mapped values allowed for
(``mapped_memory.py``), tasks of a lost worker placed again
(``lost_workers.py``), values shared in ``/dev/shm`` (``shared_values.py``),
a failed task said in one line (``failures.py``).
"""
