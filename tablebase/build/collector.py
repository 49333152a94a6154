"""The driver's record of a table's finished partitions, kept in its manifest as the solving tasks finish."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

from tablebase.build.progress.display import Progress
from tablebase.builders import ArtifactBuild
from tablebase.store import Layout, Manifest

MANIFEST_EVERY = 1.0  # seconds between manifest saves while a table builds


class Collector:
    """Records finished partitions in the manifest (saved now and then), reports progress,
    and adds up the seconds the workers spent reading lower levels, solving and writing."""

    def __init__(self, root: Path, manifest: Manifest, layout: Layout, progress: Progress,
                 artifacts: tuple[ArtifactBuild, ...]) -> None:
        self.root, self.manifest, self.layout = root, manifest, layout
        self.progress, self.artifacts = progress, artifacts
        self.busy = {"read": 0.0, "solve": 0.0, "write": 0.0}
        # Files recorded of each piece's first level: a span's one file, or a level's parts so far.
        self.recorded = Counter(piece.first for piece in map(layout.named, manifest.files) if piece is not None)
        # The first records are saved at once: a disk that fills up within the first second leaves
        # no room to save the manifest at the end, and the files recorded before are then kept.
        self.last_save = float("-inf")
        self.save_seconds = 0.0

    def finished(self) -> list[int]:
        return self.layout.levels_held(self.manifest.files)

    def add(self, records: list[dict]) -> None:
        for record in records:
            # A copy: the tasks of the step above read these records too (workers in threads of this process
            # share the very dicts).
            record = dict(record)
            name = record.pop("file")
            spent = record.pop("seconds")  # not in the manifest: not reproducible
            for phase, seconds in spent.items():
                self.busy[phase] += seconds
            for artifact, made in zip(self.artifacts, record.pop("pieces")):
                artifact.record(self.manifest, made)
            self.manifest.probe.update(record.pop("segment", {}))  # the probe index's segment of these rows
            self.manifest.files[name] = record
            piece = self.layout.named(name)
            self.recorded[piece.first] += 1
            done = self.recorded[piece.first]
            self.progress.part_done(piece.last, record["rows"], done, piece.parts, done == piece.parts,
                                    first=piece.first, seconds=spent.get("solve"), name=name)
        if time.perf_counter() - self.last_save > max(MANIFEST_EVERY, 10 * self.save_seconds):
            # A table of thousands of files takes a while to save: never more
            # than a tenth of the time, which the workers' cores share.
            began = time.perf_counter()
            self.manifest.levels_done = self.finished()
            self.manifest.save(self.root)
            self.last_save = time.perf_counter()
            self.save_seconds = self.last_save - began
