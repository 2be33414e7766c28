"""Strict input (docs/product/errors.md#hard-to-break): what an attacker's probe found
accepted is a 400 in the error contract, or a 404 for a missing parent, and changes
nothing. Each case here was accepted (or a 500) before toolkit/api/fields.py."""

from __future__ import annotations

import json
from collections.abc import Iterator

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.plumbing import force_instance
from drf_spectacular.settings import spectacular_settings
from rest_framework import serializers

from accounts.models import User
from blogs.models import Blog, BlogComment
from shops import services as shop_services
from shops.serializers import HoursField
from tests.factories import BlogFactory, NormalVoucherFactory, ShopFactory
from toolkit.api import fields


@pytest.mark.django_db
@pytest.mark.parametrize("day", ["9999-12-31", "0001-01-01", "1999-12-31", "2026-02-29", ""])
def test_a_day_out_of_range_is_a_400_not_a_500(staff_api, day) -> None:
    shop = ShopFactory()

    response = staff_api.get(f"/api/shops/{shop.id}/redemptions", {"date": day})

    assert response.status_code == 400  # 9999-12-31 was an OverflowError: a 500
    assert response.json()["code"] == "invalid"
    assert "date" in response.json()["errors"]


@pytest.mark.django_db
def test_a_missing_or_deleted_shop_has_no_voucher_list(api, staff_api) -> None:
    shop = ShopFactory()
    staff_api.delete(f"/api/shops/{shop.id}")

    assert api.get("/api/shops/424242/vouchers").status_code == 404  # was 200 []
    assert api.get(f"/api/shops/{shop.id}/vouchers").json()["code"] == "shop_not_found"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    [
        "/api/blogs/424242/comments",
        "/api/blogs/424242/likes",
        "/api/users/424242/blogs",
        "/api/shops/424242/nearby",
        "/api/users/424242/info",
    ],
)
def test_every_nested_list_of_a_missing_parent_is_a_404(api, path) -> None:
    assert api.get(path).status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize(
    "query", ["type_id=%EF%BC%91", "type_id=1.0", "type_id=%201", "page=%EF%BC%92", "page_size="]
)
def test_ids_and_numbers_in_a_query_are_ascii_integers(api, query) -> None:
    response = api.get(f"/api/shops?{query}")

    assert (response.status_code, response.json()["code"]) == (400, "invalid")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "spelled",
    [lambda i: i + 0.5, str, lambda i: True, lambda i: chr(0xFF10 + i % 10), lambda i: 2**64],
)
def test_ids_in_a_body_are_json_integers(user_api, spelled) -> None:
    blog = BlogFactory()
    first = BlogComment.objects.create(blog=blog, user=blog.user, content="first")

    response = user_api.post(
        f"/api/blogs/{blog.id}/comments",
        {"content": "x", "parent_id": spelled(first.id)},  # 1.5 was read as comment 1
        format="json",
    )

    assert response.status_code == 400
    assert "parent_id" in response.json()["errors"]
    assert BlogComment.objects.count() == 1
    assert Blog.objects.get(pk=blog.pk).comments == 0


@pytest.mark.django_db
@pytest.mark.parametrize(
    "nick_name",
    [
        "evil\u202egpj.exe",
        "tab\there",
        "bell\x07",
        "zero\u200bwidth",
        "bom\ufeff",
        "\u2066x",
        "line\u2028break",
        "del\x7f",
        "c1\x85",
        "   ",
        7,
        ["x"],
        None,
    ],
)
def test_a_name_refuses_control_invisible_and_bidi_characters(user, user_api, nick_name) -> None:
    before = User.objects.get(pk=user.pk).nick_name

    response = user_api.patch("/api/users/me", {"nick_name": nick_name}, format="json")

    assert response.status_code == 400
    assert "nick_name" in response.json()["errors"]
    assert User.objects.get(pk=user.pk).nick_name == before


