"""cffair.reporting._describe and the datasets page's figures: known answers on tiny inputs."""

from __future__ import annotations

import hashlib
from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")  # tests only

import matplotlib.pyplot as plt
import numpy as np
import pytest

from cffair import reporting
from cffair.errors import DataError
from cffair.reporting import _describe as describe


def _spec(**changes):
    spec = dict(
        target="y",
        target_kind="binary",
        favourable=0,
        favourable_top_fraction=0.4,
        sensitive="race",
        features={"race": "binary", "age": "integer", "priors": "integer", "charge": "categorical"},
        subgroups=(
            SimpleNamespace(column="race", bins=None, labels=None),
            SimpleNamespace(column="age", bins=(0, 30, 99), labels=("<=30", ">30")),
        ),
        immutable=("race", "age"),
    )
    spec.update(changes)
    return SimpleNamespace(**spec)


# ---------------------------------------------------------------------------- specs and files
def test_describe_spec_names_every_part_of_the_spec():
    d = reporting.describe_spec(_spec())
    assert d == {
        "target (kind)": "y (binary)",
        "favourable outcome": "y = 0",
        "sensitive attribute": "race",
        "subgroups": "race × age in bands (<=30, >30)",
        "immutable features": "race, age",
        "binary features": "race",
        "categorical features": "charge",
        "integer features": "age, priors",
    }


def test_describe_spec_of_a_score_target_without_subgroups():
    d = reporting.describe_spec(_spec(target_kind="score", favourable_top_fraction=0.25, subgroups=()))
    assert d["favourable outcome"] == "best 25% of y"
    assert d["subgroups"] == "race"  # no subgroup columns: the sensitive attribute's groups


def test_spec_frame_puts_datasets_side_by_side_and_fills_missing_kinds():
    frame = reporting.spec_frame(
        {"compas": _spec(), "lawschool": _spec(features={"race": "binary", "z": "continuous"})}
    )
    assert list(frame.columns) == ["COMPAS", "Lawschool"]
    assert frame.loc["categorical features", "Lawschool"] == "—"
    assert frame.loc["continuous features", "COMPAS"] == "—"
    assert frame.loc["continuous features", "Lawschool"] == "z"


def test_data_files_frame_hashes_the_bytes(tmp_path):
    (tmp_path / "a.csv").write_bytes(b"x,y\n1,2\n")
    frame = describe.data_files_frame(tmp_path, {"toy": "a.csv"})
    row = frame.iloc[0]
    assert row["size (bytes)"] == "8"
    assert row["SHA-256 (first 16 hex digits)"] == hashlib.sha256(b"x,y\n1,2\n").hexdigest()[:16]
    assert row["file"] == "a.csv"
    with pytest.raises(DataError, match="no data file 'b.csv'"):
        describe.data_files_frame(tmp_path, {"toy": "b.csv"})


# ---------------------------------------------------------------------------- summaries
SUMMARIES = {
    "compas": {
        "rows": 6167,
        "paper_rows": 6172,
        "features_by_kind": {"binary": ["race", "sex"], "integer": ["age"]},
        "target": "two-year-recid",
        "target_kind": "binary",
        "target_balance": {"positive_rate": 0.4551},
        "sensitive": "race",
        "groups": {"Non-Caucasian": 4000, "Caucasian": 2167},
        "subgroups": {"Non-Caucasian": 4000, "Caucasian": 2167},
    },
    "lawschool": {
        "rows": 300,
        "paper_rows": 300,
        "features_by_kind": {"continuous": ["LSAT"]},
        "target": "ZFYA",
        "target_kind": "score",
        "target_balance": {"mean": 0.1, "std": 0.95, "min": -3.35, "max": 3.48},
        "sensitive": "sex",
        "groups": {"Male": 200, "Female": 100},
        "subgroups": {"Male, White": 150, "Female, White": 90, "Male, Black": 50, "Female, Black": 10},
    },
}


