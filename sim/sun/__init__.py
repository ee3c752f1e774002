"""Stonehenge and the Sun: layouts and ring geometry, the PyBullet table, the thrower, stability tests.

Public entry points: :func:`sim.sun.table.layout.load_layout`, :class:`sim.sun.table.sun_table.SunTable`,
:func:`sim.sun.players.thrower.skill`. PyBullet is imported only by the table's modules (:mod:`sim.sun.table.sun_table`,
:mod:`sim.sun.table.world`, :mod:`sim.sun.table.state`, :mod:`sim.sun.table.recording`) and modules using them.
"""
