"""pitwatch: api."""
