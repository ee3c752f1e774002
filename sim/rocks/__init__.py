"""Stonehenge Rocks! (Paul Peterson): rules engine, agents and benchmarks; the game object is ``sim.rocks.game.GAME``."""
