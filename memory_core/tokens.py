"""Token counting with OpenAI's cl100k_base, offline (the file ships in ``bpe-openai``).

The same counter as the independent bench scorer, so buffer sizes are comparable.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _encoding() -> Any:
    import bpe_openai

    return bpe_openai.get_encoding("cl100k_base")


def count_tokens(text: str) -> int:
    if not text:
        return 0
    return len(_encoding().encode(text))
