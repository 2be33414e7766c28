"""Search backends: one small interface, chosen by settings.SEARCH_BACKEND (a dotted path),
so a deployment could put Elasticsearch or Meilisearch behind it. Only the database backend
exists: an inverted index in our own table, queried with one SQL statement, on SQLite and
MariaDB alike, with no server of its own."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import Counter
from functools import cache
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils.module_loading import import_string

from .documents import Source, Texts
from .models import Posting
from .tokenizer import terms

TF_CAP = 3  # a term repeated in a long text counts at most this many times


class SearchBackend(ABC):
    @abstractmethod
    def index(self, source: Source, documents: dict[int, Texts | None]) -> None:
        """Make the index hold these documents as given; None drops one."""

    @abstractmethod
    def search(
        self,
        source: Source,
        query_terms: list[str],
        *,
        offset: int,
        limit: int,
        where: dict[str, Any] | None = None,
    ) -> tuple[int, list[int]]:
        """(how many documents match, the ids of `limit` of them from `offset`), best
        first: most query terms matched, then the heaviest hits, then the most popular;
        only documents whose row has the values `where` gives ({field: value}, from
        `Source.scope`)."""

    @abstractmethod
    def prune(self, source: Source) -> int:
        """Drop documents whose rows may no longer be found; returns how many."""


# No index holds this many documents. Page numbers are unbounded, and an OFFSET past
# what the database parses (MariaDB: 2^64 - 1) would be a syntax error, not an empty page.
OFFSET_MAX = 2**32


class DatabaseBackend(SearchBackend):
    def index(self, source: Source, documents: dict[int, Texts | None]) -> None:
        rows = [
            Posting(kind=source.number, term=term, object_id=object_id, weight=weight)
            for object_id, texts in documents.items()
            if texts is not None
            for term, weight in self.postings(source, texts).items()
        ]
        with transaction.atomic():
            Posting.objects.filter(kind=source.number, object_id__in=list(documents)).delete()
            Posting.objects.bulk_create(rows, batch_size=500)

    @staticmethod
    def postings(source: Source, texts: Texts) -> Counter[str]:
        """term -> weight: each field's weight times the term's count there (capped)."""
        weights: Counter[str] = Counter()
        for name, text in texts.items():
            for term, count in terms(text).items():
                weights[term] += source.weights[name] * min(count, TF_CAP)
        return weights

    def search(
        self,
        source: Source,
        query_terms: list[str],
        *,
        offset: int,
        limit: int,
        where: dict[str, Any] | None = None,
    ) -> tuple[int, list[int]]:
        if not query_terms:
            return 0, []
        sql, params = self._ranked(source, query_terms, where)
        with connection.cursor() as cursor:
            if offset < OFFSET_MAX:
                cursor.execute(f"{sql} LIMIT %s OFFSET %s", [*params, limit, offset])
                rows = cursor.fetchall()
                if rows:
                    return rows[0][1], [row[0] for row in rows]
                if offset == 0:
                    return 0, []
            # Past the end: the window count came with no row, so count them apart (rare).
            cursor.execute(f"SELECT COUNT(*) FROM ({sql}) ranked", params)
            return cursor.fetchone()[0], []

    @staticmethod
    def _ranked(
        source: Source, query_terms: list[str], where: dict[str, Any] | None = None
    ) -> tuple[str, list[Any]]:
        """One statement: the postings of the query's terms (the `search_by_term` index
        alone), grouped per document, joined to the kind's table for what may be found (and
        what `where` asks of the row: a shop's city) and for popularity, ranked;
        `COUNT(*) OVER ()` gives the total with the page."""
        q = connection.ops.quote_name
        ranking = source.ranking
        table = q(ranking.model._meta.db_table)
        column = {
            f.name: f.column
            for f in ranking.model._meta.concrete_fields
            if f.column is not None  # all of them: a concrete field is one with a column
        }
        key = q(column.get(ranking.key, ranking.key))
        wanted = {**ranking.visible, **(where or {})}
        matched = "".join(f" AND t.{q(column[name])} = %s" for name in wanted)
        popular = "".join(f", t.{q(column[name])} DESC" for name in ranking.popularity)
        marks = ", ".join(["%s"] * len(query_terms))
        sql = (
            "SELECT h.object_id, COUNT(*) OVER () FROM ("
            f"SELECT object_id, COUNT(*) AS matched, SUM(weight) AS weight "
            f"FROM {q(Posting._meta.db_table)} WHERE kind = %s AND term IN ({marks}) "
            "GROUP BY object_id"
            f") h JOIN {table} t ON t.{key} = h.object_id WHERE 1 = 1{matched} "
            f"ORDER BY h.matched DESC, h.weight DESC{popular}, h.object_id DESC"
        )
        return sql, [source.number, *query_terms, *wanted.values()]

    def prune(self, source: Source) -> int:
        stale = Posting.objects.filter(kind=source.number).exclude(object_id__in=source.all_ids())
        return stale.delete()[0]


@cache
def backend() -> SearchBackend:
    """The configured backend, one per process."""
    return import_string(settings.SEARCH_BACKEND)()
