"""The driver of a plain game's listing in shares: the plan and the counts, never the positions.

The workers find the positions (``share_tasks.py``), a step being one round
of one level from the top, and small levels are played one after another by
one task (``small_levels.py``). This process submits each step's tasks, hears
how many positions each share found and which levels the children reached,
and saves that in the manifest after every step, so that a killed build
resumes at the step it did not record; then it has the levels numbered
(``numbering_tasks.py``).
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from typing import Any

from distributed import Client

from tablebase.build.census.numbering_tasks import RangeNumbering
from tablebase.build.census.share_tasks import counted, expand_share, item, receive
from tablebase.build.census.small_levels import SERIAL_LEVEL, play_serially, start_share
from tablebase.build.cluster.failures import disk_full, records_of
from tablebase.build.progress.census_lines import ListingStatus
from tablebase.build.progress.display import Ticker, Timings
from tablebase.build.progress.worker_events import listening
from tablebase.builders import Builder
from tablebase.listing import current_limits
from tablebase.listing.game_limits import too_many
from tablebase.store import Manifest, remove_listing
from tablebase.store.location import Location
from tablebase.store.placed import flush
from tablebase.store.work import Records, inbox_records, recorded, share_records, work_problem

CHAIN = 64  # steps submitted at once: levels below a step are found without waiting for this process


class ShareSearch:
    """One run of the listing of a plain game in shares, resumed from ``manifest.listing["search"]``.

    The number of partitions is fixed when the search begins (the workers then); keys do not depend on
    it. The manifest also keeps the record (rows, bytes, sha256) of every work file a recorded step wrote
    and a later step reads (``listing["work"]``): a task reads only files it is given the records of, its
    bytes checked against them (``store.work``), and a file the manifest does not record (a killed step's,
    or one put there by anybody) is never read. When no level is left waiting, each level is numbered by
    notation on a worker and written in key order as the listing's level file: the same files as a
    listing in one process gives.
    """

    def __init__(self, client: Client, root: Location, manifest: Manifest, builder: Builder, ref: str, run: str,
                 say: Callable[[str], None], partitions: int | None = None, every: float = 1.0,
                 timings: Timings | None = None) -> None:
        self.client, self.root, self.manifest, self.builder, self.every = client, root, manifest, builder, every
        self.timings = timings if timings is not None else Timings()  # where the numbering's seconds go
        found = sum(manifest.listing.get("search", {}).get("found", {}).values())
        self.status = ListingStatus(say, every, found)  # its lines, at least one an interval
        self.say = self.status.say
        self.table = manifest.table
        self.game_args = (run, ref, manifest.params)
        self.run = run
        self.limits = current_limits()
        self.limit = self.limits.positions_for(plain=True)
        self.workers = sorted(client.scheduler_info()["workers"])
        self.chains = 0
        self.serials = 0
        self.whole: dict[str, Any] | None = None
        #: by (level, partition), what numbering asks of the rows this run's steps wrote, with the files' names
        self.surveys: dict[tuple[int, int], list[tuple[dict[str, Any], list[str]]]] = {}
        self.partitions = partitions or len(self.workers)  # a new search's; a resumed one keeps its own

    # -- the state the manifest keeps ----------------------------------------------
    @property
    def state(self) -> dict[str, Any]:
        return self.manifest.listing["search"]

    @property
    def work(self) -> Records:
        """The records of the work files the recorded steps wrote that later steps read."""
        return self.manifest.listing.setdefault("work", {})

    def _save(self) -> None:
        self.manifest.save(self.root)  # the step's files were synced by the tasks that wrote them

    def _results(self, futures: list, work: str) -> list:
        """The tasks' results; a task that failed is one line (``failures.records_of``) saying what it did."""
        try:
            return [records_of(f, self.table, work=work) for f in futures]
        except OSError as e:
            if e.errno == errno.ENOSPC:
                raise disk_full(e, self.table, self.root) from None
            raise

    def _on(self, partition: int) -> dict[str, Any]:
        """How a partition's tasks are submitted: on any worker. A task kept to one worker, even loosely, is
        left waiting for it if that worker is restarted (a new address) while no other can take it."""
        return {"pure": False}

    # -- the search ------------------------------------------------------------------
    def listing(self) -> dict[str, Any]:
        """Find every position (resuming a search begun before), then number them: the listing's record. The
        workers' reports of what their shares have played reach ``status``, which speaks every interval."""
        with listening(self.client, self.run, self.status), Ticker(self.status.heartbeat, self.every):
            return self._listing()

    def _listing(self) -> dict[str, Any]:
        if self.manifest.listing.get("search") and self.work:
            self.say(f"resuming the listing: checking the {len(self.work):,} work files it recorded")
            self.status.now_doing("checking the work files recorded")
        problem = self._unreadable() if self.manifest.listing.get("search") else None
        if problem is not None:
            self.say(f"listing again from the start positions: {problem}")
        if not self.manifest.listing.get("search") or problem is not None:
            self._begin()
            if self.whole is not None:
                return self.whole
        else:
            found = sum(self.state["found"].values())
            self.say(f"listing resumed: {found:,} positions found before, {len(self.state['waiting'])} steps waiting")
        while self.state["waiting"]:
            level, round_ = self._next()
            again = f", level {level} again (round {round_ + 1})" if round_ else ""
            self.status.now_doing(f"listing positions{again}")
            if round_ == 0 and self._waiting_at(level) <= SERIAL_LEVEL:
                whole = self._serial(begin=False)
                if whole is not None:
                    return whole
            else:
                self._chain()
        return self._numbered()

    def _unreadable(self) -> str | None:
        """Why the search recorded cannot be resumed (a recorded work file missing, or not as recorded), or None:
        then the search begins again from the start positions. Each recorded file is read once for its sha256."""
        for name, record in sorted(self.work.items()):
            problem = work_problem(self.root, self.table, name, record)
            if problem is not None:
                return problem
        return None

    def _begin(self) -> None:
        partitions = self.partitions
        remove_listing(self.root, self.table)  # a run killed before its first record left only leftovers
        self.manifest.listing = {"search": {"partitions": partitions, "waiting": [], "found": {}, "peak": 0},
                                 "work": {}}
        self.say(f"listing positions from the start positions in {partitions} shares on the workers")
        if partitions > 1:
            self._start_in_shares()  # then small levels at the top are played by one task, as any small levels
        else:
            self.whole = self._serial(begin=True)

    def _waiting_at(self, level: int) -> int:
        """The positions waiting at a level's first round, copies counted."""
        return sum(n for lv, r, n in self.state["waiting"] if lv == level and r == 0)

    def _serial(self, begin: bool) -> dict[str, Any] | None:
        """The small levels at the top played one after another by one task (``census/small_levels.py``), from the
        start positions if ``begin``: the listing's record if it played every level, else None (what it did
        recorded). A game of a few positions a level would otherwise pay a round of tasks, files and a save of
        the manifest for each, while the level waiting at the top has at most ``SERIAL_LEVEL`` positions."""
        state = self.state
        by_level = {lv: {name: record for p in range(state["partitions"])
                         for name, record in inbox_records(self.work, lv, p, 0).items()}
                    for lv, r, _ in state["waiting"] if r == 0}
        self.serials += 1
        task = self.client.submit(play_serially, *self.game_args, self.root, self.table, state["partitions"],
                                  self.limits, by_level, sum(state["found"].values()), begin, SERIAL_LEVEL,
                                  self.every, symmetry=self.manifest.symmetry,
                                  key=f"serial-{self.table}-{self.run}-{self.serials}", pure=False)
        result, = self._results([task], "listing the start positions" if begin else "listing small levels")
        if "listing" in result:
            return result["listing"]
        self._record_serial(result)
        return None

    def _start_in_shares(self) -> None:
        """The start positions written to the inboxes by a task a partition, side by side, each taking the levels
        that are its partition modulo the partitions (``small_levels.start_share``): a game may start from many
        positions, from every position perhaps, and one task would take them while the others wait."""
        partitions = self.state["partitions"]
        tasks = [self.client.submit(start_share, *self.game_args, self.root, self.table, partitions, self.limits, part,
                                    symmetry=self.manifest.symmetry,
                                    key=f"start-{self.table}-{self.run}-{self.serials}-{part}", pure=False)
                 for part in range(partitions)]
        results = self._results(tasks, "listing the start positions")
        given = sum(n for r in results for _, _, n in r["waiting"])
        if self.limit is not None and given > self.limit:
            raise too_many(self.builder.game.name, self.limit)
        self._record_serial({"played": {}, "read": [], "waiting": [w for r in results for w in r["waiting"]],
                             "files": {name: record for r in results for name, record in r["files"].items()},
                             "rss": max(r["rss"] for r in results)})

    def _record_serial(self, result: dict[str, Any]) -> None:
        """A serial task's levels recorded and saved, as their steps in shares would have been."""
        state, work = self.state, self.work
        for name in result["read"]:
            work.pop(name, None)
        work.update(result["files"])
        played = {int(level): p for level, p in result["played"].items()}
        waiting = {(lv, r): n for lv, r, n in state["waiting"] if not (r == 0 and lv in played)}
        for lv, r, n in result["waiting"]:
            waiting[lv, r] = waiting.get((lv, r), 0) + n
        state["waiting"] = [[lv, r, n] for (lv, r), n in sorted(waiting.items())]
        reaches = state.setdefault("reaches", {})
        for level, p in sorted(played.items(), reverse=True):
            reaches[str(level)] = sorted(set(reaches.get(str(level), [])) | set(p["reaches"]))
            state["found"][str(level)] = state["found"].get(str(level), 0) + p["found"]
        state["peak"] = max(state["peak"], result["rss"])
        for level, owner, survey, names in result.get("surveys", []):
            self.surveys.setdefault((level, owner), []).append((survey, names))
        if played:
            self.status.found(sum(state["found"].values()), {*played, -1},  # -1: the serial task's report
                              f"listing positions: levels {max(played)} to {min(played)} found in one task")
        self._save()

    def _next(self) -> tuple[int, int]:
        level, round_, _ = min(self.state["waiting"], key=lambda w: (-w[0], w[1]))
        return level, round_

    def _chain(self) -> None:
        """The next waiting step and the levels below it (their first rounds), submitted at once, each
        waiting inside the scheduler for the step above: no round trip through this process between levels.
        A step whose moves kept their level needs another round of it first: the steps below it then do
        nothing (``expand_share`` sees it), and the next chain starts there. So does a level that turns out
        small once the steps above it have sent their children (``SERIAL_LEVEL``, counted as this process
        counts it): one task then plays it and the small levels below it, as it plays small levels at the top
        (Kayles' levels of few pins each cost a round of tasks a level, where one task plays them all at once)."""
        level, round_ = self._next()
        self.chains += 1  # a step skipped in one chain is submitted again in the next: new task names
        steps = [(level, round_), *((lv, 0) for lv in range(level - 1, max(level - CHAIN, -1), -1))]
        known = {lv: self._waiting_at(lv) for lv, _ in steps}
        submitted, above, prior = [], None, []
        for lv, r in steps:
            small = None if above is None else (known[lv], SERIAL_LEVEL, [x for receiving in prior for x in receiving])
            receiving, counts = self._step(lv, r, above, prior, small)
            submitted.append((lv, r, receiving, counts))
            above = (lv, receiving)
            prior.append(receiving)
        for lv, r, receiving, counts in submitted:
            work = f"listing level {lv}"
            reached, counted = self._results(receiving, work), self._results(counts, work)
            if any(c["skipped"] for c in counted) or any(x["skipped"] for x in reached):
                break
            self._record(lv, r, reached, counted)
            if any(lv in x["levels"] for x in reached):
                break  # another round of this level first: the steps below it did nothing

    def _step(self, level: int, round_: int, above: tuple[int, list] | None, prior: list[list],
              small: tuple[int, int, list] | None = None) -> tuple[list, list]:
        """Play one round of one level in every share (once the step ``above`` is received), and route the
        children to their owners. Each share reads what reached it: the files the manifest records, and those
        the ``prior`` steps of this chain wrote to its inbox (their results). ``small``: what every share
        counts to tell whether the level is small enough for one task (``expand_share``)."""
        partitions = self.state["partitions"]
        tag = f"{self.table}-{level}-{round_}-{self.run}-{self.chains}"
        expanding = [self.client.submit(expand_share, *self.game_args, self.root, self.table, level, p, round_,
                                        partitions, self.limits, inbox_records(self.work, level, p, round_),
                                        share_records(self.work, level, p, before=round_), above,
                                        [receiving[p] for receiving in prior], self.every, small,
                                        symmetry=self.manifest.symmetry, key=f"expand-{tag}-{p}", **self._on(p))
                     for p in range(partitions)]
        return self._sent(expanding, level, round_)

    def _sent(self, sources: list, level: int, round_: int) -> tuple[list, list]:
        """Each owner's pieces of a step's results, received into its inbox; what each source counted."""
        partitions, client = self.state["partitions"], self.client
        tag = f"{self.table}-{level}-{round_}-{self.run}-{self.chains}"
        receiving = []
        for owner in range(partitions):
            pieces = [client.submit(item, s, "pieces", owner, key=f"pick-{tag}-{i}-{owner}", pure=False)
                      for i, s in enumerate(sources)]
            receiving.append(client.submit(receive, self.root, self.table, owner, level, round_, pieces,
                                           key=f"receive-{tag}-{owner}", **self._on(owner)))
        counts = [client.submit(counted, s, key=f"count-{tag}-{i}", pure=False) for i, s in enumerate(sources)]
        return receiving, counts

    def _record(self, level: int, round_: int, reached: list[dict[str, Any]], counted: list[dict]) -> None:
        """A step's counts recorded and saved: the positions its shares found, the levels its children reached."""
        state, work = self.state, self.work
        for p in range(state["partitions"]):  # what the step read: no later step reads it
            for name in inbox_records(work, level, p, round_):
                del work[name]
        work.update(recorded(reached))
        work.update(recorded(counted))
        for p, count in enumerate(counted):
            if count["survey"]:
                self.surveys.setdefault((level, p), []).append((count["survey"], list(count["files"])))
        state["waiting"] = [w for w in state["waiting"] if (w[0], w[1]) != (level, round_)]
        waiting = {(w[0], w[1]): w[2] for w in state["waiting"]}
        reaches = set(state.setdefault("reaches", {}).get(str(level), []))
        for received in reached:
            reaches.update(received["levels"])
            for child, n in received["levels"].items():
                at = (child, round_ + 1 if child == level else 0)
                waiting[at] = waiting.get(at, 0) + n
        state["waiting"] = [[lv, r, n] for (lv, r), n in sorted(waiting.items())]
        if level >= 0:
            state["reaches"][str(level)] = sorted(reaches)  # the levels its children are on: whom it asks for keys
            state["found"][str(level)] = state["found"].get(str(level), 0) + sum(c["found"] for c in counted)
        state["peak"] = max([state["peak"], *(c["rss"] for c in counted)])
        total = sum(state["found"].values())
        if self.limit is not None and total > self.limit:
            raise too_many(self.builder.game.name, self.limit)
        if level >= 0:
            self.status.found(total, {level},
                              f"listing positions: level {level}{f' (round {round_ + 1})' if round_ else ''} found")
        self._save()

    def _kept(self) -> list[int]:
        """The levels some move keeps (a pass, an extra turn): only these must be solved whole."""
        return sorted(int(level) for level, reached in self.state.get("reaches", {}).items() if int(level) in reached)

    # -- numbering -------------------------------------------------------------------
    def _numbered(self) -> dict[str, Any]:
        """Every level numbered by notation and written as the listing's level file (``numbering_tasks.py``);
        the listing's record."""
        found = {int(level): n for level, n in self.state["found"].items() if n}
        top = max(found, default=0)
        sizes = [found.get(level, 0) for level in range(top + 1)]
        self.say(f"numbering {sum(sizes):,} positions in {sum(1 for n in sizes if n)} levels by notation")
        self.status.now_doing("numbering the positions", counting=False)
        with self.timings.step("numbering"):
            names, records = RangeNumbering(self).numbered()
        files = {}
        for record in records:
            files[record.pop("file")] = {k: record[k] for k in ("rows", "bytes", "sha256")}
        flush(self.root, self.table, list(files))
        peak = max([self.state["peak"], *(r["rss"] for r in records)])
        self.say(f"listed in {self.state['partitions']} shares; a worker's memory peaked at {peak / 2**20:,.0f} MiB")
        # Nothing measured is kept: the record is the same on any cluster.
        return {"sizes": sizes, "move_names": names, "kept": self._kept(),
                "max_moves": max((r["max_moves"] for r in records), default=0),
                "mean_moves": sum(r["parts"] for r in records) / max(sum(sizes), 1), "files": files,
                "complete": True}
