"""Print the book, built as one HTML page (``sphinx-build -b singlehtml``), to a PDF.

Usage: ``python tools/book_pdf.py _build/pdf/_build/singlehtml/intro.html out.pdf`` (``make pdf``
runs it). Headless Chromium (Debian's ``chromium``, installed by ``make browser``) prints the
page after MathJax has typeset it; a print copy of the page, written next to it so that its
relative links still resolve, opens every dropdown (solutions, notes) and hides the navigation,
so that the PDF shows what the page holds. Jupyter Book 1's ``pdfhtml`` builder needed pyppeteer
to download a browser, which an offline build cannot.

Exit status 2 with a one-line message when the page or Chromium is missing or printing fails.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: Added to the print copy: show dropdowns opened, drop the sidebars and header buttons.
PRINT_HEAD = """
<style>
@media print {
  .bd-sidebar-primary, .bd-sidebar-secondary, .bd-header, .header-article, .bd-footer-content__inner nav,
  .prev-next-area, button.toggle-button, .headerlink { display: none !important; }
  .bd-main .bd-content .bd-article-container { max-width: 100% !important; }
  .toggle-hidden, details > *, .admonition.dropdown > * { display: block !important; visibility: visible !important;
    opacity: 1 !important; height: auto !important; }
  pre, table { page-break-inside: avoid; }
}
</style>
<script>
window.addEventListener('load', () => {
  document.querySelectorAll('details').forEach(d => d.open = true);
  document.querySelectorAll('.toggle-hidden').forEach(e => e.classList.remove('toggle-hidden'));
});
</script>
"""


def chromium() -> str | None:
    """The Chromium binary on PATH, if any."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def print_copy(page: Path) -> Path:
    """Write the print copy of ``page`` beside it (``<name>.print.html``) and return its path."""
    html = page.read_text(encoding="utf-8")
    marker = "</head>"
    if marker not in html:
        raise ValueError(f"{page} has no </head>; is it a page of the built book?")
    copy = page.with_name(page.stem + ".print.html")
    copy.write_text(html.replace(marker, PRINT_HEAD + marker, 1), encoding="utf-8")
    return copy


def print_pdf(page: Path, out: Path, *, binary: str, budget_ms: int = 60000, timeout: float = 600) -> None:
    """Print ``page`` to ``out`` with headless Chromium (``budget_ms`` of virtual time for
    scripts such as MathJax to finish first)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    copy = print_copy(page)
    tmp = out.with_suffix(".tmp.pdf")
    try:
        with tempfile.TemporaryDirectory(prefix="cffair-pdf-") as profile:
            proc = subprocess.run(
                [
                    binary,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--no-first-run",
                    "--no-pdf-header-footer",
                    f"--user-data-dir={profile}",
                    f"--virtual-time-budget={budget_ms}",
                    "--run-all-compositor-stages-before-draw",
                    f"--print-to-pdf={tmp}",
                    copy.resolve().as_uri(),
                ],
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        if proc.returncode != 0 or not tmp.is_file() or tmp.read_bytes()[:5] != b"%PDF-":
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            raise RuntimeError(f"Chromium did not print {page} (exit {proc.returncode}): {tail[0]}")
        tmp.replace(out)
    finally:
        copy.unlink(missing_ok=True)
        tmp.unlink(missing_ok=True)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python tools/book_pdf.py <the single page, intro.html> <out.pdf>", file=sys.stderr)
        return 2
    page, out = Path(argv[0]), Path(argv[1])
    if not page.is_file():
        print(
            f"book_pdf: {page} does not exist; build the book as one page first "
            "(sphinx-build -b singlehtml . _build/pdf/_build/singlehtml, as `make pdf` does).",
            file=sys.stderr,
        )
        return 2
    binary = chromium()
    if binary is None:
        print("book_pdf: chromium is not installed; `make browser` installs Debian's chromium.", file=sys.stderr)
        return 2
    try:
        print_pdf(page, out, binary=binary)
    except (RuntimeError, ValueError, OSError, subprocess.TimeoutExpired) as exc:
        print(f"book_pdf: {exc}", file=sys.stderr)
        return 2
    print(f"book_pdf: wrote {out} ({out.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
