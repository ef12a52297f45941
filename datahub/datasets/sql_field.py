"""The field of a query that must be one read-only SELECT over ``input`` (the sql step's,
a sql check's), checked by DuckDB's parser (datahub.datasets.sql_check)."""

from marshmallow import ValidationError

from datahub.datasets.sql_check import check_select
from datahub.web.validation import fields
from datahub.web.validation.fields import ErrorMessage


class SqlQuery(fields.String):
    """One read-only SELECT over ``input``, checked by DuckDB's parser."""

    def _deserialize(self, value, attr, data, **kwargs):
        query = super()._deserialize(value, attr, data, **kwargs)
        problem = check_select(query)
        if problem:
            raise ValidationError(ErrorMessage(problem, "value_error.sql"))
        return query
