"""Everything ``tablebase serve`` answers over HTTP, under one URL scheme: the JSON API and the explorer's pages.

``app.py`` is the app over one folder, and ``serve``; ``api.py`` the JSON API;
``pages.py`` the explorer's pages, drawn with ``boards``, ``charts``,
``verdicts``, ``trail`` and ``interesting``; ``folder.py`` the folder as the
requests share it; ``limits.py`` and ``connections.py`` what a request may hold
and how long it may take to arrive; ``headers.py`` the security headers of
every answer. Modules here import each other as ``tablebase.http...``: a bare
``http`` is the standard library's.
"""
