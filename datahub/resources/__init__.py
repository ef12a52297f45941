"""Resources: what named, owned resources (datasets, collections, pipelines) share, their
access rules and grants."""
