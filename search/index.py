"""Keeping the index in step with the data: `refresh` makes one row's document agree with
the row (the task that services queue after their commit, search.tasks.refresh_on_commit,
runs it), and `rebuild` re-indexes everything (the rebuild_search_index command)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from tqdm import tqdm

from toolkit.bulk import batched
from toolkit.transactions import retry_on_lock_conflict

from .backends import backend
from .documents import kinds, source

REBUILD_BATCH = 500


@retry_on_lock_conflict
def refresh(kind: str, object_id: int) -> bool:
    """Re-read one row and make the index agree with it: indexed if it may be found,
    dropped if it is missing or hidden. Returns whether it is indexed now.

    The row is locked while its document is rewritten, so two refreshes of it, or a
    refresh and a write, serialise: the last one to run read the newest row.
    """
    docs = source(kind)
    with transaction.atomic():
        texts = docs.texts([object_id], lock=True).get(object_id)
        backend().index(docs, {object_id: texts})
    return texts is not None


def rebuild(*, only: Iterable[str] | None = None, progress: bool = False) -> dict[str, int]:
    """Re-index every row of each kind in batches, then drop documents of rows that are
    gone; returns {kind: documents indexed}. Writes meanwhile stay correct: a batch locks
    nothing, but each refresh after a write re-reads its row after the batch wrote it, or
    before, and then the batch read the newer row itself."""
    counts: dict[str, int] = {}
    for kind in only or kinds():
        docs = source(kind)
        ids = docs.all_ids()
        bar = tqdm(total=ids.count(), unit="doc", disable=not progress, desc=f"search: {kind}")
        counts[kind] = 0
        for batch in batched(ids.iterator(chunk_size=REBUILD_BATCH), REBUILD_BATCH):
            texts = docs.texts(batch)
            backend().index(docs, {i: texts.get(i) for i in batch})
            counts[kind] += len(texts)
            bar.update(len(batch))
        bar.close()
        backend().prune(docs)
    return counts
