"""The limit attacks of issue 36, reproducible: how many login codes the addresses of one
IPv6 /64 are sent, and what one account's comment flood leaves in its victim's inbox.

    .venv/bin/python bench/attack_limits.py [--workers 2]

A production-shaped server (scripts/web.sh: granian, production settings) behind one
proxy of ours (`NUM_PROXIES=1`: the client's address is the last `X-Forwarded-For`
entry), with a Redis, a SQLite database and a Celery worker of its own (notifications are
written by Celery tasks), so nothing of `make run`'s is touched.

1. `POST /api/auth/code` for 60 different phones from 60 addresses of one IPv6 /64, from
   60 IPv4 addresses and from 60 addresses spread over 3 /64s: the answers (202 sent, 429
   limited; `sms_ip` allows 20 an hour per address, an IPv6 client's being its /64) and
   how many texts the SMS file backend wrote.
2. A victim with notes and three real notifications from a friend (a follow, a like, a
   comment on their note); one attacker then posts 100 comments on that note and one on
   each of 30 others. The per-user comment limit (`comment_user`) is lifted for the run,
   so what is measured is the notifications' own cap (decision 287) and folding (decision
   285). Once the worker has drained, the victim's inbox is read over HTTP.
"""

from __future__ import annotations

import argparse
import http.client
import json
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import redis
from harness import ROOT, VENV_BIN, Server, free_port, manage, manage_output, own_stack

SOURCES = {
    "60 addresses of one IPv6 /64": [f"2001:db8:36:1::{i:x}" for i in range(1, 61)],
    "60 IPv4 addresses": [f"198.51.100.{i}" for i in range(1, 61)],
    "60 addresses of 3 /64s, taken in turn": [
        f"2001:db8:36:{10 + i % 3}::{i + 1:x}" for i in range(60)
    ],
}

PEOPLE = """
import json
from accounts.models import User
from blogs.models import Blog
victim, friend, attacker = (User.objects.get(phone=f"100{{i:08d}}") for i in range(3))
notes = Blog.objects.bulk_create(
    [Blog(user=victim, title=f"note {{i}}", content="A quiet note.") for i in range({notes})]
)
print(json.dumps({{"victim": victim.id, "friend": friend.id, "attacker": attacker.id,
                  "notes": [note.id for note in notes]}}))
"""

FLOOD_COMMENTS = 100  # on the victim's note
FLOOD_NOTES = 30  # one comment on each of as many other notes of the victim's
DRAIN_TIMEOUT = 120  # seconds the worker is given to tell everything


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    sms = Path(tempfile.mkdtemp(prefix="bench-attack-sms-"))
    extra = {
        "NUM_PROXIES": "1",
        "SMS_BACKEND": "file",
        "SMS_FILE_PATH": str(sms),
        "THROTTLE_COMMENT_USER": "1000000/minute",  # the notifications' cap is what is measured
    }
    with own_stack("bench-attack-limits", **extra) as env:
        tokens_file = sms.parent / f"{sms.name}-tokens"
        manage("issue_tokens", "--count", "3", "--out", str(tokens_file), env=env)
        tokens = tokens_file.read_text().split()
        tokens_file.unlink()
        people = json.loads(
            manage_output("shell", "-v0", "-c", PEOPLE.format(notes=1 + FLOOD_NOTES), env=env)
        )
        worker = subprocess.Popen(
            [
                str(VENV_BIN / "python"),
                "-m",
                "celery",
                "-A",
                "dianping",
                "--quiet",
                "worker",
                "--pool",
                "solo",
                "--loglevel",
                "WARNING",
                "--without-mingle",
                "--without-gossip",
            ],
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )
        try:
            with Server("granian", args.workers, free_port(), env) as server:
                print(
                    f"\nserver=granian (scripts/web.sh) workers={args.workers}, NUM_PROXIES=1, "
                    "a Celery worker (solo pool); SQLite"
                )
                _codes(server, sms)
                broker = redis.Redis.from_url(env["CELERY_BROKER_URL"])
                roles = dict(zip(("victim", "friend", "attacker"), tokens, strict=True))
                _flood(server, roles, people, broker)
        finally:
            worker.terminate()  # a warm shutdown: the task in hand finishes
            worker.wait(timeout=60)


def _codes(server: Server, sms: Path) -> None:
    print("\n| `POST /api/auth/code`, 60 phones | 202 | 429 | other | texts written |")
    print("|---|---|---|---|---|")
    phones = (f"1390000{n:04d}" for n in range(10_000))
    for label, addresses in SOURCES.items():
        before = len(list(sms.iterdir()))
        statuses: Counter[int] = Counter()
        with _Client(server) as client:
            for address in addresses:
                status, _ = client.call(
                    "POST",
                    "/api/auth/code",
                    body={"phone": next(phones)},
                    headers={"X-Forwarded-For": address},
                )
                statuses[status] += 1
        other = {s: n for s, n in statuses.items() if s not in (202, 429)}
        print(
            f"| {label} | {statuses[202]} | {statuses[429]} | {other or '-'} | "
            f"{len(list(sms.iterdir())) - before} |"
        )


