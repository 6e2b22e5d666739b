"""billiards_env: see README (in progress)."""
