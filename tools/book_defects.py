"""Count what a reader trips over in a built book, per kind of defect, and shoot every page.

Runs the checks of ``tests/book_checks.py`` (the browser test's) on every page of a built book
(``_build/html`` or any other build, e.g. an earlier commit's, to compare before and after) in
headless Chromium, and writes one full-page screenshot of each page at 1280 px and one at 390 px.
Prints, and with ``--json`` writes, the number of pages and of problems each check finds:

* ``raw_markup`` -- unparsed Markdown (a pipe table, ``{glue``) in the text;
* ``missing_links`` -- links to files or anchors that are not in the build;
* ``placeholders`` -- "not measured", ``nan`` or a Python object's repr;
* ``too_wide`` -- a table or wrapper wider than the text column at 1280 px;
* ``repeated_admonitions`` -- the same box twice on a page;
* ``heading_verdict_mismatch`` -- a heading that names another verdict than the claims table;
* ``build_stamp`` -- no version and build date in the footer;
* ``too_tall`` -- a page taller than 20,000 px at 390 px;
* ``broken_numbers`` -- a number of a table cell broken across lines at 1280 or 390 px;
* ``small_figure_text`` -- a figure whose text shows under 9 px at 390 px.

    python tools/book_defects.py --html _build/html --shots _build/screenshots [--version 0.3.0] [--json out.json]

``--version`` is the version the footer must name (default: the installed cffair's).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "book"))  # the browser test (tests/book/test_book.py)

import book_checks  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--html", type=Path, required=True, help="the built book's html folder")
    parser.add_argument("--shots", type=Path, required=True, help="where the screenshots go")
    parser.add_argument("--version", default=None, help="the version the footer must name")
    parser.add_argument("--json", type=Path, default=None, help="write the counts here")
    args = parser.parse_args(argv)
    import test_book as tb  # the browser test's Chromium driver and page visit

    if args.version is None:
        import cffair

        args.version = cffair.__version__
    html_root = args.html.resolve()
    if not (html_root / "index.html").is_file():
        print(f"error: {html_root} holds no built book (no index.html); build it with `make book`", file=sys.stderr)
        return 2
    binary = tb.find_chromium()
    if binary is None:
        print("error: chromium is not installed; `make browser` installs it", file=sys.stderr)
        return 2
    pages = sorted(
        str(p.relative_to(html_root).with_suffix(""))
        for p in html_root.rglob("*.html")
        if not p.relative_to(html_root).parts[0].startswith("_") and p.name not in ("search.html", "genindex.html")
    )
    args.shots.mkdir(parents=True, exist_ok=True)
    per_check: Counter[str] = Counter()
    pages_with: Counter[str] = Counter()
    examples: dict[str, list[str]] = {c: [] for c in book_checks.CHECKS}
    cache: dict = {}
    with tempfile.TemporaryDirectory(prefix="cffair-chromium-") as profile:
        browser = tb.Chromium(binary, Path(profile))
        try:
            browser.open_page()
            for page in pages:
                name = page.replace("/", "__")
                report = tb.visit(
                    browser, html_root, page, args.shots / f"{name}.png", args.shots / f"{name}__390px.png"
                )
                file = html_root / f"{page}.html"
                found = book_checks.page_problems(
                    file.read_text(encoding="utf-8"),
                    file,
                    html_root,
                    report.geometry,
                    args.version,
                    cache,
                    report.phone_geometry,
                )
                for check, problems in found.items():
                    per_check[check] += len(problems)
                    pages_with[check] += bool(problems)
                    examples[check] += [f"{page}: {p}" for p in problems[:2]]
        finally:
            browser.close()
    out = {
        "html": str(args.html),
        "pages": len(pages),
        "problems": {c: per_check[c] for c in book_checks.CHECKS},
        "pages_with": {c: pages_with[c] for c in book_checks.CHECKS},
        "examples": {c: examples[c][:5] for c in book_checks.CHECKS},
    }
    for c in book_checks.CHECKS:
        print(f"{c:26s} {per_check[c]:4d} problems on {pages_with[c]:3d} of {len(pages)} pages")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
