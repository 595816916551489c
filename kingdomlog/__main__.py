"""``python -m kingdomlog`` is the same program as the ``kingdomlog`` command."""

from kingdomlog.cli import main

raise SystemExit(main())
