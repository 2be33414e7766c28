"""Users as search documents (search.documents): active users, found by nick name and
introduction; ranked among equals by followers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from search.documents import Ranking, Source, Texts

from .models import User, UserInfo
from .serializers import PublicUserSerializer


class UserSource(Source):
    kind = "users"
    number = 3
    weights = {"nick_name": 10, "introduce": 1}
    ranking = Ranking(model=UserInfo, key="user", popularity=("fans",))
    item_serializer = PublicUserSerializer
    highlighted = ("nick_name",)

    def texts(self, ids: Iterable[int], *, lock: bool = False) -> dict[int, Texts]:
        users = User.objects.filter(pk__in=list(ids))
        if lock:
            users = users.select_for_update()
        rows = list(users.filter(is_active=True).values_list("id", "nick_name"))
        intros = dict(
            UserInfo.objects.filter(user_id__in=[r[0] for r in rows]).values_list(
                "user_id", "introduce"
            )
        )
        return {
            user_id: {"nick_name": nick_name, "introduce": intros.get(user_id, "")}
            for user_id, nick_name in rows
        }

    def all_ids(self) -> Any:
        return User.objects.filter(is_active=True).order_by("id").values_list("id", flat=True)

    def items(self, ids: list[int], *, viewer_id: int | None) -> dict[int, dict[str, Any]]:
        """From the user cache, as the user pages show them (a query and a serializer per
        user cost a users' search more than the search itself)."""
        from .selectors import public_user_documents

        return public_user_documents(ids)
