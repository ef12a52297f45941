"""Collections: named groups of datasets."""
