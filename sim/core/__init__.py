"""Shared mechanisms of stonehenge-lab: no game is imported here."""
