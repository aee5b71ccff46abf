"""pitwatch: datasets."""
