"""The fields of a query that must be one read-only SELECT, checked by DuckDB's parser
(datahub.datasets.sql_check): over ``input`` (the sql step's, a sql check's), or over
datasets by name (the SQL console's)."""

from marshmallow import ValidationError

from datahub.datasets.sql_check import check_console_select, check_select
from datahub.platform.errors import ErrorMessage
from datahub.web.validation import fields


class SqlQuery(fields.String):
    """One read-only SELECT over ``input``, checked by DuckDB's parser."""

    @staticmethod
    def problem(query):
        return check_select(query)

    def _deserialize(self, value, attr, data, **kwargs):
        query = super()._deserialize(value, attr, data, **kwargs)
        problem = self.problem(query)
        if problem:
            raise ValidationError(ErrorMessage(problem, "value_error.sql"))
        return query


class ConsoleQuery(SqlQuery):
    """One read-only SELECT over tables named as datasets (resolved when it runs)."""

    @staticmethod
    def problem(query):
        return check_console_select(query)[0]
