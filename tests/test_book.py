"""The book builds with warnings as errors, and every page works in a real browser.

(a) ``jupyter-book build <repo> -W -n --keep-going --path-output <tmp>`` succeeds (render
    mode, as ``make book`` builds it).
(b) Every built HTML page is opened in headless Chromium (Debian's ``chromium``, installed by
    ``make browser``), driven over the DevTools protocol on ``--remote-debugging-pipe`` with the
    standard library only. For each page we check: it loads, its title is the page's heading,
    every ``<img>`` resolves to an existing file and decodes, pages that should show tables
    have a ``<table>``, equations are typeset by the local MathJax, nothing is requested from
    the network, and the browser reports no console error, uncaught exception or failed load.
    A screenshot of each page goes to ``test-artifacts/screenshots/``.

Without Chromium the browser test is skipped with a message, except under CI (``CI`` set),
where a missing Chromium is a failure.
"""

from __future__ import annotations

import base64
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

import pytest
import yaml

pytestmark = [pytest.mark.book, pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
BUILD_TIMEOUT = 3600  # seconds; render mode normally takes well under a minute per page

#: Pages (toc paths, no suffix) that must contain at least one <table>.
PAGES_WITH_TABLES = {
    "intro",
    "book/datasets",
    "notebooks/q1_counterfactual_fairness",
    "notebooks/q2_baselines",
    "notebooks/q3_knowledge_extraction",
    "notebooks/q4_queries",
    "notebooks/appendix_a_other_counterfactuals",
    "notebooks/appendix_b_axiom_weights",
}
#: Pages that must show at least one figure (<img>).
PAGES_WITH_FIGURES = {
    "book/method",
    "book/datasets",
    "notebooks/q1_counterfactual_fairness",
    "notebooks/q2_baselines",
    "notebooks/q3_knowledge_extraction",
    "notebooks/appendix_b_axiom_weights",
}
#: Pages whose equations must be typeset by MathJax (mjx-container elements).
PAGES_WITH_MATH = {
    "book/method",
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


def jupyter_book_cmd() -> list[str]:
    exe = Path(sys.executable).parent / "jupyter-book"
    if exe.exists():
        return [str(exe)]
    found = shutil.which("jupyter-book")
    if not found:
        pytest.fail("jupyter-book is not installed; run `make install` (it comes with the [book] extra).")
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
    out = tmp_path_factory.mktemp("book")
    env = {**os.environ, "CFFAIR_MODE": "render", "PYTHONWARNINGS": os.environ.get("PYTHONWARNINGS", "")}
    start = time.perf_counter()
    proc = subprocess.run(
        [*jupyter_book_cmd(), "build", str(ROOT), "-W", "-n", "--keep-going", "--path-output", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
    )
    return BuildResult(proc.returncode, proc.stdout + proc.stderr, out / "_build" / "html", time.perf_counter() - start)


def test_book_builds_without_warnings(built_book: BuildResult) -> None:
    warnings = [l for l in built_book.log.splitlines() if re.search(r"WARNING|ERROR", l) and "IPKernelApp" not in l]
    assert built_book.returncode == 0, (
        f"jupyter-book build -W -n failed (exit {built_book.returncode}) after {built_book.seconds:.0f} s.\n"
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

    def send(self, method: str, params: dict[str, Any] | None = None, session: bool = True, timeout: float = 60) -> dict[str, Any]:
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
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
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
        try:
            self.send("Browser.close", session=False, timeout=10)
        except Exception:  # noqa: BLE001 - closing anyway
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        for fd in (self._to_chrome_w, self._from_chrome_r):
            try:
                os.close(fd)
            except OSError:
                pass


@dataclass
class PageReport:
    page: str
    title: str = ""
    text_length: int = 0
    tables: int = 0
    math: int = 0
    images: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


PAGE_FACTS_JS = """
(() => ({
  title: document.title,
  textLength: (document.body ? document.body.innerText : '').trim().length,
  tables: document.querySelectorAll('main table, article table, .bd-article table').length,
  math: document.querySelectorAll('mjx-container').length,
  images: Array.from(document.images).map(i => ({
    src: i.getAttribute('src'), url: i.src, complete: i.complete,
    width: i.naturalWidth, lazy: i.loading === 'lazy'})),
  height: Math.max(document.body.scrollHeight, document.documentElement.scrollHeight),
}))()
"""


def _is_local(url: str) -> bool:
    return urlparse(url).scheme in LOCAL_SCHEMES or url.startswith("data:")


def visit(browser: Chromium, html_root: Path, page: str, screenshot: Path) -> PageReport:
    """Load one page, collect its problems, take a full-page screenshot."""
    report = PageReport(page)
    url = (html_root / f"{page}.html").as_uri()
    browser.drain_events()
    browser.send("Page.navigate", {"url": url})
    events = browser.wait_for_event("Page.loadEventFired", timeout=30)
    if not any(e.get("method") == "Page.loadEventFired" for e in events):
        report.problems.append("the load event did not fire within 30 s")
    # MathJax typesets asynchronously after load; wait until it reports that it is done.
    browser.evaluate(
        "(async () => { if (window.MathJax && MathJax.startup && MathJax.startup.promise) "
        "{ await MathJax.startup.promise; } })()"
    )
    time.sleep(0.3)
    events += browser.drain_events()
    facts = browser.evaluate(PAGE_FACTS_JS)
    report.title = facts["title"]
    report.text_length = facts["textLength"]
    report.tables = facts["tables"]
    report.math = facts["math"]
    report.images = facts["images"]

    urls = {e["params"]["requestId"]: e["params"]["request"]["url"] for e in events if e.get("method") == "Network.requestWillBeSent"}
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
        if not img["lazy"] and (not img["complete"] or img["width"] == 0):
            report.problems.append(f"<img src={src!r}> did not decode (naturalWidth 0)")

    # Full-page screenshot: make the viewport as tall as the page (at most 12,000 px), shoot, restore.
    height = int(min(max(facts["height"], 900), 12000))
    browser.send("Emulation.setDeviceMetricsOverride", {"width": 1280, "height": height, "deviceScaleFactor": 1, "mobile": False})
    time.sleep(0.3)
    shot = browser.send("Page.captureScreenshot", {"format": "png"})
    browser.send("Emulation.clearDeviceMetricsOverride")
    screenshot.parent.mkdir(parents=True, exist_ok=True)
    screenshot.write_bytes(base64.b64decode(shot["data"]))
    return report


def test_every_page_works_in_chromium(built_book: BuildResult) -> None:
    if built_book.returncode != 0:
        pytest.fail("the book did not build (see test_book_builds_without_warnings); nothing to browse.")
    binary = find_chromium()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is not installed, and under CI the browser test must run: `make browser` installs it.")
        pytest.skip("chromium is not installed; run `make browser` (Debian package 'chromium') to enable the browser test.")

    html_root = built_book.html
    toc = toc_pages()
    others = sorted(
        str(p.relative_to(html_root).with_suffix(""))
        for p in html_root.rglob("*.html")
        if not p.relative_to(html_root).parts[0].startswith("_")
    )
    pages = toc + [p for p in others if p not in toc]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for old in SCREENSHOTS.glob("*.png"):
        old.unlink()

    failures: list[str] = []
    with tempfile.TemporaryDirectory(prefix="cffair-chromium-") as profile:
        browser = Chromium(binary, Path(profile))
        try:
            browser.open_page()
            for page in pages:
                shot = SCREENSHOTS / (page.replace("/", "__") + ".png")
                report = visit(browser, html_root, page, shot)
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
                if problems:
                    failures.append(f"{page}.html:\n  " + "\n  ".join(problems))
        finally:
            browser.close()
    assert not failures, "problems found in the browser:\n" + "\n".join(failures)
    assert len(list(SCREENSHOTS.glob("*.png"))) == len(pages)
