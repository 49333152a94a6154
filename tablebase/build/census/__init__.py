"""A plain game's positions listed by the Dask workers, before the build solves them.

``entry.py`` decides how a game is listed and reads a listing back;
``rounds.py`` drives the search in shares; ``share_tasks.py`` and
``small_levels.py`` are what the workers run; ``numbering_tasks.py`` numbers
each level in ranges of notation. The rules of listing are ``tablebase.listing``.
"""
