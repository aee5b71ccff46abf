"""pitwatch: calibration."""
