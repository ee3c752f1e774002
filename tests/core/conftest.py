"""Fixtures for core tests: a registry holding only the toy game "race"."""

from __future__ import annotations

import pytest

from sim.core.registry import Registry


@pytest.fixture
def registry() -> Registry:
    return Registry({"race": "toy_game:GAME"})
