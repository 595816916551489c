"""What a person at the table looks at: the live feed of the turn, a player's seats and proposals (``app.table``)."""
