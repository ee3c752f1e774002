"""The Sun's player model and its calibration: the thrower, how far a real hand strays from the pass
or placement it intends (`thrower`), playtest logs (`playtest_log`), the fit of a thrower to a log
(`calibrate`, over the physics of `calib_physics`) and the calibration's documented figures
(`calib_figures`). The thrower imports nothing else of the Sun; the calibration runs the table."""