@pytest.mark.django_db
def test_a_lone_surrogate_is_refused_not_stored(user, user_api) -> None:
    body = b'{"nick_name": "half \\ud800 a character"}'

    response = user_api.patch("/api/users/me", body, content_type="application/json")

    assert response.status_code == 400
    assert User.objects.get(pk=user.pk).nick_name == user.nick_name


@pytest.mark.django_db
def test_harmless_text_is_normalised_not_refused(user, user_api) -> None:
    body = {
        "title": "  Cafe\u0301 \U0001f468\u200d\U0001f469\u200d\U0001f467  ",
        "content": "line one\r\nline two\rthree\tfour",
    }

    created = user_api.post("/api/blogs", body, format="json").json()

    assert (
        created["title"] == "Caf\u00e9 \U0001f468\u200d\U0001f469\u200d\U0001f467"
    )  # NFC, ZWJ kept
    assert created["content"] == "line one\nline two\nthree\tfour"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "icon",
    [
        "//evil.example/x.png",
        "http://evil.example/x.png",
        "javascript:alert(1)",
        "/media/../admin/",
        "/static/web/app.js",
        "https://",
        "https://evil.example/a b.png",
        "data:image/png;base64,AAAA",
    ],
)
def test_an_avatar_is_our_picture_or_https(user, user_api, icon) -> None:
    before = User.objects.get(pk=user.pk).icon

    response = user_api.patch("/api/users/me", {"icon": icon}, format="json")

    assert response.status_code == 400
    assert User.objects.get(pk=user.pk).icon == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    "icon", ["/media/uploads/2026/11/a-b_c.jpg", "https://img.example/1.jpg", ""]
)
def test_our_pictures_https_and_no_avatar_are_accepted(user, user_api, icon) -> None:
    response = user_api.patch("/api/users/me", {"icon": icon}, format="json")

    assert response.status_code == 200
    assert User.objects.get(pk=user.pk).icon == icon


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [{"title": "t", "content": 0}, {"title": 0, "content": "c"}, {"title": "t", "content": True},
     {"title": "t", "content": ["c"]}, {"title": "t", "content": {"c": 1}},
     {"title": "t", "content": "c", "images": "https://img.example/1.jpg"}],
)  # fmt: skip
def test_a_note_s_texts_are_strings(user_api, body) -> None:
    response = user_api.post("/api/blogs", body, format="json")

    assert response.status_code == 400  # {"content": 0} was created
    assert not Blog.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "query"),
    [("/api/sign/month", "month=1999-12"), ("/api/sign/month", "month=2026-13"),
     ("/api/feed", "offset=99999999"), ("/api/feed", "max_time=9223372036854775806"),
     ("/api/voucher-orders", "last_id=9223372036854775808"),
     ("/api/voucher-orders", "status=")],
)  # fmt: skip
def test_query_bounds_the_schema_declares_are_enforced(user_api, path, query) -> None:
    response = user_api.get(f"{path}?{query}")

    assert response.status_code == 400  # the feed's huge offset was a 500


@pytest.mark.django_db
def test_the_schema_declares_the_limits_it_enforces(api) -> None:
    schema = json.loads(api.get("/api/schema/?format=json").content)
    shops = {p["name"]: p for p in schema["paths"]["/api/shops"]["get"]["parameters"]}
    redemptions = schema["paths"]["/api/shops/{shop_id}/redemptions"]["get"]["parameters"]
    day = next(p for p in redemptions if p["name"] == "date")["schema"]
    note = schema["components"]["schemas"]["BlogWriteRequest"]["properties"]

    assert shops["page_size"]["schema"]["minimum"] == 1
    assert shops["type_id"]["schema"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 2**63 - 1,
        "format": "int64",
    }
    assert shops["point"]["schema"]["required"] == ["x", "y"]  # both or neither
    assert day["pattern"].startswith("^(?:20[0-9]{2}-")
    assert "\\u202e" in note["title"]["pattern"].lower() or "202e" in note["title"]["pattern"]
    assert note["images"]["items"]["pattern"].startswith("^(?:/media/")
    assert schema["paths"]["/api/shops"]["get"]["security"] == [{"bearerAuth": []}, {}]