def test_row_counts_frame_computes_the_difference_to_the_paper():
    frame = reporting.row_counts_frame(SUMMARIES, {"compas": "5 rows fewer"}).set_index("dataset")
    assert frame.loc["COMPAS"].tolist() == ["6,167", "6,172", "-5", 3, "5 rows fewer"]
    assert frame.loc["Lawschool", "difference"] == "0" and frame.loc["Lawschool", "note"] == ""
    custom = reporting.row_counts_frame({"mine": {**SUMMARIES["lawschool"], "paper_rows": None}})
    assert custom.iloc[0]["rows (paper)"] == "—" and custom.iloc[0]["difference"] == "—"


def test_balance_frame_for_a_binary_and_a_score_target():
    frame = reporting.balance_frame(SUMMARIES).set_index("dataset")
    assert frame.loc["COMPAS", "target balance"] == "45.5% have two-year-recid = 1"
    assert frame.loc["Lawschool", "target balance"] == "mean 0.100, sd 0.950, range [-3.35, 3.48]"
    assert frame.loc["COMPAS", "groups of the sensitive attribute"] == "race — Non-Caucasian: 4,000, Caucasian: 2,167"
    assert frame.loc["Lawschool", "smallest subgroup"] == "Female, Black (10)"
    assert frame.loc["Lawschool", "subgroups"] == 4


def test_subgroup_sizes_frame_and_table():
    sizes = reporting.subgroup_sizes_frame(SUMMARIES)
    law = sizes[sizes.dataset == "Lawschool"].set_index("subgroup")
    assert law.loc["Male, White", "rows"] == 150
    assert law.loc["Female, Black", "share"] == pytest.approx(10 / 300)
    assert sizes.groupby("dataset")["share"].sum().tolist() == pytest.approx([1.0, 1.0])
    table = describe.subgroup_sizes_table(sizes)
    assert table.loc[("COMPAS", "Non-Caucasian")].tolist() == ["4,000", "64.9%"]


# ---------------------------------------------------------------------------- causal graphs
def test_short_source_and_graph_title():
    src = 'Kusner, Loftus, Russell and Silva (2017), "Counterfactual fairness", NeurIPS'
    assert describe.short_source(src) == "Kusner et al. (2017)"
    assert describe.short_source("Zhang, Wu and Wu (2016), ...") == "Zhang et al. (2016)"
    assert describe.short_source("cffair authors") == "cffair"
    assert (
        describe.graph_title("compas", "Russell, Kusner (2017)", verified=False)
        == "COMPAS: causal graph after Russell et al. (2017)  [UNVERIFIED]"
    )


def test_graph_summary_frame():
    g = SimpleNamespace(nodes=("a", "b"), edges=(("a", "b"),), source="X (2020)", verified=False)
    row = reporting.graph_summary_frame({"toy": g}).iloc[0]
    assert row.tolist() == ["toy", 2, 1, "X (2020)", "UNVERIFIED: transcribed, not checked against the source"]


def test_graph_layers_put_each_node_after_all_its_parents():
    nodes = ["d", "a", "b", "c"]
    edges = [("a", "b"), ("a", "c"), ("b", "c"), ("d", "c")]
    assert describe.graph_layers(nodes, edges) == [["d", "a"], ["b"], ["c"]]
    with pytest.raises(DataError, match="cycle"):
        describe.graph_layers(["a", "b"], [("a", "b"), ("b", "a")])
    with pytest.raises(DataError, match=r"names \['z'\]"):
        describe.graph_layers(["a"], [("a", "z")])


def test_layered_positions_centre_layers_and_zigzag_single_nodes():
    pos = describe.layered_positions([["a", "b", "c"], ["d"], ["e"], ["f", "g"]])
    assert pos["a"] == (0.0, 1.0) and pos["b"] == (0.0, 0.0) and pos["c"] == (0.0, -1.0)
    assert pos["d"] == (1.0, -0.6) and pos["e"] == (2.0, 0.6)
    assert pos["f"] == (3.0, 0.5) and pos["g"] == (3.0, -0.5)


