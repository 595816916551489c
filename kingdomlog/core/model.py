"""The frozen-model base every ruleset's state, rows and value objects derive from.

One definition, so every ruleset's models agree on the two rules that make a fold
safe: values never change after they are made (``frozen``) and unknown fields are
refused (``extra="forbid"``), so a typo in data or a payload is an error, not a
silently dropped key.

``defer_build``: a class's validator and serializer are built at its first use (a validation, a dump), not at
import. A ruleset's package defines dozens of these (rows of its tables, parts of its state) and most commands use a
few: a warm ``kingdomlog state`` on pf2e's demo builds 18 model classes' validators instead of 62 (the state it
reads, the config, three of the tables' classes), about 14-23 ms of its CPU. A class used inside another is built into
that one's schema; the GM sheet's first page and a turn's preview measured no slower (benchmarks/README.md).

>>> class Point(Frozen):
...     x: int
>>> Point(x=1).model_copy(update={"x": 2}).x
2
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    """A frozen pydantic model that refuses unknown fields."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


__all__ = ["Frozen"]
