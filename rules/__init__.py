"""pitwatch: rules."""
