"""The one retry place for transactions the database gave up on (toolkit.transactions): a
real InnoDB deadlock is retried until both sides commit; a conflict that keeps coming back
is a 503 with Retry-After, never a 500; other errors are not retried."""

from __future__ import annotations

import threading

import pytest
from django.db import OperationalError, connection, transaction

from blogs.models import Blog
from tests.factories import BlogFactory
from tests.helpers import run_concurrently
from toolkit.api.exceptions import exception_handler
from toolkit.transactions import ATTEMPTS, is_lock_conflict, retry_on_lock_conflict


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(
    connection.vendor != "mysql", reason="SQLite takes its write lock up front: no deadlock"
)
def test_a_real_deadlock_is_retried_until_both_transactions_commit() -> None:
    first, second = BlogFactory(), BlogFactory()
    both_hold_one = threading.Barrier(2)
    attempts = [0, 0]

    def locks_in_order(i: int) -> str:
        @retry_on_lock_conflict
        def work() -> str:
            attempts[i] += 1
            order = (first.pk, second.pk) if i == 0 else (second.pk, first.pk)
            with transaction.atomic():
                Blog.objects.filter(pk=order[0]).update(title=f"by {i}")
                if attempts[i] == 1:
                    both_hold_one.wait(timeout=10)  # then each wants the other's row
                Blog.objects.filter(pk=order[1]).update(title=f"by {i}")
            return "committed"

        return work()

    assert run_concurrently(locks_in_order, workers=2) == ["committed", "committed"]
    assert sorted(attempts) == [1, 2]  # InnoDB chose one victim, and it ran once more
    assert Blog.objects.filter(title__startswith="by ").count() == 2


def test_a_conflict_that_keeps_coming_back_is_given_up_after_the_bounded_attempts() -> None:
    calls = []

    @retry_on_lock_conflict
    def always_the_victim() -> None:
        calls.append(1)
        raise OperationalError(1213, "Deadlock found when trying to get lock")

    with pytest.raises(OperationalError):
        always_the_victim()
    assert len(calls) == ATTEMPTS


def test_other_database_errors_are_not_retried() -> None:
    calls = []

    @retry_on_lock_conflict
    def server_gone() -> None:
        calls.append(1)
        raise OperationalError(2006, "MySQL server has gone away")

    with pytest.raises(OperationalError):
        server_gone()
    assert calls == [1]


@pytest.mark.django_db
def test_inside_a_callers_transaction_it_runs_once_and_the_caller_decides() -> None:
    calls = []

    @retry_on_lock_conflict
    def victim() -> None:
        calls.append(1)
        raise OperationalError(1205, "Lock wait timeout exceeded")

    with pytest.raises(OperationalError), transaction.atomic():
        victim()
    assert calls == [1]


def test_a_lost_lock_conflict_answers_503_with_retry_after() -> None:
    for error in (
        OperationalError(1213, "Deadlock found when trying to get lock"),
        OperationalError(1205, "Lock wait timeout exceeded; try restarting transaction"),
        OperationalError("database is locked"),
    ):
        assert is_lock_conflict(error)
        response = exception_handler(error, {})
        assert response is not None
        assert (response.status_code, response.data["code"]) == (503, "busy")
        assert response["Retry-After"] == "1"
    assert exception_handler(OperationalError(2006, "gone away"), {}) is None  # a 500 still
