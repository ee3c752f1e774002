"""The Sun's geometry, the bottom of its packages: the stones' shapes and the physical constants
(`specs`), the gap kernel (`gaps`), the ring of a position and its mark areas (`ring`), and the
palette of the stones by shape (`palette`). It imports nothing else of the Sun."""
