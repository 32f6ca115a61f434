"""Guards that run inside the frameworks' own processes (imported only by users who add them)."""
