"""What a build says as it goes: counts, an ETA, and what the workers report.

``display.py`` prints the lines, ``eta.py`` weighs what is left,
``worker_events.py`` is what a task tells the driver through Dask's events, and
``census_lines.py`` is a listing's lines.
"""
