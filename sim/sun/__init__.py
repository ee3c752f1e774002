"""Stonehenge and the Sun: layouts and ring geometry, the PyBullet table, the thrower, stability tests.

Public entry points: :func:`sim.sun.layout.load_layout`, :class:`sim.sun.table.SunTable`,
:func:`sim.sun.thrower.skill`. PyBullet is imported only by the table's modules (:mod:`sim.sun.table`,
:mod:`sim.sun.world`, :mod:`sim.sun.table_state`, :mod:`sim.sun.recording`) and modules using them.
"""

from sim.core.quiet import silence_import_banner

# pybullet's C module prints "pybullet build time: ..." when first imported (from every worker
# process, into the progress bar): imported silenced
silence_import_banner("pybullet")

