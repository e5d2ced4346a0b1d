"""Word lists of the player resolver (data files)."""
