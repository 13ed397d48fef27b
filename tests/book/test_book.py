"""The book builds with warnings as errors, and every page works, and reads well, in a real browser.

(a) ``sphinx-build -b html -W -n -E -d <tmp>/_build/.doctrees <repo> <tmp>/_build/html`` succeeds
    (render mode, as ``make book`` builds it).
(b) Every built HTML page is opened in headless Chromium (Debian's ``chromium``, installed by
    ``make browser``), driven over the DevTools protocol on ``--remote-debugging-pipe`` with the
    standard library only. For each page we check: it loads, its title is the page's heading,
    every ``<img>`` resolves to an existing file, decodes and has real alt text, pages that
    should show tables have a ``<table>``, equations are typeset by the local MathJax, nothing is
    requested from the network, and the browser reports no console error, uncaught exception or
    failed load. And for the reader, at a 1280-px window: no table and no code output scrolls
    sideways or sticks out of the page, every figure is shown at least at half its natural
    width, the text column is as wide as the figures were drawn for, one search box, no
    blockquote that the source does not write, and every notebook page offers its ``.ipynb``;
    at a 390-px (phone) window the page itself never scrolls sideways.
    A screenshot of every page at 1280 px, and of one at 390 px, goes to ``_build/screenshots/``.

And the checks of ``tests/book_checks.py`` on every page (each tested on a page with its defect
in ``tests/book/test_book_checks.py``): no unparsed Markdown (a pipe table's ``|---|``, ``{glue``), no
link to a file or anchor missing from the build, no "not measured", ``nan`` or object repr, no
table or wrapper wider than its column at 1280 px (unless marked ``cffair-scroll``), no
admonition twice, no heading that names a verdict the page's claims table does not give, and
a footer that names the version and the build date; and, at a 390-px window, no page taller
than 20,000 px (the API reference, looked up rather than read through, is exempt), no number of
a table cell broken across lines (at 1280 px either), and no figure whose text shows under 9 px.

``CFFAIR_BOOK_HTML=_build/html`` browses a book already built instead of building it again
(the build test then only checks that every page of the toc is there). Without it, a book that
``make book`` built into ``_build/html`` from the inputs at hand is browsed the same way: its stamp
(:mod:`cffair_book.build_stamp`) must match every file git tracks or would track, the installed
packages and the ``CFFAIR_*`` settings now, and ``make book`` builds with the same ``-W -n``, so a
stamped book is one this test would have built. ``CFFAIR_BOOK_REBUILD=1`` builds anyway.

Without Chromium the browser test is skipped with a message, except under CI (``CI`` set),
where a missing Chromium is a failure.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import book_checks
import pytest
import yaml

from cffair_book import build_stamp, chapters

pytestmark = [pytest.mark.book, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "_build" / "screenshots"
#: The page also shot at phone width.
PHONE_SHOT_PAGE = "notebooks/q2_baselines"
DESKTOP = (1280, 900)
PHONE = (390, 844)
BUILD_TIMEOUT = 3600  # seconds; render mode normally takes well under a minute per page

#: Pages (toc paths, no suffix) that must contain at least one <table>.
PAGES_WITH_TABLES = {
    "intro",
    "book/claims",
    "book/reproducing",
    "book/benchmarks",
    "notebooks/ltn_in_ten_minutes",
    "book/datasets",
    # every chapter of the paper's questions and appendices (the chapter registry's)
    *(f"notebooks/{c.notebook}" for c in chapters.chapters(paper=True).values()),
}
#: Pages that must show at least one figure (<img>).
PAGES_WITH_FIGURES = {
    "book/method",
    "notebooks/ltn_in_ten_minutes",
    "book/datasets",
    "notebooks/q1_counterfactual_fairness",
    "notebooks/q2_baselines",
    "notebooks/q3_knowledge_extraction",
    "notebooks/appendix_b_axiom_weights",
}
#: Pages whose equations must be typeset by MathJax (mjx-container elements).
PAGES_WITH_MATH = {
    "book/method",
    "book/glossary",
    "notebooks/ltn_in_ten_minutes",
    "notebooks/q3_knowledge_extraction",
    "notebooks/q4_queries",
    "notebooks/appendix_b_axiom_weights",
}

LOCAL_SCHEMES = {"file", "data", "about", "blob", "chrome", "devtools"}


# ============================================================================ helpers
def toc_pages(toc_path: Path = ROOT / "_toc.yml") -> list[str]:
    """Every file the table of contents names (commented-out entries are not included)."""
    toc = yaml.safe_load(toc_path.read_text())
    pages = [toc["root"]]

    def walk(entries: list[dict[str, Any]]) -> None:
        for e in entries or []:
            if "file" in e:
                pages.append(e["file"])
            for key in ("sections", "chapters", "parts"):
                walk(e.get(key, []))

    walk(toc.get("parts", []))
    walk(toc.get("chapters", []))
    walk(toc.get("sections", []))
    return [str(Path(p).with_suffix("")) for p in pages]


def page_heading(page: str) -> str:
    """The first level-1 heading of a page's source (its title in the built HTML)."""
    for suffix in (".md", ".ipynb"):
        src = ROOT / f"{page}{suffix}"
        if src.exists():
            text = src.read_text(encoding="utf-8")
            if suffix == ".ipynb":
                cells = json.loads(text)["cells"]
                text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
            for line in text.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    raise AssertionError(f"no source file with a '# ' heading for toc entry {page!r}")


