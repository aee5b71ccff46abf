"""pitwatch: models."""
