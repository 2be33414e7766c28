"""The OpenAPI schema tells the truth (docs/product/api.md#the-schema): schemathesis
generates requests for every operation from the schema, as a logged-in user and as
staff, and no answer may be a server error, have a status the operation does not list,
or break the schema. Bounded (a few examples per operation) so CI stays quick;
`SCHEMATHESIS_EXAMPLES=200 make test PYTEST_ARGS=tests/platform/test_schema_contract.py` digs
deeper."""

from __future__ import annotations

import os

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from accounts import tokens
from tests.factories import NormalVoucherFactory, ShopFactory, UserFactory

EXAMPLES = int(os.environ.get("SCHEMATHESIS_EXAMPLES", "12"))
CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]


# Loaded once, at collection (the schema view needs neither the database nor a token).
schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
# The literal segments of the API's paths ("hot" of /api/blogs/hot, "activities" ...).
LITERALS = {
    segment
    for path in schema.raw_schema["paths"]
    for segment in path.split("/")
    if segment and not segment.startswith("{")
}


@schema.hook
def filter_path_parameters(ctx, path_parameters) -> bool:
    """A path parameter that spells a sibling's literal segment asks that sibling, not this
    operation: DELETE /api/blogs/hot is a method /api/blogs/hot has not (405). Hypothesis
    draws such values from the codebase's own string constants (so a change anywhere may
    bring one up); they test the router, not the schema."""
    values = (path_parameters or {}).values()
    return not any(isinstance(value, str) and value in LITERALS for value in values)


@pytest.fixture(autouse=True)
def _connection_kept_open():
    """Requests go through Django's real WSGI handler, which closes the database connection
    after each one; the test's transaction needs it open, as Django's test client does."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def _token(*, staff: bool) -> str:
    """A caller's token, and a little data for generated ids to land on."""
    NormalVoucherFactory(shop=ShopFactory())
    return tokens.token_issue(UserFactory(is_staff=staff))


@pytest.fixture
def user_token(db) -> str:
    return _token(staff=False)


@pytest.fixture
def staff_token(db) -> str:
    return _token(staff=True)


BOUNDED = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,  # the same examples every run: a failure reproduces
    suppress_health_check=list(HealthCheck),
)


@pytest.mark.slow
@schema.parametrize()
@BOUNDED
def test_every_operation_keeps_its_schema_for_a_user(case, user_token) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {user_token}"}, checks=CHECKS)


@pytest.mark.slow
@schema.parametrize()
@BOUNDED
def test_every_operation_keeps_its_schema_for_staff(case, staff_token) -> None:
    case.call_and_validate(headers={"Authorization": f"Bearer {staff_token}"}, checks=CHECKS)
