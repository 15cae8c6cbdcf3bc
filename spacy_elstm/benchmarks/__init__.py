"""Benchmarks that print ratios against references measured in the same run."""
