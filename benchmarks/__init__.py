"""zmon's benchmarks: run each from the repository root as ``python -m benchmarks.NAME``."""