def source_text(page: str) -> str:
    """The MyST source of a toc page ("" for pages Sphinx makes itself)."""
    src = ROOT / f"{page}.md"
    return src.read_text(encoding="utf-8") if src.is_file() else ""


def written_blockquotes(page: str) -> int:
    """Lines of a page's source that start a blockquote ('>' outside code blocks)."""
    count, in_code = 0, False
    for line in source_text(page).splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
        elif not in_code and line.lstrip().startswith(">"):
            count += 1
    return count


def is_notebook(page: str) -> bool:
    """Whether a page's source is a MyST notebook (jupytext front matter with a kernel)."""
    head = source_text(page)[:600]
    return head.startswith("---") and "format_name: myst" in head and "kernelspec:" in head


def strip_markup(title: str) -> str:
    """Heading text as the browser shows it (no MyST roles, math dollars or emphasis)."""
    title = re.sub(r"\{[a-z:]+\}`([^`]*)`", r"\1", title)
    return re.sub(r"[*_`$]", "", title).strip()


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def sphinx_build_cmd() -> list[str]:
    exe = Path(sys.executable).parent / "sphinx-build"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("sphinx-build")
    if not found:
        pytest.fail("sphinx-build is not installed; run `make install` (it comes with the [book] extra).")
    return [found]


# ============================================================================ build fixture
@dataclass
class BuildResult:
    returncode: int
    log: str
    html: Path
    seconds: float


