"""A web explorer of the tables, served with the JSON API by ``tablebase serve``."""

from tablebase.explorer.pages import explorer_routes

__all__ = ["explorer_routes"]
