"""``python -m benchmarks``: run every benchmark (see benchmarks/README.md)."""

from benchmarks.run import main

raise SystemExit(main())
