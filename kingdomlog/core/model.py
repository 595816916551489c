"""The frozen-model base every ruleset's state, rows and value objects derive from.

One definition, so every ruleset's models agree on the two rules that make a fold
safe: values never change after they are made (``frozen``) and unknown fields are
refused (``extra="forbid"``), so a typo in data or a payload is an error, not a
silently dropped key.

>>> class Point(Frozen):
...     x: int
>>> Point(x=1).model_copy(update={"x": 2}).x
2
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    """A frozen pydantic model that refuses unknown fields."""

    model_config = ConfigDict(extra="forbid", frozen=True)


__all__ = ["Frozen"]
