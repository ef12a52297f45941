"""Reading a /metrics answer (Prometheus' text format) with prometheus_client's parser."""

from prometheus_client.parser import text_string_to_metric_families


def samples(text):
    """{(sample name, frozenset of label items): value} of every sample in ``text``."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(found, name, **labels):
    """The sample ``name`` with exactly these labels; 0 when absent (a counter not yet
    incremented)."""
    return found.get((name, frozenset(labels.items())), 0)


def label_values(found, label):
    return {dict(labels).get(label) for _, labels in found} - {None}