def test_clip_to_box_meets_the_box_border():
    assert describe.clip_to_box((0, 0), (4, 1), (1, 0.5)) == pytest.approx((1.0, 0.25))  # leaves through the right side
    assert describe.clip_to_box((0, 0), (1, 4), (1, 0.5)) == pytest.approx((0.125, 0.5))  # through the top
    assert describe.clip_to_box((2, 2), (2, -5), (1, 0.5)) == pytest.approx((2.0, 1.5))  # straight down
    assert describe.clip_to_box((1, 1), (1, 1), (1, 1)) == (1, 1)


def test_adjacency_frame_in_topological_order():
    adj = reporting.adjacency_frame(["c", "b", "a"], [("a", "b"), ("b", "c"), ("a", "c")])
    assert list(adj.index) == ["a", "b", "c"] and list(adj.columns) == ["a", "b", "c"]
    np.testing.assert_array_equal(adj.to_numpy(), [[0, 1, 1], [0, 0, 1], [0, 0, 0]])
    assert np.all(np.tril(adj.to_numpy()) == 0)  # every edge above the diagonal


def test_node_roles():
    roles = describe.node_roles(["s", "age", "job"], "s", ["s", "age"])
    assert roles == {"s": "sensitive", "age": "immutable", "job": "actionable"}


def test_plot_causal_graph_layers_draws_every_edge_between_the_label_boxes():
    nodes, edges = (
        ["race", "sex", "LSAT", "UGPA"],
        [("race", "LSAT"), ("race", "UGPA"), ("sex", "LSAT"), ("sex", "UGPA")],
    )
    fig = reporting.plot_causal_graph(nodes, edges, sensitive="sex", immutable=["race", "sex"], title="toy")
    ax = fig.axes[0]
    from matplotlib.text import Annotation

    labels = {t.get_text(): t for t in ax.texts if not isinstance(t, Annotation)}
    assert set(labels) == set(nodes)
    assert labels["sex"].get_bbox_patch().get_facecolor()[:3] == (1.0, 1.0, 1.0)  # white: sensitive
    arrows = [t for t in ax.texts if isinstance(t, Annotation)]
    assert len(arrows) == 4
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = {n: t.get_bbox_patch().get_window_extent(renderer) for n, t in labels.items()}
    for arrow, (a, b) in zip(arrows, edges):
        start = ax.transData.transform(arrow.xyann)
        end = ax.transData.transform(arrow.xy)
        # each end sits on its node's label box (within a pixel or two), not inside it
        for point, box in ((start, boxes[a]), (end, boxes[b])):
            inside = box.x0 + 2 < point[0] < box.x1 - 2 and box.y0 + 2 < point[1] < box.y1 - 2
            near = box.x0 - 3 <= point[0] <= box.x1 + 3 and box.y0 - 3 <= point[1] <= box.y1 + 3
            assert near and not inside
    assert fig.texts[0].get_text() == "toy"
    plt.close(fig)


def test_plot_causal_graph_matrix_for_a_dense_graph():
    nodes = ["a", "b", "c", "d"]
    edges = [("a", "b"), ("a", "c"), ("b", "c"), ("c", "d"), ("a", "d")]  # a → c and a → d skip layers
    fig = reporting.plot_causal_graph(nodes, edges, sensitive="a", immutable=["a"])
    ax = fig.axes[0]
    image = ax.get_images()[0].get_array()
    np.testing.assert_array_equal(np.asarray(image), reporting.adjacency_frame(nodes, edges).to_numpy())
    assert [t.get_text() for t in ax.get_yticklabels()] == ["a", "b", "c", "d"]
    assert "5 edges" in fig.texts[0].get_text()
    plt.close(fig)
    fig = reporting.plot_causal_graph(nodes, edges[:1], style="auto")  # one short edge: layers
    assert not fig.axes[0].get_images()
    plt.close(fig)
    with pytest.raises(DataError, match="unknown graph style"):
        reporting.plot_causal_graph(nodes, edges, style="circle")
