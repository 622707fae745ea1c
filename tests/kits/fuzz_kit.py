"""The hypothesis settings of the reliability fuzz tests: the same examples every run (derandomized,
no example database), no deadline, fixtures and slow examples allowed."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

FUZZ = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
