"""Everything ``tablebase serve`` answers over HTTP: the JSON API and the explorer's pages."""

from tablebase.http.pages import explorer_routes

__all__ = ["explorer_routes"]