def _flood(server: Server, tokens: dict[str, str], people: dict[str, Any], broker: Any) -> None:
    note, others = people["notes"][0], people["notes"][1:]
    with _Client(server) as client:
        friend = client.as_user(tokens["friend"])
        friend("PUT", f"/api/follows/{people['victim']}", None, 200)
        friend("POST", f"/api/blogs/{note}/like", None, 200)
        friend("POST", f"/api/blogs/{note}/comments", {"content": "Lovely place!"}, 201)
        victim = client.as_user(tokens["victim"])
        before = _poll(lambda: _inbox(victim), lambda items: len(items) >= 3, "the friend's three")
        print(f"\nthe victim's inbox before the flood: {_summary(before, people)}")

        attacker = client.as_user(tokens["attacker"])
        statuses: Counter[int] = Counter()
        started = time.monotonic()
        for n in range(FLOOD_COMMENTS):
            statuses[attacker("POST", f"/api/blogs/{note}/comments", {"content": f"spam {n}"})] += 1
        for other in others:
            statuses[attacker("POST", f"/api/blogs/{other}/comments", {"content": "spam"})] += 1
        took = time.monotonic() - started
        print(
            f"one attacker's {FLOOD_COMMENTS} comments on that note and 1 on each of "
            f"{len(others)} others, in {took:.1f} s (comment_user lifted): "
            f"{dict(sorted(statuses.items()))}"
        )
        # The worker runs its tasks one at a time in queue order: once a task enqueued after
        # the flood has told its user, the flood's tasks have all run; an empty queue and no
        # unacknowledged message rule out a retry still waiting.
        friend("PUT", f"/api/follows/{people['attacker']}", None, 200)
        attackers_inbox = client.as_user(tokens["attacker"])
        _poll(
            lambda: _inbox(attackers_inbox),
            lambda items: (
                any(item["kind"] == "followed" for item in items)
                and broker.llen("celery") == 0
                and broker.hlen("unacked") == 0
            ),
            "the worker to drain",
        )
        after = _inbox(victim)
        _, unread = victim("GET", "/api/notifications/unread-count", None, 200)
        print(f"the victim's inbox after it: {_summary(after, people)}; unread {unread['unread']}")
        print("\n| item | actor | note | count | read |\n|---|---|---|---|---|")
        names = {people[who]: who for who in ("victim", "friend", "attacker")}
        for item in after:
            blog = item["blog"]["id"] if item["blog"] else "-"
            blog = "the note" if blog == note else ("another note" if blog != "-" else blog)
            actor = names.get(item["actor"]["id"], "?") if item["actor"] else "-"
            print(f"| {item['kind']} | {actor} | {blog} | {item['count']} | {item['read']} |")


def _summary(items: list[dict[str, Any]], people: dict[str, Any]) -> str:
    kinds = Counter(item["kind"] for item in items)
    friend = people["friend"]

    def has(kind: str) -> bool:
        return any(i["kind"] == kind and (i["actor"] or {}).get("id") == friend for i in items)

    note = people["notes"][0]
    on_note = [i for i in items if i["kind"] == "commented" and (i["blog"] or {}).get("id") == note]
    comment = (
        f"in the note's item (count {on_note[0]['count']}, shown: "
        f"{'the friend' if on_note[0]['actor']['id'] == friend else 'another commenter'})"
        if on_note
        else "gone"
    )
    return (
        f"{len(items)} items {dict(sorted(kinds.items()))}; the friend's follow "
        f"{'there' if has('followed') else 'gone'}, like {'there' if has('liked') else 'gone'}, "
        f"comment {comment}"
    )


def _inbox(call: Callable[..., Any]) -> list[dict[str, Any]]:
    items, last_id = [], None
    while True:
        query = f"?last_id={last_id}" if last_id else ""
        _, page = call("GET", f"/api/notifications{query}", None, 200)
        items += page["results"]
        last_id = page["last_id"]
        if last_id is None:
            return items


def _poll(read: Callable[[], Any], done: Callable[[Any], bool], what: str) -> Any:
    deadline = time.monotonic() + DRAIN_TIMEOUT
    while time.monotonic() < deadline:
        value = read()
        if done(value):
            return value
        time.sleep(0.2)
    raise RuntimeError(f"waited {DRAIN_TIMEOUT} s for {what}")


class _Client:
    def __init__(self, server: Server) -> None:
        host, port = server.url.removeprefix("http://").split(":")
        self.connection = http.client.HTTPConnection(host, int(port), timeout=60)

    def __enter__(self) -> _Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.connection.close()

    def call(
        self, method: str, path: str, *, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        sent = {"Content-Type": "application/json", **(headers or {})}
        data = None if body is None else json.dumps(body)
        self.connection.request(method, path, body=data, headers=sent)
        response = self.connection.getresponse()
        raw = response.read()
        return response.status, json.loads(raw) if raw else None

    def as_user(self, token: str) -> Callable[..., Any]:
        """A caller with the user's token: (method, path, body, expected status) answers
        the body, and fails on any other status; without an expected status it answers
        the status alone."""

        def call(method: str, path: str, body: Any = None, expect: int | None = None) -> Any:
            status, answer = self.call(
                method, path, body=body, headers={"Authorization": f"Bearer {token}"}
            )
            if expect is None:
                return status
            if status != expect:
                raise RuntimeError(f"{method} {path}: {status} {answer}")
            return status, answer

        return call


if __name__ == "__main__":
    main()
