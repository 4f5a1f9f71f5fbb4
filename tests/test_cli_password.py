"""`stud-client play --user NAME --register`: the new password is asked for until it is
one the server takes (or a few tries are up), before it is asked for a second time."""

from __future__ import annotations

import io
from collections.abc import Callable

from clients.cli import PASSWORD_TRIES, ask_password


def answers(*typed: str) -> tuple[list[str], Callable[[str], str]]:
    """A getpass that types `typed` in turn, and the prompts it was shown."""
    prompts: list[str] = []
    left = list(typed)

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        return left.pop(0)

    return prompts, ask


def test_a_short_new_password_is_refused_at_once_and_asked_for_again() -> None:
    """It was asked for twice, then sent, and the server's refusal ended the program:
    "a password is 10 to 128 characters, got 5"."""
    prompts, ask = answers("short", "a long secret 1", "a long secret 1")
    err = io.StringIO()
    assert ask_password("tina_t", register=True, ask=ask, err=err) == "a long secret 1"
    assert prompts == [
        "Password for tina_t: ",
        "Password for tina_t: ",
        "The same password again: ",
    ]
    assert "10 to 128 characters, got 5" in err.getvalue()
    assert "short" not in err.getvalue()  # never repeated


def test_the_username_as_password_and_a_mismatch_are_asked_again_a_few_times() -> None:
    typed = ["Tina_T12345", "a long secret 1", "a long secret 2"] * PASSWORD_TRIES
    prompts, ask = answers(*typed)
    err = io.StringIO()
    assert ask_password("tina_t12345", register=True, ask=ask, err=err) is None
    assert len(prompts) <= len(typed)  # bounded: it gives up
    said = err.getvalue()
    assert "may not be the username" in said and "differ" in said


def test_signing_in_asks_once() -> None:
    prompts, ask = answers("whatever it is")
    assert ask_password("tina_t", register=False, ask=ask, err=io.StringIO()) == "whatever it is"
    assert prompts == ["Password for tina_t: "]
