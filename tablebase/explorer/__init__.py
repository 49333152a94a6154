"""A web explorer of the tables, served with the JSON API by ``tablebase serve``, and pictures of whole tables."""

from tablebase.explorer.pages import explorer_routes

__all__ = ["explorer_routes"]
