"""Datasets: described data with an optional stored file."""