def test_the_schema_admits_the_blanks_the_server_accepts(api) -> None:
    """A blank-allowed text ("" clears an avatar) must be valid to the schema too: a
    `oneOf` of the pattern and `maxLength: 0` would refuse "", which matches both."""
    components = json.loads(api.get("/api/schema/?format=json").content)["components"]
    blanks = [
        ("PatchedProfileUpdateRequest", "icon"),
        ("ShopWriteRequest", "area"),
        ("VoucherWriteRequest", "sub_title"),
    ]
    for component, name in blanks:
        field = components["schemas"][component]["properties"][name]
        assert jsonschema.Draft4Validator(field).is_valid(""), (component, name)
        assert not jsonschema.Draft4Validator(field).is_valid("\u202e"), (component, name)


@pytest.mark.django_db
def test_a_staff_shop_edit_with_a_deleted_type_is_409_and_writes_nothing(staff_api) -> None:
    shop = ShopFactory()
    name = shop.name

    response = staff_api.patch(
        f"/api/shops/{shop.id}", {"type_id": 424242, "name": "x"}, format="json"
    )

    assert (response.status_code, response.json()["code"]) == (409, "shop_type_not_found")
    shop.refresh_from_db()
    assert shop.name == name


@pytest.mark.django_db
def test_a_voucher_of_another_kind_is_a_409_not_a_404(user_api) -> None:
    normal = NormalVoucherFactory()

    grabbed = user_api.post(f"/api/vouchers/{normal.id}/seckill")

    assert (grabbed.status_code, grabbed.json()["code"]) == (409, "not_a_sale")


@pytest.mark.django_db
def test_shops_near_a_point_need_no_type(api) -> None:
    shop = ShopFactory(x=121.4737, y=31.2304)
    shop_services.shop_geo_rebuild()

    response = api.get("/api/shops", {"x": 121.4737, "y": 31.2304})

    assert response.status_code == 200  # was 400 "needs a shop type"
    assert [s["id"] for s in response.json()["results"]] == [shop.id]


STRICT = (
    fields.CharField,
    fields.ChoiceField,
    fields.IntegerField,
    fields.FloatField,
    fields.BooleanField,
    fields.DateTimeField,
    fields.PrimaryKeyRelatedField,
    HoursField,  # JSON that shops/hours.py validates whole: exact shapes, keys and times
)


def _request_serializers() -> Iterator[tuple[str, serializers.Serializer]]:
    """Every serializer the schema reads a request from: bodies and query strings."""
    generator = SchemaGenerator()
    generator._initialise_endpoints()
    for path, path_regex, method, view in generator._get_paths_and_endpoints():
        view.request = spectacular_settings.GET_MOCK_REQUEST(method, path, view, None)
        schema = view.schema
        schema.registry = generator.registry
        schema.get_operation(path, path_regex, "", method, generator.registry)
        for source in (schema.get_request_serializer(), *schema.get_override_parameters()):
            serializer = force_instance(source)
            if isinstance(serializer, serializers.Serializer):
                yield f"{method} {path}", serializer


def _lenient_fields(operation: str, serializer: serializers.Serializer) -> Iterator[str]:
    """The fields of `serializer` that are not strict, a nested object's included."""
    for name, field in serializer.fields.items():
        checked = field.child if isinstance(field, serializers.ListField) else field
        if field.read_only or isinstance(checked, (*STRICT, serializers.FileField)):
            continue
        if isinstance(checked, serializers.Serializer):  # an object in the body: its fields
            yield from _lenient_fields(operation, checked)
            continue
        yield f"{operation} {type(serializer).__name__}.{name}: {type(checked)}"


def test_every_request_field_is_a_strict_one() -> None:
    lenient = [
        field
        for operation, serializer in _request_serializers()
        for field in _lenient_fields(operation, serializer)
    ]

    assert lenient == []
