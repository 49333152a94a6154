"""Checks of what a build made and of a game's rules, sharing no code with the solvers where they can.

``verify.py`` re-derives every row of a table, ``verify_index.py`` checks its
probe index against the rows, ``check_game.py`` checks a game's rules on a
small table (``tablebase check-game``).
"""
