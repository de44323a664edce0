"""Stored results of the statistics (worker reliability, system scores) live here."""
