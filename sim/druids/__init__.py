"""Knizia's druid *Stonehenge*: rules (rules.py), agents (agents.py), the registered GAME (game.py)."""
