"""The Sun's PyBullet table, over its geometry: layout files (`layout`), the table's state at the level
of poses and how an outcome is judged (`state`), the disposable PyBullet world (`world`), the table
that builds, passes, places and settles (`sun_table`), pose recording (`recording`) and the layout
stability tests (`stability`). It never imports the rules."""
