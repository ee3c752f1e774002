"""``stonelab play``: a person at the table against a scenario's agents, in the browser or the terminal."""
