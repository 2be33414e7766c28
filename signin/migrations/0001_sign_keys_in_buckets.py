"""Sign-in keys move into buckets (signin.buckets.BUCKETS, 64): a user's month bitmaps from
`sign:{u<id>}:<YYYYMM>` to `sign:{g<id % 64>}:<id>:<YYYYMM>`, and the one per-day counts
hash into bucket 0's (the report sums the buckets), so that the sign script's two keys
share a Cluster slot. Safe to run again: moved keys are not found a second time. Run on
the Redis of the deployment (REDIS_URL) as part of `manage.py migrate`."""

from django.db import migrations

BUCKETS = 64  # as signin.buckets.BUCKETS was when this was written
OLD_BITMAPS = "sign:{u*}:*"
OLD_COUNTS = "sign:daily-counts"


def forwards(apps, schema_editor):
    from toolkit.redis.client import get_redis

    client = get_redis()
    for raw in client.scan_iter(match=OLD_BITMAPS, count=1000):
        old = raw.decode()
        user_id, month = old[len("sign:{u") :].split("}:")
        _move(client, old, f"sign:{{g{int(user_id) % BUCKETS}}}:{user_id}:{month}")
    counts = client.hgetall(OLD_COUNTS)
    if counts:  # (a crash between adding and deleting would count these days twice)
        pipe = client.pipeline(transaction=False)
        for day, users in counts.items():
            pipe.hincrby("sign:{g0}:daily-counts", day, int(users))
        pipe.delete(OLD_COUNTS)
        pipe.execute()


def _move(client, old, new):
    """RENAME where both keys may live in different Cluster slots, and where the new key
    may already hold sign-ins made by new code before this ran: the old bitmap is copied
    beside the new key (same hash tag), OR-ed into it, and both copies are deleted. A
    crash in between only makes the next run OR the same bits again."""
    dump = client.dump(old)
    if dump is not None:
        scratch = f"{new}:moving"  # the new key's hash tag comes first, so its slot
        client.restore(scratch, 0, dump, replace=True)
        client.bitop("OR", new, new, scratch)
        client.delete(scratch)
        client.delete(old)


class Migration(migrations.Migration):
    dependencies = []

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
