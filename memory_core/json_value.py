"""Plain JSON values, typed: what a front-end component is sent as its data (a graph canvas,
the episode timeline) and what a service result's ``to_json()`` returns.

    JSONValue  = bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None
    JSONObject = dict[str, JSONValue]

A recursive alias (mypy follows it): a value typed so is known to survive ``json.dumps``.
"""

from __future__ import annotations

from typing import TypeAlias

JSONValue: TypeAlias = "bool | int | float | str | list[JSONValue] | dict[str, JSONValue] | None"
JSONObject: TypeAlias = "dict[str, JSONValue]"
