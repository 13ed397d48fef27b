"""``cffair recourse`` end to end on COMPAS (a short schedule, a private cache): it prints the
cheapest intervention of a person, which the library reproduces; bad options exit 2 with one line."""

from __future__ import annotations

import json

import pytest

from cffair.cli import main

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> str:
    tmp = tmp_path_factory.mktemp("recourse")
    path = str(tmp / "compas.pt")
    rc = main(
        [
            "train",
            "--dataset",
            "compas",
            "--setting",
            "acc",
            "--flow-epochs",
            "1",
            "--pretrain-epochs",
            "100",
            "--cache-dir",
            str(tmp / "cache"),
            "--quiet",
            "--save",
            path,
        ]
    )
    assert rc == 0
    return path


def _run(argv, capsys):
    rc = main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def test_recourse_for_rows_and_a_subgroup(checkpoint, capsys) -> None:
    from cffair import datasets
    from cffair.learners._training import LTNLearner

    frame, spec = datasets.load("compas")
    d = LTNLearner.load(checkpoint, progress=False).predict_d
    from cffair.cli._common import fold_encoder
    from cffair.learners._training import checkpoint_extra

    _, enc = fold_encoder((frame, spec), checkpoint_extra(checkpoint))
    dd = d(enc.transform(frame.head(200)))
    neg = [int(i) for i in (dd >= 0.5).nonzero()[0][:2]]  # favourable is 0 (no re-arrest) on COMPAS
    pos = int((dd < 0.5).nonzero()[0][0])
    rc, out, err = _run(
        [
            "recourse",
            "--checkpoint",
            checkpoint,
            "--quiet",
            "--json",
            *sum([["--row", str(r)] for r in [*neg, pos]], []),
        ],
        capsys,
    )
    assert rc == 0, err
    res = json.loads(out)
    rows = {r["row"]: r for r in res["rows"]}
    assert rows[pos]["favourable"] and "found" not in rows[pos]
    for r in neg:
        assert not rows[r]["favourable"]
        if rows[r]["found"]:
            assert rows[r]["D_after"] < 0.5 and rows[r]["cost"] > 0 and 0 <= rows[r]["query"] <= 1
            assert not any(f in rows[r]["action"] for f in ("race:", "age:", "sex:"))
    assert res["actions"] == ["priors-count", "juv-fel-count", "juv-misd-count", "juv-other-count", "c-charge-degree"]
    rc, out, err = _run(
        [
            "recourse",
            "--checkpoint",
            checkpoint,
            "--quiet",
            "--where",
            "race == 'Caucasian'",
            "--limit",
            "30",
            "--max-features",
            "1",
        ],
        capsys,
    )
    assert rc == 0, err
    assert "30 people selected by \"race == 'Caucasian'\"" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--row", "3", "--actions", "age"], "'age' is immutable in the spec of 'compas'"),
        (["--row", "3", "--actions", "race:increase"], "'race' is the sensitive attribute of 'compas'"),
        (
            ["--row", "3", "--actions", "priors-count:up"],
            "direction of 'priors-count' must be one of any, increase, decrease",
        ),
        (["--row", "999999"], "--row must lie in 0..6166"),
        (
            ["--where", "race == 'Martian'"],
            "'Martian' is not a value of column 'race': its values are ['Caucasian', 'Non-Caucasian']",
        ),
        (["--where", "age > 200"], "--where 'age > 200' selects no row"),
        (
            ["--where", "__import__('os').system('true')"],
            "attributes and methods, x.attr or x.f(), are not part of the grammar",
        ),
    ],
)
def test_bad_options_exit_2_with_one_line(checkpoint, capsys, argv, message) -> None:
    rc, out, err = _run(["recourse", "--checkpoint", checkpoint, "--quiet", *argv], capsys)
    assert rc == 2
    assert message in err and len(err.strip().splitlines()) == 1
