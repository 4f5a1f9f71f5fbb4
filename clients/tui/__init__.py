"""The terminal client: `stud-client play` and `stud-client watch` (a textual app)."""

from clients.tui.app import LobbyScreen, PlayScreen, StudApp, WatchScreen
from clients.tui.link import Link, NotConnected

__all__ = ["Link", "LobbyScreen", "NotConnected", "PlayScreen", "StudApp", "WatchScreen"]
