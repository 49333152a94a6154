"""Everything ``tablebase serve`` answers over HTTP, under one URL scheme: the JSON API and the explorer's pages.

    app.py         the app over one folder, and ``serve``
    api.py         the JSON API: /tables, /tables/{table}/lookup, probe, lookup-many, /health
    pages.py       the explorer's HTML pages: /, /tables/{table}, /tables/{table}/position, board.svg
    charts.py      a table's statistics as SVG bar charts, for its page
    interesting.py positions worth a look, for a table's page
    folder.py      the folder as the requests share it: a lock per table, and names instead of paths
    limits.py      what a request may hold, and how long it may take to arrive
    connections.py the listening socket, and connections closed when their request does not come
    headers.py     the security headers of every answer

Modules here import each other as ``tablebase.http...``: a bare ``http`` is the standard library's.
"""
