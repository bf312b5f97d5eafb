"""Benchmarks. `python -m bench` (or `make bench`) lists and runs them; the
figures and the command that produced them go in docs/benchmarks.md."""
