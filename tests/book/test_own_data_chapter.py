"""The book's chapter "Your own data" (book/own_data.md) runs in quick mode.

The page is converted with jupytext and executed with papermill (``mode="quick"``) in a fresh
cache folder, so that it fits its flows, runs the quick protocol on 3,000 rows of the
credit-default data and reads its own results: no cell may fail, the page must show its
tables and figures, and the numbers it shows must be those of the records it computed.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "book" / "own_data.md"

pytestmark = pytest.mark.slow


def test_the_chapter_is_in_the_table_of_contents_after_the_datasets_page() -> None:
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [c["file"] for part in toc["parts"] for c in part.get("chapters", [])]
    assert files.index("book/own_data") == files.index("book/datasets") + 1


def test_the_chapter_has_one_parameters_cell_with_mode_none() -> None:
    import jupytext

    nb = jupytext.read(PAGE)
    params = [c for c in nb.cells if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1 and params[0].source.strip() == "mode = None"
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.lstrip().startswith("# Your own data")


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, float, Path]:
    import jupytext
    import papermill as pm

    tmp = tmp_path_factory.mktemp("own_data")
    saved = {k: os.environ.get(k) for k in ("CFFAIR_CACHE", "CFFAIR_MODE", "CFFAIR_DATASETS", "CFFAIR_RESULTS")}
    os.environ["CFFAIR_CACHE"] = str(tmp / "cache")  # the kernel inherits this process's environment
    os.environ["CFFAIR_RESULTS"] = str(tmp / "results")
    os.environ.pop("CFFAIR_MODE", None)
    os.environ.pop("CFFAIR_DATASETS", None)
    try:
        src = tmp / "own_data.ipynb"
        jupytext.write(jupytext.read(PAGE), src)
        t0 = time.perf_counter()
        nb = pm.execute_notebook(
            str(src),
            str(tmp / "out.ipynb"),
            parameters={"mode": "quick"},
            cwd=str(PAGE.parent),
            progress_bar=False,
            kernel_name="python3",
        )
        seconds = time.perf_counter() - t0
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return nb, seconds, tmp / "results" / "quick" / "own_data"


def _outputs(nb: dict) -> list[dict]:
    return [o for c in nb["cells"] if c["cell_type"] == "code" for o in c.get("outputs", [])]


def test_the_chapter_runs_in_quick_mode_without_errors(executed: tuple[dict, float, Path]) -> None:
    nb, seconds, _ = executed
    errors = [o for o in _outputs(nb) if o.get("output_type") == "error"]
    assert not errors, errors[0].get("evalue")
    html = "".join("".join(o.get("data", {}).get("text/html", "")) for o in _outputs(nb))
    assert "Table 1 on the credit data (2 folds)" in html and "Imbalances of undesirable explanations" in html
    assert sum("image/png" in o.get("data", {}) for o in _outputs(nb)) >= 2  # the graph and the subgroup figure
    print(f"own_data.md in quick mode: {seconds:.0f} s")


def test_the_chapter_shows_the_records_it_computed(executed: tuple[dict, float, Path]) -> None:
    """Every Table 1 cell is the mean ± sd of the quick run's records, and the freshness box
    says they are current."""
    import numpy as np

    from cffair.experiments import ResultsStore
    from cffair.reporting import method_name

    nb, _, results = executed
    html = "".join("".join(o.get("data", {}).get("text/html", "")) for o in _outputs(nb))
    assert "Results are current" in html
    records = ResultsStore(results / "credit").records()
    assert {(r["config"]["setting"], r["config"]["fold"]) for r in records} == {
        (m, f) for m in ("ltn_acc", "ltn_acc_cf", "ltn_acc_cf_sg", "ltn_acc_cf_cke", "cnf", "unaware") for f in (0, 1)
    }
    table = html[html.index("Table 1 on the credit data") :]
    table = table[: table.index("</table>")]
    for setting in ("ltn_acc", "ltn_acc_cf", "cnf", "unaware"):
        row = re.search(
            re.escape(f"<th>{method_name(setting)}</th>")
            + r"\s*<td[^>]*>(?:<strong>)?([0-9.]+)[ \u00a0]±[ \u00a0]([0-9.]+)",
            table,
        )
        assert row, (setting, table[:400])
        acc = np.array([r["metrics"]["accuracy"] for r in records if r["config"]["setting"] == setting])
        assert row.group(1) == f"{acc.mean():.3f}" and row.group(2) == f"{acc.std(ddof=1):.3f}", setting


def test_the_chapter_keeps_a_model_and_audits_three(executed: tuple[dict, float, Path]) -> None:
    """The model section ran: a saved model reloaded and a table of three audited models with their flip rates."""
    nb, _, _ = executed
    html = ["".join(o["data"]["text/html"]) for o in _outputs(nb) if "text/html" in o.get("data", {})]
    audit = [h for h in html if "CF flip rate" in h and "logistic regression without" in h]
    assert audit, "the audit table of the LTN and two logistic regressions is missing"
    assert "LTN(acc+CF)" in audit[0]
    text = "".join("".join(o.get("text", "")) for o in _outputs(nb) if o.get("output_type") == "stream")
    assert "credit.cffair:" in text and "P(default) of two new clients" in text


def test_the_complaints_table_shows_what_the_cli_printed(executed: tuple[dict, float, Path]) -> None:
    """The error table is made by running the commands: every error row is one 'cffair: error:' line with exit 2."""
    nb, _, _ = executed
    html = ["".join(o["data"]["text/html"]) for o in _outputs(nb) if "text/html" in o.get("data", {})]
    table = next(h for h in html if "What cffair prints for a broken copy" in h)
    assert table.count("cffair: error:") >= 7 and "cffair: warning:" in table
    assert "line 8 of data.csv" in table  # the value error names the file and line
