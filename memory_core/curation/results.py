"""Result types of the curation API: a page of records (a frozen pydantic model like the domain
models, so the app can hold it in session state or dump it to JSON). The impact-of-corrections
report is ``memory_core.impact_report`` (bottom floor: the front end reads it).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from memory_core.models import Record


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RecordPage(_Result):
    """One page of a record search: ``rows`` in the requested order, ``total`` matches."""

    rows: list[Record]
    total: int
    page: int = 1  # 1-based
    page_size: int = 50

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.page_size))
