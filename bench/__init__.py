"""Benchmarks: scripts that print figures (see bench/README.md). Not part of the test suite."""
