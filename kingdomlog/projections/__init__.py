"""Projections: derived views of campaign logs (DuckDB catalog, safe SQL console)."""
