"""A partizan table's values table as SQL reads it: each canonical form once, in merged files.

The build writes it in pieces and merges them into
``values/part-<b>.parquet``, recorded under the manifest's ``values.files``
(``tablebase.builders.values_build``); a reader sees those files, once merged, as
the view ``<table>_values``.
"""

from __future__ import annotations

from collections.abc import Callable

from tablebase.kinds.artifacts import Artifact
from tablebase.store import Manifest
from tablebase.store.values_files import merged_files


class ValuesTable(Artifact):
    """Each canonical form of a partizan table once, with its options and figures."""

    def files(self, manifest: Manifest) -> dict[str, dict]:
        return manifest.values.get("files", {})

    def view_names(self, table: str) -> list[str]:
        return [f"{table}_values"]

    def views(self, table: str, manifest: Manifest, source: Callable[[list[str]], str]) -> list[tuple[str, str]]:
        """``<table>_values``: each canonical form once; ``number`` repeats the text of a number,
        ``is_infinitesimal`` says whether both stops are 0."""
        files = merged_files(manifest.values)
        if not files:
            return []
        name = self.view_names(table)[0]
        return [(name,
                 f'CREATE VIEW "{name}" AS SELECT id, value, left_ids, right_ids, is_number, '
                 "CASE WHEN is_number THEN value END AS number, mean, temperature, left_stop, right_stop, birthday, "
                 "left_stop = 0 AND right_stop = 0 AS is_infinitesimal, atomic_weight, reduced_canonical_form, "
                 f"positions, first_level FROM {source(files)}")]
