"""The database backend's inverted index: one row per (document, term), weighted by the
fields the term occurs in. Documents are identified by their kind's number and the row's
id: the index holds no text, only terms."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from .tokenizer import TERM_MAX


class Posting(models.Model):
    id = models.BigAutoField(primary_key=True)
    kind = models.PositiveSmallIntegerField(_("kind"))  # Source.number
    term = models.CharField(_("term"), max_length=TERM_MAX)
    object_id = models.PositiveBigIntegerField(_("object id"))
    weight = models.PositiveIntegerField(_("weight"))

    class Meta:
        verbose_name = _("search posting")
        verbose_name_plural = _("search postings")
        constraints = [
            # Also the index that a document's refresh deletes its postings by. The id
            # leads: led by the kind, SQLite's planner would scan it for the search query's
            # GROUP BY object_id instead of seeking the few terms in `search_by_term`.
            models.UniqueConstraint(
                fields=["object_id", "kind", "term"], name="search_one_posting_per_term"
            )
        ]
        # The search query's: the postings of a few terms, weights read from the index
        # itself (covering), never from the table.
        indexes = [
            models.Index(fields=["kind", "term", "object_id", "weight"], name="search_by_term")
        ]

    def __str__(self) -> str:
        return f"{self.term} -> {self.kind}:{self.object_id}"
