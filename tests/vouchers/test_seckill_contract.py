"""The sale script's contract is named once on each side: seckill.lua unpacks KEYS and
ARGV by name and returns verdicts from its VERDICT table; seckill.py builds them from
SaleKeys, SaleArgs and Verdict. These tests fail as soon as the two sides disagree."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.factories import UserFactory
from tests.helpers import client_for
from tests.vouchers.sales import start_sale
from toolkit import clock
from toolkit.redis import ids
from vouchers import keys, sale_orders
from vouchers.sale import seckill, shard

LUA = (Path(seckill.__file__).parent / "lua" / "seckill.lua").read_text(encoding="utf-8")


def _unpacked(table: str) -> list[str]:
    """The names of `local a, b, ... = unpack(<table>)` in the script."""
    match = re.search(rf"^local ([\w,\s]+?) = unpack\({table}\)", LUA, re.M)
    assert match, f"seckill.lua does not unpack {table} by name"
    return [name.strip() for name in match.group(1).split(",")]


def _lua_verdicts() -> dict[str, int]:
    match = re.search(r"^local VERDICT = \{(.*?)^\}", LUA, re.M | re.S)
    assert match, "seckill.lua has no VERDICT table"
    return {name: int(code) for name, code in re.findall(r"(\w+) = (-?\d+)", match.group(1))}


def test_keys_are_unpacked_in_the_order_python_sends_them() -> None:
    # The login token is the optional last key, appended in token mode only.
    assert _unpacked("KEYS") == [*seckill.SaleKeys._fields, "token_key"]


def test_args_are_unpacked_in_the_order_python_sends_them() -> None:
    assert _unpacked("ARGV") == list(seckill.SaleArgs._fields)


def test_both_sides_name_the_same_verdicts() -> None:
    assert _lua_verdicts() == {v.name.lower(): v.value for v in seckill.Verdict}


def test_the_script_returns_only_named_verdicts_and_reads_no_numbered_slot() -> None:
    body = LUA.split("local VERDICT", 1)[1]
    assert not re.search(r"return \{\s*-?\d", body), "a verdict returned by number"
    assert not re.search(r"(KEYS|ARGV)\[\d+\]", LUA), "a key or argument read by position"
    used = set(re.findall(r"VERDICT\.(\w+)", body))
    assert used == set(_lua_verdicts()), "a verdict the script never returns, or an unknown one"


@pytest.mark.django_db
def test_a_shard_out_of_order_ids_today_refuses_with_503_and_sells_nothing(
    fake_clock, redis_client
) -> None:
    sale = start_sale(stock=5)
    shard_no = shard.shard_of(sale.id)
    now = int(clock.now_seconds())
    # The day's counter so far along that the next id's low part needs more than 32 bits.
    counter = keys.seckill_id_counter(shard_no, ids.day_of(now))
    redis_client.set(counter, 2**32 >> sale_orders.shard_bits())

    response = client_for(UserFactory()).post(f"/api/vouchers/{sale.id}/seckill")

    assert response.status_code == 503
    assert redis_client.get(shard.stock_key(sale.id)) == b"5"
    assert redis_client.hlen(shard.buyers_key(sale.id)) == 0
    assert redis_client.xlen(keys.seckill_orders(shard_no)) == 0
