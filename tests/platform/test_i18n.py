"""docs/product/content.md#languages: the API, the admin and the web client's page
speak Simplified Chinese by default and English on request (Accept-Language, or the
switch's cookie); an error's `code` is the same in every language. The committed
catalog is complete and compiled."""

from __future__ import annotations

import ast
import gettext
import shutil
import subprocess
from pathlib import Path
from typing import TypedDict

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.utils import translation
from rest_framework.test import APIClient

from blogs.models import Blog, BlogComment
from tests.factories import VoucherFactory

ROOT = Path(__file__).resolve().parents[2]


class _Headers(TypedDict):
    HTTP_ACCEPT_LANGUAGE: str


ENGLISH: _Headers = {"HTTP_ACCEPT_LANGUAGE": "en"}


def _english_by_cookie() -> APIClient:
    client = APIClient()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


# --- The API ------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "status", "code", "chinese", "english"),
    [
        # A DRF view raising a domain error.
        ("/api/blogs/424242", 404, "blog_not_found", "笔记不存在。", "No such blog."),
        # The shop detail's plain-Django fast path.
        ("/api/shops/424242", 404, "shop_not_found", "商户不存在。", "No such shop."),
        # An unknown /api/ path, answered before any view.
        ("/api/no-such-thing", 404, "not_found", "未找到。", "Not found."),
    ],
)
def test_an_api_error_is_chinese_by_default_and_english_on_request(
    path, status, code, chinese, english
) -> None:
    default = APIClient().get(path)
    by_header = APIClient().get(path, **ENGLISH)
    by_cookie = _english_by_cookie().get(path)

    assert (default.status_code, default.json()) == (status, {"detail": chinese, "code": code})
    assert (by_header.status_code, by_header.json()) == (status, {"detail": english, "code": code})
    assert (by_cookie.status_code, by_cookie.json()) == (status, {"detail": english, "code": code})
    assert default["Content-Language"] == "zh-hans"
    assert by_header["Content-Language"] == by_cookie["Content-Language"] == "en"


@pytest.mark.django_db
def test_a_business_rule_and_the_flash_sale_answer_in_the_callers_language(user, user_api):
    follow_self = f"/api/follows/{user.id}"
    seckill = "/api/vouchers/424242/seckill"

    chinese = [user_api.put(follow_self).json(), user_api.post(seckill).json()]
    english = [
        user_api.put(follow_self, **ENGLISH).json(),
        user_api.post(seckill, **ENGLISH).json(),
    ]

    assert chinese == [
        {"detail": "不能关注自己。", "code": "cannot_follow_self"},
        {"detail": "秒杀活动不存在。", "code": "voucher_not_found"},
    ]
    assert english == [
        {"detail": "You cannot follow yourself.", "code": "cannot_follow_self"},
        {"detail": "No such flash sale.", "code": "voucher_not_found"},
    ]


@pytest.mark.django_db
def test_validation_messages_ours_and_drfs_follow_the_language(api) -> None:
    body = {"phone": "123"}  # ours refuses the phone; DRF's own says the code is missing

    default = api.post("/api/auth/login", body, format="json")
    english = api.post("/api/auth/login", body, format="json", **ENGLISH)

    assert default.status_code == english.status_code == 400
    assert default.json() == {
        "detail": "输入有误。",
        "code": "invalid",
        "errors": {
            "phone": ["请输入中国大陆手机号：以 13 至 19 开头的 11 位数字。"],
            "code": ["该字段是必填项。"],
        },
    }
    assert english.json() == {
        "detail": "Invalid input.",
        "code": "invalid",
        "errors": {
            "phone": ["Enter a mainland mobile number: 11 digits from 13-19."],
            "code": ["This field is required."],
        },
    }


@pytest.mark.django_db
def test_the_login_code_text_is_in_the_requesters_language(api, sms_outbox) -> None:
    api.post("/api/auth/code", {"phone": "13912345678"}, format="json")
    api.post("/api/auth/code", {"phone": "13912345679"}, format="json", **ENGLISH)

    (_, chinese), (_, english) = sms_outbox
    assert chinese.startswith("【大众点评】您的登录验证码是 ")
    assert english.startswith("Your Dianping login code is ")


