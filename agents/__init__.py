"""agents: see README (in progress)."""
