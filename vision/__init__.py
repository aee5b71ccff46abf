"""pitwatch: vision."""
