"""How both stores write a round record (`record_json`): what reads back, and its bytes."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from server.stores.base import record_json

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(st.dictionaries(st.text(), _json_values, max_size=6))
def test_a_round_record_is_stored_as_the_standard_librarys_json(record: dict[str, Any]) -> None:
    """Records are stored and read back by both stores through `record_json` (orjson):
    the text reads back as the record, in json's own bytes (sorted keys, compact),
    non-ASCII text as UTF-8."""
    text = record_json(record)
    assert json.loads(text) == record
    assert text == json.dumps(record, separators=(",", ":"), sort_keys=True, ensure_ascii=False)
