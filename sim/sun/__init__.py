"""Stonehenge and the Sun: layouts and ring geometry, the PyBullet table, the thrower, stability tests.

Public entry points: :func:`sim.sun.layout.load_layout`, :class:`sim.sun.table.SunTable`,
:func:`sim.sun.thrower.skill`. PyBullet is imported only by :mod:`sim.sun.table` and modules using it.
"""
