"""The decision records (docs/decisions/) and the citations of them elsewhere.

Entries are cited by number ("decision 211", "decisions 138-143", and "[64, 67]" in
docs/operations.md and docs/security.md), so numbers never change: each file holds a
domain's entries in number order, a replaced entry is deleted and its number listed as
retired in docs/decisions/README.md, and the index names the next free number.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DECISIONS = ROOT / "docs" / "decisions"
INDEX = DECISIONS / "README.md"

ENTRY = re.compile(r"^\*\*(\d+)\. (.*)$", re.M)
# "decision 78", "decisions 197 and 208", a range with a dash (U+2013 or "-"), a list broken
# over lines.
CITED = re.compile(r"\b[Dd]ecisions?\s+(\d+(?:\s*(?:,|\u2013|-|and)\s*\d+)*)")
# docs/operations.md and docs/security.md cite in brackets: "[13]", "[64, 67]", "[68-70]".
BRACKETED = re.compile(r"\[(\d+(?:\s*[,\u2013-]\s*\d+)*)\]")
BRACKET_DOCS = ("docs/operations.md", "docs/security.md")

SOURCES = {".py", ".md", ".js", ".html", ".sh", ".toml", ".txt", ".cfg", ".yml", ".yaml"}
SKIP_DIRS = {".git", ".venv", "var", "node_modules", "__pycache__", "screenshots", "vendor"}
THIS = Path(__file__).resolve()


def _entries() -> dict[Path, list[tuple[int, str]]]:
    return {
        path: [(int(n), text) for n, text in ENTRY.findall(path.read_text())]
        for path in sorted(DECISIONS.glob("*.md"))
        if path != INDEX
    }


def _numbers() -> list[int]:
    return [n for entries in _entries().values() for n, _ in entries]


def _retired() -> set[int]:
    match = re.search(r"^Retired: ([\d, ]+)\.$", INDEX.read_text(), re.M)
    assert match, "docs/decisions/README.md lists no retired numbers (`Retired: 12, 40.`)"
    return {int(n) for n in match.group(1).split(",")}


def _numbers_in(spec: str) -> set[int]:
    """The numbers of a citation: 197 and 208 -> {197, 208}; 138-143 -> {138, ..., 143}."""
    found: set[int] = set()
    for part in re.split(r"\s*(?:,|and)\s*", spec):
        ends = [int(n) for n in re.split(r"\s*[\u2013-]\s*", part)]
        found.update(range(ends[0], ends[-1] + 1))
    return found


def _sources() -> list[Path]:
    found = []
    for path in ROOT.rglob("*"):
        if any(part in SKIP_DIRS for part in path.relative_to(ROOT).parts):
            continue
        if not path.is_file() or path in (THIS, INDEX):
            continue
        scripts = path.name == "Makefile" or path.parent.name in {".ci", "scripts"}
        if path.suffix in SOURCES or scripts:
            found.append(path)
    return found


def _citations() -> list[tuple[str, int]]:
    """(where, number) for every decision cited in the repository (the index aside)."""
    cited = []
    for path in _sources():
        text = path.read_text(errors="replace")
        name = path.relative_to(ROOT).as_posix()
        patterns = [CITED, BRACKETED] if name in BRACKET_DOCS else [CITED]
        for pattern in patterns:
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                cited += [(f"{name}:{line}", n) for n in _numbers_in(match.group(1))]
    return cited


def test_numbers_are_unique_and_in_order():
    numbers = _numbers()
    assert len(numbers) > 200  # the parser found the entries
    assert len(numbers) == len(set(numbers)), sorted(n for n in numbers if numbers.count(n) > 1)
    for path, entries in _entries().items():
        in_file = [n for n, _ in entries]
        assert in_file == sorted(in_file), path.name
    assert not set(numbers) & _retired(), "a retired number is in use again"


def test_the_index_names_every_file_and_the_next_free_number():
    index = INDEX.read_text()
    for path in _entries():
        assert f"]({path.name})" in index, f"{path.name} is missing from the index"
    match = re.search(r"Next free number: (\d+)", index)
    assert match, "the index does not say which number is next"
    assert int(match.group(1)) == max([*_numbers(), *_retired()]) + 1


def test_every_cited_decision_exists_or_is_retired():
    known = set(_numbers()) | _retired()
    unknown = [(where, n) for where, n in _citations() if n not in known]
    assert not unknown, unknown


def test_no_citation_of_a_retired_decision():
    """A retired number's citation is pointed at the entry that replaced it (the index
    says which); the retired list only explains citations outside the repository."""
    retired = _retired()
    stale = [(where, n) for where, n in _citations() if n in retired]
    assert not stale, stale


def test_nothing_points_at_the_old_single_file():
    old = [
        path.relative_to(ROOT).as_posix()
        for path in _sources()
        if "decisions.md" in path.read_text(errors="replace")
    ]
    assert not (ROOT / "docs" / "decisions.md").exists()
    assert not old, old


def _sentences(entry: str) -> list[str]:
    text = re.sub(r"`[^`]*`", "code", entry).replace("**", "")
    return [s for s in re.split(r"(?<=[.!?。])[\"”)]?\s+(?=[A-Z\"“(])", text) if s.strip()]


def test_entries_are_three_sentences_at_most():
    """A sentence ends at ., ! or ? (or 。) before a capital or an opening quote or
    bracket; code spans are left out, so a dot inside one never counts."""
    long = [
        (path.name, n, len(_sentences(text)))
        for path, entries in _entries().items()
        for n, text in entries
        if len(_sentences(text)) > 3
    ]
    assert not long, long


# The product's rules (docs/product/) are cited by path, with an optional anchor:
# "docs/product/vouchers.md#the-flash-sale"; Markdown pages link them relatively.
DOC_PATH = re.compile(r"(?<![\w/.-])(docs/[\w./-]+?\.md)(?:#([\w-]+))?")
MD_LINK = re.compile(r"\]\(([^)#\s:]+\.md)(?:#([\w-]+))?\)")
OLD_SPEC = "SPEC " + "\u00a7"  # spelled apart so this file does not cite it


def _anchors(page: Path) -> set[str]:
    """The anchors of a page's headings, as GitHub spells them."""
    headings = re.findall(r"^#+\s+(.*?)\s*$", page.read_text(), re.M)
    return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}


