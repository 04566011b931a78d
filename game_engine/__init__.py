"""The rules of 13-card pool rummy as a pure library (no Django, no clock)."""
