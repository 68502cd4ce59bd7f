"""Attention Lab's benchmarks: scripts that print figures (run as modules from the repo root), and what they share."""