def _doc_citations() -> list[tuple[str, Path, str | None]]:
    """(where, the page cited, its anchor or None) for every docs/ page cited."""
    cited = []
    for path in _sources():
        text = path.read_text(errors="replace")
        name = path.relative_to(ROOT).as_posix()
        found = [(ROOT / m.group(1), m) for m in DOC_PATH.finditer(text)]
        if path.suffix == ".md":
            found += [(path.parent / m.group(1), m) for m in MD_LINK.finditer(text)]
        for page, match in found:
            line = text.count("\n", 0, match.start()) + 1
            cited.append((f"{name}:{line}", page.resolve(), match.group(2)))
    return cited


def test_nothing_cites_the_spec_outside_the_repository():
    """The product spec is not in the repository: its rules are described in
    docs/product/, and code cites those pages instead of "SPEC" and a section sign."""
    found = []
    for path in ROOT.rglob("*"):
        if any(part in SKIP_DIRS for part in path.relative_to(ROOT).parts):
            continue
        if not path.is_file() or path == THIS or path.stat().st_size > 2_000_000:
            continue
        if OLD_SPEC in path.read_text(errors="replace"):
            found.append(path.relative_to(ROOT).as_posix())
    assert not found, found


def test_every_cited_page_and_anchor_exists():
    cited = _doc_citations()
    assert any("docs/product" in str(page) for _, page, _ in cited)  # the parser found them
    missing = [(where, str(page)) for where, page, _ in cited if not page.is_file()]
    assert not missing, missing
    unknown = [
        (where, f"{page.name}#{anchor}")
        for where, page, anchor in cited
        if anchor and anchor not in _anchors(page)
    ]
    assert not unknown, unknown


def test_every_product_page_is_in_its_index():
    index = (ROOT / "docs" / "product" / "README.md").read_text()
    for page in (ROOT / "docs" / "product").glob("*.md"):
        assert page.name == "README.md" or f"]({page.name})" in index, page.name


def _readme_commands() -> list[str]:
    """The README's shell commands, a command continued over lines joined into one."""
    commands: list[str] = []
    for block in re.findall(r"^```sh\n(.*?)^```", (ROOT / "README.md").read_text(), re.S | re.M):
        pending = ""
        for line in block.split("\n"):
            pending += line + "\n"
            if not line.endswith("\\"):
                commands.append(pending)
                pending = ""
    return commands


def test_readme_curls_end_their_output_with_a_newline() -> None:
    """A curl printing an answer to the terminal ends it with `-w '\\n'`, so the next
    prompt or answer starts on a line of its own (decision 469); piped, captured and
    downloading ones are left alone."""
    quiet = re.compile(r"\n\s*\||\| (python3|scripts/field)| -O")  # piped on, or saved
    printing = [
        c for c in _readme_commands() if re.match(r"\s*curl -s ", c) and not quiet.search(c)
    ]
    assert len(printing) > 50
    assert [
        c for c in printing if " -w '\\n' " not in c and " -w '%{http_code}\\n' " not in c
    ] == []


def test_no_sample_login_code_where_the_code_appears() -> None:
    """The start banner and README show where a login code is printed, never a code that
    looks real: a newcomer would log in with it and get invalid_code."""
    for path in ("scripts/run.sh", "README.md"):
        for line in (ROOT / path).read_text().splitlines():
            if "==> SMS to" in line:
                assert not re.search(r"\b\d{6}\b", line), f"{path}: {line.strip()}"
