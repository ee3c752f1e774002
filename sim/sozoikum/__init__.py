"""Sozoikum: stone-age house building (rules, pymunk houses, agents)."""
