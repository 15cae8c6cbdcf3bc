"""Every relative link and image in README.md and docs/ points at a file that exists."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
# [text](target) and ![alt](target), not inside code spans or blocks
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _prose(text):
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def relative_links(page):
    """(file, anchor or None) of each relative link of `page`."""
    for target in LINK.findall(_prose(page.read_text(encoding="utf8"))):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue  # a URL
        path, _, anchor = target.partition("#")
        yield path or page.name, anchor or None


def anchors(page):
    """The anchors GitHub gives the headings of a Markdown page."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf8"), flags=re.S | re.M)
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#+ (.+)$", text, flags=re.M)}


def test_pages_have_links():
    assert len(PAGES) > 10 and sum(1 for p in PAGES for _ in relative_links(p)) > 30


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    missing = [target for target, _ in relative_links(page) if not (page.parent / target).exists()]
    assert not missing, f"{page.relative_to(ROOT)} links to missing files: {missing}"
    unknown = [f"{target}#{anchor}" for target, anchor in relative_links(page)
               if anchor and target.endswith(".md")
               and anchor not in anchors(page.parent / target)]
    assert not unknown, f"{page.relative_to(ROOT)} links to missing headings: {unknown}"
