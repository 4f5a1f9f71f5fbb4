"""The terminal client: `stud-client play` and `stud-client watch` (a textual app)."""

from clients.tui.app import StudApp
from clients.tui.link import Link, NotConnected
from clients.tui.screens import LobbyScreen, PlayScreen, WatchScreen

__all__ = ["Link", "LobbyScreen", "NotConnected", "PlayScreen", "StudApp", "WatchScreen"]
