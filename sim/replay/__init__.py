"""Replays of any game: the ``stonelab replay`` command group, and the turn-by-turn replays of the
games played in turns (a board drawn step by step in one self-contained HTML page).

``model`` says what a replay is (frames; what a game brings, :class:`~sim.replay.model.ReplayBook`),
``source`` plays a run's game again and checks it against the store, ``page`` writes the page,
``runs`` the pages a run folder keeps, ``cli`` the commands (a game with 3-D replays is handed to
its viewer, ``sim.sun.viewer``). Nothing here names a game: a game's plug-in names its book
(``GamePlugin.replay``). docs/replay-format.md describes the document and the page.
"""
