"""What a dataset's columns mean: /api/v1/datasets/{dataset_id}/columns."""
