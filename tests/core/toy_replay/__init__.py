"""The toy race's replay, a package so that its drawing script sits beside its book as package data."""
