"""Studies on stored results: metrics, statistics, plots, reports and benchmarks."""
