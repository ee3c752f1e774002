"""What every page server of the project shares (docs/security.md): where it listens, which requests
it accepts (:mod:`sim.web.guard`), how it answers and refuses and which files it serves
(:mod:`sim.web.server`), and viser's websocket server behind the same guard (:mod:`sim.web.viser`)."""