# --- The admin ------------------------------------------------------------------


@pytest.mark.django_db
def test_the_admin_shows_chinese_model_names_by_default_and_english_on_request(
    admin_client,
) -> None:
    index = admin_client.get("/admin/").content.decode()
    index_en = admin_client.get("/admin/", **ENGLISH).content.decode()

    for name in ("商户分类", "优惠券订单", "核销记录", "探店笔记", "关注关系", "商户店员"):
        assert name in index
    # The comment model is 评论 (a delete page's summary names it); 评论数 is a note's
    # count of them, a column of the notes list: one English word, two uses.
    with translation.override("zh-hans"):
        assert str(BlogComment._meta.verbose_name_plural) == "评论"
        assert str(Blog._meta.get_field("comments").verbose_name) == "评论数"
    assert "Shop types" not in index
    for name in ("Shop types", "Voucher orders", "Write-offs", "Blogs", "Shop staff"):
        assert name in index_en
    assert "商户分类" not in index_en


@pytest.mark.django_db
def test_the_admin_changelist_columns_and_choices_are_translated(admin_client) -> None:
    VoucherFactory()

    vouchers = admin_client.get("/admin/vouchers/voucher/").content.decode()
    vouchers_en = admin_client.get("/admin/vouchers/voucher/", **ENGLISH).content.decode()
    shop_form = admin_client.get("/admin/shops/shop/add/").content.decode()

    assert "售价" in vouchers  # a column of our own
    assert "秒杀券" in vouchers  # a choice's label
    assert "未开始" in vouchers  # the live status, by its label
    assert "Price" in vouchers_en
    assert "Flash sale" in vouchers_en
    assert "Pending" in vouchers_en
    assert "人均消费" in shop_form  # a field's verbose name
    assert "人均消费，单位：元。" in shop_form  # and its help text


# --- The web client's page ------------------------------------------------------


@pytest.mark.django_db
def test_the_home_page_is_chinese_by_default_and_english_on_request() -> None:
    default = Client().get("/").content.decode()
    english = Client().get("/", **ENGLISH).content.decode()

    assert '<html lang="zh-hans">' in default
    assert ">我的券</a>" in default
    assert '<html lang="en">' in english
    assert ">My vouchers</a>" in english


@pytest.mark.django_db
def test_the_language_switch_sets_the_cookie_and_the_next_page_is_english() -> None:
    client = Client(enforce_csrf_checks=False)

    switched = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    page = client.get("/").content.decode()

    assert switched.status_code == 302
    assert switched.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert '<html lang="en">' in page
    assert ">My vouchers</a>" in page


@pytest.mark.django_db
def test_the_openapi_schema_is_english_whatever_the_language() -> None:
    response = Client().get("/api/schema/?format=json", HTTP_ACCEPT_LANGUAGE="zh-CN")

    assert response.status_code == 200
    assert response["Content-Language"] == "en"
    document = response.content.decode()
    assert "What the buyer pays, in fen." in document  # a model help text, translated
    assert "买家支付的金额" not in document


# --- The catalogs ------------------------------------------------------------------

# The server's (Python and templates) and the web client's (its modules), as `make messages`
# makes them.
DOMAINS = ["django", "djangojs"]
I18N_IGNORE = ["var/*", "tests/*", "bench/*", "*/vendor/*"]  # the Makefile's I18N_IGNORE


def _catalog(domain: str, suffix: str, root: Path = ROOT) -> Path:
    return root / "locale" / "zh_Hans" / "LC_MESSAGES" / f"{domain}{suffix}"


def _po_entries(text: str) -> list[tuple[dict[str, str], set[str]]]:
    """(fields, flags) of every entry of a .po file, the header included (msgid "");
    fields are msgctxt, msgid, msgid_plural, msgstr or msgstr[n], as the entry has them."""
    entries = []
    for block in text.strip().split("\n\n"):
        fields: dict[str, str] = {}
        flags: set[str] = set()
        field = ""
        for line in block.splitlines():
            if line.startswith("#,"):
                flags |= {flag.strip() for flag in line[2:].split(",")}
            elif line.startswith("#"):
                continue
            elif line.startswith('"'):
                fields[field] += ast.literal_eval(line)
            else:
                field, _, value = line.partition(" ")
                fields[field] = ast.literal_eval(value)
        entries.append((fields, flags))
    return entries


