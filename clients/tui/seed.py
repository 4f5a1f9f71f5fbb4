"""The terminal client's prompt for a client seed (the `c` key at a table)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from protocol.messages import CLIENT_SEED


class SeedScreen(ModalScreen[str | None]):
    """Asks for the client seed: Enter sends it (empty removes it), Escape keeps the old one."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    SeedScreen { align: center middle; }
    SeedScreen > Vertical { width: 72; height: auto; padding: 1 2; border: thick $primary;
        background: $surface; }
    """

    def __init__(self, table: str, current: str) -> None:
        super().__init__()
        self.table = table
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                f"Your client seed for {self.table}: it is mixed into the shuffle of every "
                "deal from the next one on, so the server cannot pick the deck alone.\n"
                "Letters, digits, _ . - (64 at most); empty removes it. Esc cancels."
            )
            yield Input(value=self.current, placeholder="e.g. lucky-7", max_length=64, id="seed")
            yield Static(id="seed-error")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        seed = event.value.strip()
        problem = CLIENT_SEED.problem(seed)
        if problem is not None:
            self.query_one("#seed-error", Static).update(Text(f"The seed {problem}.", style="red"))
            return
        self.dismiss(seed)

    def action_cancel(self) -> None:
        self.dismiss(None)