@pytest.fixture(scope="module")
def built_book(tmp_path_factory: pytest.TempPathFactory) -> BuildResult:
    prebuilt = os.environ.get("CFFAIR_BOOK_HTML")
    if prebuilt:  # browse a book built before (e.g. `make book`'s _build/html) instead of building it again
        html = Path(prebuilt).resolve()
        if not (html / "intro.html").is_file():
            pytest.fail(f"CFFAIR_BOOK_HTML={prebuilt} is not a built book (no intro.html in it).")
        return BuildResult(0, "", html, 0.0)
    made = ROOT / "_build" / "html"
    if not os.environ.get("CFFAIR_BOOK_REBUILD"):  # `make book` built it from the inputs at hand: browse it
        same, why = build_stamp.reusable(made, ROOT, {**os.environ, "CFFAIR_MODE": "render"})
        if same:
            return BuildResult(0, f"browsing {made}: {why}", made, 0.0)
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        return _build_book(tmp_path_factory.mktemp("book"))
    # in pytest-xdist's workers (the browser test's parts may run in both), one builds and the other waits for it:
    # the parent of a worker's base folder is this session's own
    shared = tmp_path_factory.getbasetemp().parent / "book"
    with open(shared.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = shared / "result.json"
        if done.is_file():
            r = json.loads(done.read_text())
            return BuildResult(r["returncode"], r["log"], Path(r["html"]), r["seconds"])
        shared.mkdir(exist_ok=True)
        result = _build_book(shared)
        done.write_text(json.dumps({**result.__dict__, "html": str(result.html)}))
        return result


def _build_book(out: Path) -> BuildResult:
    """``sphinx-build`` of the book in render mode into ``out/_build/html``, as ``make book`` builds it."""
    env = {**os.environ, "CFFAIR_MODE": "render", "PYTHONWARNINGS": os.environ.get("PYTHONWARNINGS", "")}
    start = time.perf_counter()
    build = out / "_build"
    jobs = os.environ.get("SPHINX_JOBS", "2")  # as `make book`: the pages read, and executed, two at a time
    args = ["-b", "html", "-W", "-n", "-E", "-j", jobs, "-d", str(build / ".doctrees"), str(ROOT), str(build / "html")]
    proc = subprocess.run(
        [*sphinx_build_cmd(), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
    )
    return BuildResult(proc.returncode, proc.stdout + proc.stderr, build / "html", time.perf_counter() - start)


def test_book_builds_without_warnings(built_book: BuildResult) -> None:
    warnings = [l for l in built_book.log.splitlines() if re.search(r"WARNING|ERROR", l) and "IPKernelApp" not in l]
    assert built_book.returncode == 0, (
        f"sphinx-build -W -n failed (exit {built_book.returncode}) after {built_book.seconds:.0f} s.\n"
        + "\n".join(warnings[:40])
        + "\n--- last lines of the log ---\n"
        + "\n".join(built_book.log.splitlines()[-30:])
    )
    for page in toc_pages():
        assert (built_book.html / f"{page}.html").is_file(), f"the toc names {page!r} but {page}.html was not built"


# ============================================================================ DevTools over a pipe
class Chromium:
    """Headless Chromium driven over ``--remote-debugging-pipe`` (fd 3: commands in, fd 4: out).

    Messages are JSON objects terminated by a NUL byte. Events of the attached page are kept
    in ``events`` until :meth:`drain_events`.
    """

    def __init__(self, binary: str, profile_dir: Path) -> None:
        to_chrome_r, self._to_chrome_w = os.pipe()
        self._from_chrome_r, from_chrome_w = os.pipe()
        # Move chrome's ends above fd 10 so that the dup2 to 3 and 4 in the child cannot clobber them.
        hi_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
        hi_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
        os.close(to_chrome_r)
        os.close(from_chrome_w)

        def child_fds() -> None:  # runs in the child before exec
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [
            binary,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--disable-default-apps",
            "--no-first-run",
            "--no-default-browser-check",
            "--hide-scrollbars",
            "--mute-audio",
            f"--user-data-dir={profile_dir}",
            "--remote-debugging-pipe",
            "--window-size=1280,900",
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=child_fds,
        )
        os.close(hi_r)
        os.close(hi_w)
        self._next_id = 0
        self._responses: dict[int, dict[str, Any]] = {}
        self._cond = threading.Condition()
        self.events: queue.Queue[dict[str, Any]] = queue.Queue()
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()
        self.session: str | None = None

    def _read_loop(self) -> None:
        buf = b""
        while True:
            try:
                chunk = os.read(self._from_chrome_r, 1 << 16)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
            while b"\0" in buf:
                raw, buf = buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" in msg:
                    with self._cond:
                        self._responses[msg["id"]] = msg
                        self._cond.notify_all()
                else:
                    self.events.put(msg)
        with self._cond:
            self._cond.notify_all()

    def send(
        self, method: str, params: dict[str, Any] | None = None, session: bool = True, timeout: float = 60
    ) -> dict[str, Any]:
        self._next_id += 1
        mid = self._next_id
        msg: dict[str, Any] = {"id": mid, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._to_chrome_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self._cond:
            while mid not in self._responses:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise TimeoutError(f"no answer from Chromium to {method} (exit code {self.proc.poll()})")
                self._cond.wait(min(left, 0.5))
            reply = self._responses.pop(mid)
        if "error" in reply:
            raise RuntimeError(f"{method} failed: {reply['error']}")
        return reply.get("result", {})

    def open_page(self) -> None:
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")

    def drain_events(self) -> list[dict[str, Any]]:
        out = []
        while True:
            try:
                out.append(self.events.get_nowait())
            except queue.Empty:
                return out

    def wait_for_event(self, method: str, timeout: float) -> list[dict[str, Any]]:
        """Collect events until one named ``method`` arrives (or the timeout passes)."""
        seen: list[dict[str, Any]] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                ev = self.events.get(timeout=0.2)
            except queue.Empty:
                continue
            seen.append(ev)
            if ev.get("method") == method:
                break
        return seen

    def evaluate(self, expression: str) -> Any:
        res = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in res:
            raise RuntimeError(f"evaluating {expression[:60]!r} failed: {res['exceptionDetails']}")
        return res["result"].get("value")

    def close(self) -> None:
        with contextlib.suppress(Exception):  # closing anyway
            self.send("Browser.close", session=False, timeout=10)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._to_chrome_w, self._from_chrome_r):
            with contextlib.suppress(OSError):
                os.close(fd)


@dataclass
class PageReport:
    page: str
    title: str = ""
    text_length: int = 0
    tables: int = 0
    math: int = 0
    images: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    layout: dict[str, Any] = field(default_factory=dict)
    phone: dict[str, Any] = field(default_factory=dict)
    geometry: dict[str, Any] = field(default_factory=dict)
    phone_geometry: dict[str, Any] = field(default_factory=dict)


PAGE_FACTS_JS = r"""
(() => ({
  title: document.title,
  textLength: (document.body ? document.body.innerText : '').trim().length,
  tables: document.querySelectorAll('main table, article table, .bd-article table').length,
  math: document.querySelectorAll('mjx-container').length,
  images: Array.from(document.images).map(i => ({
    src: i.getAttribute('src'), url: i.src, complete: i.complete,
    width: i.naturalWidth, lazy: i.loading === 'lazy'})),
  height: Math.max(document.body.scrollHeight, document.documentElement.scrollHeight),
  reprs: (document.body ? document.body.innerText : '').match(/<[\w.]+ object( at 0x[0-9a-f]+)?>/g) || [],
}))()
"""

#: Load every image now (the theme marks them lazy), then wait until each has decoded.
LOAD_IMAGES_JS = """
(async () => {
  for (const i of document.images) { i.loading = 'eager'; }
  await Promise.all(Array.from(document.images).map(i => i.decode().catch(() => null)));
})()
"""

#: What a reader sees at the current window width.
LAYOUT_JS = """
(() => {
  const article = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const viewport = document.documentElement.clientWidth;
  const visible = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const describe = el => (el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '') +
                          ' "' + (el.innerText || '').trim().slice(0, 50).replace(/\\s+/g, ' ') + '"');
  const scrolling = [];
  const seen = new Set();
  const candidates = article.querySelectorAll('table, div.cell_output, div.cell_output *');
  for (const el of candidates) {
    if (!visible(el) || Array.from(seen).some(s => s.contains(el))) continue;  // report the outermost only
    const tag = el.tagName.toLowerCase();
    if (tag !== 'table' && !el.closest('div.cell_output')) continue;
    const style = getComputedStyle(el);
    const scrolls = ['auto', 'scroll'].includes(style.overflowX) && el.scrollWidth > el.clientWidth + 1;
    const sticksOut = el.getBoundingClientRect().right > viewport + 1;
    if (scrolls || sticksOut) {
      seen.add(el);
      scrolling.push(describe(el) + ` (${scrolls ? 'scrolls: ' + el.scrollWidth + ' > ' + el.clientWidth : 'right edge ' +
                     Math.round(el.getBoundingClientRect().right) + ' > ' + viewport})`);
    }
  }
  const figures = Array.from(article.querySelectorAll('img')).filter(visible).map(i => ({
    src: i.getAttribute('src'), natural: i.naturalWidth, shown: i.getBoundingClientRect().width,
    alt: i.getAttribute('alt')}));
  const para = Array.from(article.querySelectorAll('section > p')).find(visible);
  const searches = Array.from(document.querySelectorAll('.search-button-field, .search-button, input[type=search]'))
    .filter(el => visible(el) && !el.closest('dialog')).length;
  const downloads = Array.from(document.querySelectorAll('.dropdown-download-buttons a, a.btn[href]'))
    .map(a => a.getAttribute('href')).filter(h => h && h.includes('_sources/'));
  return {
    scrolling, figures, searches, downloads,
    column: para ? Math.round(para.getBoundingClientRect().width) : 0,
    blockquotes: article.querySelectorAll('blockquote').length,
    pageWidth: document.documentElement.scrollWidth, viewport,
  };
})()
"""

_HASHLIKE = re.compile(r"^[0-9a-f]{16,}(\.\w+)?$")


def _is_local(url: str) -> bool:
    return urlparse(url).scheme in LOCAL_SCHEMES or url.startswith("data:")


def _load(browser: Chromium, html_root: Path, page: str, size: tuple[int, int], mobile: bool) -> list[dict[str, Any]]:
    """Set the window size, load the page and wait for its images and equations; the page's events."""
    browser.send(
        "Emulation.setDeviceMetricsOverride",
        {"width": size[0], "height": size[1], "deviceScaleFactor": 1, "mobile": mobile},
    )
    browser.drain_events()
    browser.send("Page.navigate", {"url": (html_root / f"{page}.html").as_uri()})
    events = browser.wait_for_event("Page.loadEventFired", timeout=30)
    for attempt in range(3):
        try:
            # MathJax typesets asynchronously after load; wait until it reports that it is done.
            browser.evaluate(
                "(async () => { if (window.MathJax && MathJax.startup && MathJax.startup.promise) "
                "{ await MathJax.startup.promise; } })()"
            )
            browser.evaluate(LOAD_IMAGES_JS)
            break
        except RuntimeError as exc:  # a page that redirects (index.html) navigates while it is evaluated
            if "navigated" not in str(exc) or attempt == 2:
                raise
            events += browser.wait_for_event("Page.loadEventFired", timeout=30)
    time.sleep(0.3)
    return events + browser.drain_events()


def _screenshot(browser: Chromium, path: Path, width: int, height: int, mobile: bool) -> None:
    """Full-page screenshot: make the viewport as tall as the page (at most 12,000 px), shoot."""
    browser.send(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": int(min(max(height, 900), 12000)), "deviceScaleFactor": 1, "mobile": mobile},
    )
    time.sleep(0.3)
    shot = browser.send("Page.captureScreenshot", {"format": "png"})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(base64.b64decode(shot["data"]))


def visit(
    browser: Chromium, html_root: Path, page: str, screenshot: Path, phone_screenshot: Path | None = None
) -> PageReport:
    """Load one page at 1280 px and at 390 px, collect its problems, take the screenshots."""
    report = PageReport(page)
    events = _load(browser, html_root, page, DESKTOP, mobile=False)
    if not any(e.get("method") == "Page.loadEventFired" for e in events):
        report.problems.append("the load event did not fire within 30 s")
    facts = browser.evaluate(PAGE_FACTS_JS)
    report.title = facts["title"]
    report.text_length = facts["textLength"]
    for shown in facts["reprs"]:  # e.g. Markdown("") displays as its repr
        report.problems.append(f"an output shows a Python object's repr instead of its content: {shown}")
    report.tables = facts["tables"]
    report.math = facts["math"]
    report.images = facts["images"]
    report.layout = browser.evaluate(LAYOUT_JS)
    report.geometry = browser.evaluate(book_checks.GEOMETRY_JS)

    urls = {
        e["params"]["requestId"]: e["params"]["request"]["url"]
        for e in events
        if e.get("method") == "Network.requestWillBeSent"
    }
    for ev in events:
        method, params = ev.get("method"), ev.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = params["exceptionDetails"]
            text = d.get("exception", {}).get("description") or d.get("text")
            report.problems.append(f"uncaught exception: {text} ({d.get('url', '')}:{d.get('lineNumber')})")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
            report.problems.append(f"console.{params['type']}: {args}")
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            e = params["entry"]
            report.problems.append(f"browser log error: {e.get('text')} {e.get('url', '')}")
        elif method == "Network.requestWillBeSent":
            req_url = params["request"]["url"]
            if not _is_local(req_url):
                report.problems.append(f"request to the network at view time: {req_url}")
        elif method == "Network.loadingFailed" and not params.get("canceled"):
            failed = urls.get(params.get("requestId"), f"request {params.get('requestId')}")
            report.problems.append(f"failed to load a resource: {params.get('errorText')} ({failed})")

    for img in report.images:
        src, img_url = img["src"] or "", img["url"] or ""
        parsed = urlparse(img_url)
        if parsed.scheme == "file":
            path = Path(unquote(parsed.path))
            if not path.is_file():
                report.problems.append(f"<img src={src!r}> points to a missing file {path}")
                continue
        elif parsed.scheme != "data":
            report.problems.append(f"<img src={src!r}> is not a local file")
            continue
        if not img["complete"] or img["width"] == 0:
            report.problems.append(f"<img src={src!r}> did not decode (naturalWidth 0)")
    _screenshot(browser, screenshot, DESKTOP[0], facts["height"], mobile=False)

    _load(browser, html_root, page, PHONE, mobile=True)
    report.phone = browser.evaluate(LAYOUT_JS)
    report.phone_geometry = browser.evaluate(book_checks.GEOMETRY_JS)
    if phone_screenshot is not None:
        height = browser.evaluate("Math.max(document.body.scrollHeight, document.documentElement.scrollHeight)")
        _screenshot(browser, phone_screenshot, PHONE[0], height, mobile=True)
    browser.send("Emulation.clearDeviceMetricsOverride")
    return report


def reading_problems(report: PageReport, html_root: Path) -> list[str]:
    """What a reader would trip over on a page of the table of contents."""
    from cffair.reporting._style import COLUMN_PX

    problems = []
    layout, phone = report.layout, report.phone
    for what in layout["scrolling"]:
        problems.append(f"at 1280 px a table or code output scrolls sideways: {what}")
    for fig in layout["figures"]:
        alt = (fig["alt"] or "").strip()
        if len(alt.split()) < 3 or _HASHLIKE.match(alt) or alt.endswith((".png", ".svg", ".jpg")):
            problems.append(f"image {fig['src']} has no real alt text (alt={fig['alt']!r})")
        if fig["natural"] and fig["shown"] < 0.5 * fig["natural"]:
            problems.append(
                f"image {fig['src']} is shown at {fig['shown']:.0f} px, less than half its natural {fig['natural']} px"
            )
    if layout["column"] and abs(layout["column"] - COLUMN_PX) > 24:
        problems.append(
            f"the text column is {layout['column']} px wide at 1280 px; figures are drawn for {COLUMN_PX} px "
            "(cffair.reporting._style.COLUMN_PX)"
        )
    if layout["searches"] != 1:
        problems.append(f"{layout['searches']} search boxes are visible at 1280 px (one expected)")
    written = written_blockquotes(report.page)
    if layout["blockquotes"] > written:
        problems.append(
            f"{layout['blockquotes']} blockquote(s) on the page, {written} written in its source "
            "(a line starting with '>' at a line break?)"
        )
    if is_notebook(report.page):
        notebook = [h for h in layout["downloads"] if h.endswith(".ipynb")]
        if not notebook:
            problems.append("a notebook page without an .ipynb in its download menu")
        for href in notebook:
            target = (html_root / report.page).parent / unquote(href)
            if not target.resolve().is_file():
                problems.append(f"the download menu offers {href}, which was not built")
    if phone["pageWidth"] > phone["viewport"] + 1:
        problems.append(f"at 390 px the page scrolls sideways: it is {phone['pageWidth']} px wide")
    return problems


def content_problems(report: PageReport, html_root: Path, cache: dict[Path, set[str]] | None = None) -> list[str]:
    """The checks of ``tests/book_checks.py`` on one page: unparsed Markdown, links to what is not
    built, placeholders instead of numbers, content wider than the column at 1280 px, the same
    admonition twice, headings that contradict the page's verdicts, the footer's stamp, and at a
    390-px window: the page's height, numbers broken across lines (at 1280 px too) and the size
    of the figures' text."""
    file = html_root / f"{report.page}.html"
    found = book_checks.page_problems(
        file.read_text(encoding="utf-8"), file, html_root, report.geometry, _version(), cache, report.phone_geometry
    )
    return [problem for check in book_checks.CHECKS for problem in found[check]]


def _version() -> str:
    import cffair

    return cffair.__version__


#: The browser test's pages are visited in this many parts, each a test of its own (pytest-xdist runs them side by
#: side: one browser visiting every page took 225 s, the longest test of the suite).
BROWSER_SHARDS = 2


@pytest.mark.parametrize("shard", range(BROWSER_SHARDS))
def test_every_page_works_in_chromium(built_book: BuildResult, shard: int) -> None:
    """Every page of the built book (every ``shard``-th of them, in the toc's order), loaded in Chromium at 1280 px
    and 390 px: no problem found, a screenshot of each."""
    if built_book.returncode != 0:
        pytest.fail("the book did not build (see test_book_builds_without_warnings); nothing to browse.")
    binary = find_chromium()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail(
                "chromium is not installed, and under CI the browser test must run: `make browser` installs it."
            )
        pytest.skip(
            "chromium is not installed; run `make browser` (Debian package 'chromium') to enable the browser test."
        )

    html_root = built_book.html
    toc = toc_pages()
    others = sorted(
        str(p.relative_to(html_root).with_suffix(""))
        for p in html_root.rglob("*.html")
        if not p.relative_to(html_root).parts[0].startswith("_")
    )
    every = toc + [p for p in others if p not in toc]
    pages = every[shard::BROWSER_SHARDS]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    mine = {page.replace("/", "__") for page in pages}
    known = {page.replace("/", "__") for page in every}
    for old in SCREENSHOTS.glob("*.png"):  # this part's shots, and (the first part) those of pages gone
        stem = old.stem.removesuffix("__390px")
        if stem in mine or (shard == 0 and stem not in known):
            old.unlink()

    failures: list[str] = []
    anchors: dict[Path, set[str]] = {}
    with tempfile.TemporaryDirectory(prefix="cffair-chromium-") as profile:
        browser = Chromium(binary, Path(profile))
        try:
            browser.open_page()
            for page in pages:
                name = page.replace("/", "__")
                phone_shot = SCREENSHOTS / f"{name}__390px.png" if page == PHONE_SHOT_PAGE else None
                report = visit(browser, html_root, page, SCREENSHOTS / f"{name}.png", phone_shot)
                problems = list(report.problems)
                if page in toc:
                    heading = strip_markup(page_heading(page))
                    if heading not in report.title:
                        problems.append(f"title {report.title!r} does not contain the page heading {heading!r}")
                    if report.text_length < 200:
                        problems.append(f"page body has only {report.text_length} characters of text")
                    if page in PAGES_WITH_TABLES and report.tables == 0:
                        problems.append("no <table> on a page that should show tables")
                    if page in PAGES_WITH_FIGURES and not report.images:
                        problems.append("no <img> on a page that should show figures")
                    if page in PAGES_WITH_MATH and report.math == 0:
                        problems.append("no typeset equation (mjx-container): MathJax did not run")
                    found = reading_problems(report, html_root)
                    problems += found
                problems += content_problems(report, html_root, anchors)
                if problems:
                    failures.append(f"{page}.html:\n  " + "\n  ".join(problems))
        finally:
            browser.close()
    assert not failures, "problems found in the browser:\n" + "\n".join(failures)
    shots = {p.name for p in SCREENSHOTS.glob("*.png")}
    assert {f"{name}.png" for name in mine} <= shots
    if PHONE_SHOT_PAGE in pages:
        assert f"{PHONE_SHOT_PAGE.replace('/', '__')}__390px.png" in shots


def test_page_source_helpers_on_known_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "p.md").write_text(
        "---\njupytext:\n  text_representation:\n    format_name: myst\nkernelspec:\n  name: python3\n---\n"
        "# T\n\n> a quote\n\n```python\n> not a quote\n```\n\nincome\n>50K\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert written_blockquotes("p") == 2  # the quote, and the accidental '>50K' line
    assert is_notebook("p")
    assert source_text("missing") == "" and not is_notebook("missing")