def _translations(fields: dict[str, str]) -> list[str]:
    return [value for name, value in fields.items() if name.startswith("msgstr")]


def _as_compiled(entries: list[tuple[dict[str, str], set[str]]]) -> dict[object, str]:
    """What gettext's GNUTranslations reads from a .mo compiled from these entries."""
    catalog: dict[object, str] = {}
    for fields, _ in entries:
        if not fields["msgid"]:
            continue  # the header
        key = fields["msgid"]
        if "msgctxt" in fields:
            key = f"{fields['msgctxt']}\x04{key}"
        if "msgid_plural" in fields:
            for n, text in enumerate(_translations(fields)):
                catalog[(key, n)] = text
        else:
            catalog[key] = fields["msgstr"]
    return catalog


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_message_of_the_catalog_is_translated_and_none_is_fuzzy(domain) -> None:
    entries = _po_entries(_catalog(domain, ".po").read_text(encoding="utf-8"))
    header = next(fields["msgstr"] for fields, _ in entries if fields["msgid"] == "")

    untranslated = [f["msgid"] for f, _ in entries if f["msgid"] and not all(_translations(f))]
    fuzzy = [fields["msgid"] for fields, flags in entries if "fuzzy" in flags]
    assert len(entries) > 150
    assert untranslated == []
    assert fuzzy == []
    assert "Language: zh_Hans\n" in header


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_committed_mo_is_the_po_compiled(domain) -> None:
    entries = _po_entries(_catalog(domain, ".po").read_text(encoding="utf-8"))

    with _catalog(domain, ".mo").open("rb") as committed:
        committed_catalog = gettext.GNUTranslations(committed)._catalog  # type: ignore[attr-defined]
    committed_catalog.pop("", None)  # the header
    assert committed_catalog == _as_compiled(entries)


@pytest.mark.parametrize("domain", DOMAINS)
def test_placeholders_of_every_translation_match_the_message(domain, tmp_path) -> None:
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        pytest.skip("msgfmt (Debian's gettext, which `make test` installs) is not installed")
    # --check refuses a translation whose %(name)s placeholders differ from the msgid's.
    subprocess.run(
        [msgfmt, "--check", "-o", str(tmp_path / "out.mo"), str(_catalog(domain, ".po"))],
        check=True,
    )


@pytest.mark.slow
@pytest.mark.parametrize("domain", DOMAINS)
def test_the_catalog_holds_every_string_of_the_source(domain, tmp_path, settings, monkeypatch):
    """A new gettext("…") without its entry would show English in Chinese: `make messages`
    must have been run. Extracts afresh into a copy of locale/ and compares the messages."""
    if shutil.which("xgettext") is None:
        pytest.skip("xgettext (Debian's gettext, which `make test` installs) is not installed")
    # A tree of links to the sources beside a copy of locale/: makemessages writes into the
    # locale/ nearest the files it reads, which must not be the repository's own.
    tree = tmp_path / "tree"
    tree.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in {"locale", ".venv", "var", ".git"}:
            (tree / entry.name).symlink_to(entry)
    shutil.copytree(ROOT / "locale", tree / "locale")
    settings.LOCALE_PATHS = [tree / "locale"]
    monkeypatch.chdir(tree)
    call_command(
        "makemessages",
        locale=["zh_Hans"],
        domain=domain,
        no_obsolete=True,
        symlinks=True,
        ignore_patterns=I18N_IGNORE,
        verbosity=0,
    )

    def messages(po: Path) -> set[tuple[str | None, str]]:
        entries = _po_entries(po.read_text(encoding="utf-8"))
        return {(fields.get("msgctxt"), fields["msgid"]) for fields, _ in entries}

    assert messages(_catalog(domain, ".po", tree)) == messages(_catalog(domain, ".po"))
