"""Unit properties of the baselines (issue 5): the DCEVAE fixes, the GAN's adversary leak flag,
the MMD kernel, the plug-in predictor, the level-3 residuals, the augmented MLP's labels."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from baselines_synth import synth

from cffair._support.utils import torch_cpu_setup
from cffair.baselines import (
    DCEVAE,
    AugmentedMLP,
    DCEVAEConfig,
    GANBaseline,
    GANConfig,
    MLPConfig,
    PlugInCF,
    ResidualMLP,
    UnawareMLP,
    kl_diag_std_normal,
    mmd_rbf,
    pair_labels,
)
from cffair.causal._cfset import CFPairs
from cffair.datasets import DatasetSpec
from cffair.datasets._encoding import Encoder
from cffair.errors import DataError

torch_cpu_setup()

FAST = MLPConfig(epochs=30, lr=0.01, seed=0)


@pytest.fixture(scope="module")
def data():
    return synth(240, seed=1)


# ----------------------------------------------------------------------------- DCEVAE
def test_closed_form_kl_equals_dense_multivariate_normal_kl():
    torch.manual_seed(0)
    B, dim = 3, 7
    mu, logvar = torch.randn(B, dim), torch.randn(B, dim) * 0.5
    dense = (
        torch.distributions.kl_divergence(
            torch.distributions.MultivariateNormal(mu.flatten(), torch.diag(logvar.flatten().exp())),
            torch.distributions.MultivariateNormal(torch.zeros(B * dim), torch.eye(B * dim)),
        )
        / B
    )
    assert torch.allclose(kl_diag_std_normal(mu, logvar), dense, rtol=1e-5, atol=1e-6)
    assert float(kl_diag_std_normal(torch.zeros(B, dim), torch.zeros(B, dim))) == 0.0


def _dcevae_with_batch(data):
    frame, spec, enc = data
    model = DCEVAE(DCEVAEConfig(batch_size=64, seed=0)).fit(frame, enc, epochs=0)
    from cffair.baselines._mixed import encode_frame

    X, y = encode_frame(frame, enc)
    t = model._tensors(X, y)
    gen = torch.Generator().manual_seed(5)
    return model, tuple(v[:64] for v in t), tuple(v[64:128] for v in t), gen


def test_dcevae_update_gives_each_loss_its_own_gradient(data):
    model, b1, b2, gen = _dcevae_with_batch(data)
    net = model.model_
    losses = model.losses(b1, b2, gen)
    disc, vae = net.disc_parameters(), net.vae_parameters()
    own_disc = torch.autograd.grad(losses.d_tc, disc, retain_graph=True)
    leaked_disc = torch.autograd.grad(losses.d_tc + losses.elbo, disc, retain_graph=True)
    own_vae = torch.autograd.grad(losses.elbo, vae, retain_graph=True, allow_unused=True)
    before = [p.detach().clone() for p in disc]
    model.update(losses)
    for p, g, _bad in zip(disc, own_disc, leaked_disc):
        assert torch.equal(p.grad, g)
    # the ELBO's total-correlation term does reach the discriminator, so the check above is not vacuous
    assert any(not torch.allclose(g, bad) for g, bad in zip(own_disc, leaked_disc))
    for p, g in zip(vae, own_vae):
        assert torch.equal(p.grad, torch.zeros_like(p) if g is None else g)
    assert any(not torch.equal(a, p) for a, p in zip(before, disc))  # the discriminator was stepped


def test_release_update_order_fails_in_place(data):
    """The bug being fixed: stepping the discriminator before the ELBO's backward pass."""
    model, b1, b2, gen = _dcevae_with_batch(data)
    losses = model.losses(b1, b2, gen)
    model.opt_disc_.zero_grad()
    losses.d_tc.backward(retain_graph=True)
    model.opt_disc_.step()
    with pytest.raises(RuntimeError, match="inplace"):
        losses.elbo.backward()


# ----------------------------------------------------------------------------- GAN
def _gan(data, leak: bool):
    frame, spec, enc = data
    gan = GANBaseline(GANConfig(batch_size=64, leak_adversary_grad=leak, seed=0)).fit_inference(frame, enc, epochs=0)
    from cffair.baselines._mixed import encode_frame

    X, y = encode_frame(frame, enc)
    x, s, yt = gan._split(X[:64], y[:64])
    mu, logvar = gan.model_.encode(x, s, yt)
    z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
    return gan, z, s


@pytest.mark.parametrize("leak", [False, True])
def test_gan_adversary_steps_touch_the_encoder_only_with_the_leak(data, leak):
    gan, z, s = _gan(data, leak)
    for p in gan.vae_params_:
        p.grad = None
    adv_before = [p.detach().clone() for p in gan.model_.adversary.parameters()]
    gan._adversary_steps(z, s, 3)
    enc_grads = [p.grad for p in gan.model_.encoder.parameters()]
    if leak:
        assert all(g is not None for g in enc_grads) and any(float(g.abs().sum()) > 0 for g in enc_grads)
    else:
        assert all(g is None for g in enc_grads)
    assert any(not torch.equal(a, p) for a, p in zip(adv_before, gan.model_.adversary.parameters()))


def _tiled_mmd(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """The original release's MMD: tiled ``(B, B, dim)`` differences, autograd through all of it."""

    def k(u, v):
        d = u.shape[1]
        diff = u.unsqueeze(1).expand(len(u), len(v), d) - v.unsqueeze(0).expand(len(u), len(v), d)
        return torch.exp(-(diff**2).mean(2) / d)

    return k(x, x).mean() + k(y, y).mean() - 2 * k(x, y).mean()


def test_mmd_equals_the_tiled_kernel_in_value_and_gradient():
    torch.manual_seed(0)
    a0, b0 = torch.randn(40, 5, dtype=torch.float64), torch.randn(30, 5, dtype=torch.float64) + 0.5
    a, b = a0.clone().requires_grad_(), b0.clone().requires_grad_()
    at, bt = a0.clone().requires_grad_(), b0.clone().requires_grad_()
    got, expected = mmd_rbf(a, b), _tiled_mmd(at, bt)
    assert torch.allclose(got, expected, atol=1e-12)
    got.backward()
    expected.backward()
    # both arguments: the cross term and each argument's own kernel (u = v) contribute
    assert torch.allclose(a.grad, at.grad, atol=1e-12) and torch.allclose(b.grad, bt.grad, atol=1e-12)
    assert float(b.grad.abs().sum()) > 0
    assert abs(float(mmd_rbf(a0, a0))) < 1e-12
    assert float(mmd_rbf(a0, b0)) > 0


def test_mmd_backward_passes_gradcheck_and_respects_which_input_needs_it():
    torch.manual_seed(1)
    a = torch.randn(7, 3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(9, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(mmd_rbf, (a, b))
    prior = torch.randn(7, 3)  # the prior sample needs no gradient, as in stage 1
    z = torch.randn(9, 3, requires_grad=True)
    mmd_rbf(prior, z).backward()
    assert z.grad is not None and prior.grad is None
    with pytest.raises(ValueError, match="same width"):
        mmd_rbf(torch.randn(4, 3), torch.randn(4, 2))


# ----------------------------------------------------------------------------- plug-in (Zhou et al. 2024)
def _flip_pairs(X: np.ndarray, enc: Encoder, shift: float = 1.5) -> CFPairs:
    """Pairs whose counterfactual flips s and moves a descendant: each other's counterfactuals."""
    s = enc.columns_of("s")[0]
    h = enc.columns_of("hours")[0]
    x_cf = X.copy()
    x_cf[:, s] = 1 - X[:, s]
    x_cf[:, h] = X[:, h] + np.where(X[:, s] > 0.5, -shift, shift)
    n = len(X)
    return CFPairs(
        np.arange(n, dtype=np.int64), X, x_cf.astype(np.float32), np.array(["s"] * n), np.array(["flip"] * n)
    )


@pytest.mark.parametrize("weights", ["prior", "uniform"])
def test_plugin_has_zero_cf_mse_on_mutual_counterfactuals(data, weights):
    frame, spec, enc = data
    X, y = enc.transform(frame), frame["y"].to_numpy()
    model = PlugInCF(enc, FAST, weights=weights).fit(X, y)
    pairs = _flip_pairs(X, enc)
    score = model.score_fn(pairs)
    f, f_cf = score(pairs.x), score(pairs.x_cf)
    assert np.mean((f - f_cf) ** 2) == pytest.approx(0.0, abs=1e-12)
    base_gap = np.mean((model.base_score(pairs.x) - model.base_score(pairs.x_cf)) ** 2)
    assert base_gap > 1e-4  # the unconstrained predictor does depend on the change
    assert np.allclose(
        model.predict_score_pairs(pairs.x, [pairs.x_cf]), model.predict_score_pairs(pairs.x_cf, [pairs.x])
    )
    # the mix is a convex combination of the two predictions
    lo = np.minimum(model.base_score(pairs.x), model.base_score(pairs.x_cf))
    hi = np.maximum(model.base_score(pairs.x), model.base_score(pairs.x_cf))
    assert np.all((f >= lo - 1e-12) & (f <= hi + 1e-12))
    with pytest.raises(DataError, match="set_counterfactuals"):
        model.predict_score(X)
    assert np.allclose(model.set_counterfactuals(pairs).predict_score(X), f)


def test_plugin_weights_are_the_group_prior(data):
    frame, spec, enc = data
    X, y = enc.transform(frame), frame["y"].to_numpy()
    model = PlugInCF(enc, FAST).fit(X, y)
    pairs = _flip_pairs(X, enc)
    p_m = float(np.mean(X[:, enc.columns_of("s")[0]]))
    assert model.prior_[1] == pytest.approx(p_m)
    fx, fc = model.base_score(pairs.x), model.base_score(pairs.x_cf)
    is_m = X[:, enc.columns_of("s")[0]] > 0.5
    expected = np.where(is_m, p_m * fx + (1 - p_m) * fc, (1 - p_m) * fx + p_m * fc)
    assert np.allclose(model.predict_score_pairs(pairs.x, [pairs.x_cf]), expected)


def test_plugin_refuses_rows_without_counterfactuals(data):
    frame, spec, enc = data
    X, y = enc.transform(frame), frame["y"].to_numpy()
    model = PlugInCF(enc, FAST).fit(X, y)
    pairs = _flip_pairs(X[:10], enc)
    with pytest.raises(DataError, match="no counterfactual"):
        model.score_fn(pairs)(X[10:20])


# ----------------------------------------------------------------------------- level 3 and unaware
def test_residuals_are_invariant_under_linear_scm_counterfactuals():
    """Under a linear additive SCM, the exact counterfactual leaves the level-3 inputs unchanged."""
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 4000
    s = rng.integers(0, 2, n)
    r = rng.normal(0, 1, n)
    u1, u2 = rng.normal(0, 1, n), rng.normal(0, 1, n)

    def scm(s_val):
        d1 = 2.0 * s_val + 0.5 * r + u1
        d2 = -1.0 * s_val + 0.8 * d1 + u2
        return d1, d2

    def frame_of(s_val):
        d1, d2 = scm(s_val)
        return pd.DataFrame(
            {"s": pd.Categorical.from_codes(s_val, ["a", "b"]), "r": r, "d1": d1, "d2": d2, "y": d2 + r}
        )

    spec = DatasetSpec(
        name="lin",
        target="y",
        target_kind="score",
        sensitive="s",
        features={"s": "binary", "r": "continuous", "d1": "continuous", "d2": "continuous"},
        graph={"edges": {"s": ["d1", "d2"], "r": ["d1"], "d1": ["d2"]}},
    )
    factual, counterfactual = frame_of(s), frame_of(1 - s)
    enc = Encoder(spec).fit(factual)
    X, X_cf = enc.transform(factual), enc.transform(counterfactual)
    res = ResidualMLP(enc).fit_residuals(X)
    raw_gap = np.abs(X - X_cf).max()
    assert raw_gap > 1.0
    assert np.abs(res.transform(X) - res.transform(X_cf)).max() < 0.1 * raw_gap
    assert res.descendants_ == ["d1", "d2"] and res.nondescendants_ == ["r"]


def test_unaware_mlp_ignores_the_sensitive_columns(data):
    frame, spec, enc = data
    X, y = enc.transform(frame), frame["y"].to_numpy()
    model = UnawareMLP(enc, FAST).fit(X, y)
    X_flip = X.copy()
    X_flip[:, enc.columns_of("s")] = 1 - X_flip[:, enc.columns_of("s")]
    assert np.array_equal(model.predict_score(X), model.predict_score(X_flip))
    assert model.model_[0].in_features == X.shape[1] - 1


# ----------------------------------------------------------------------------- augmented MLP
def test_pair_labels_copy_the_factual_label():
    row_ids = np.array([7, 3, 11])
    y = np.array([1.0, 0.0, 1.0])
    pairs = CFPairs(
        np.array([3, 11, 3, 7]),
        np.zeros((4, 2), np.float32),
        np.zeros((4, 2), np.float32),
        np.array(["s"] * 4),
        np.array(["v"] * 4),
    )
    assert pair_labels(pairs, row_ids, y).tolist() == [0.0, 1.0, 0.0, 1.0]
    bad = CFPairs(
        np.array([5]), np.zeros((1, 2), np.float32), np.zeros((1, 2), np.float32), np.array(["s"]), np.array(["v"])
    )
    with pytest.raises(DataError, match="not among the labelled rows"):
        pair_labels(bad, row_ids, y)


def test_augmenting_with_counterfactuals_shrinks_the_counterfactual_gap(data):
    """Labels that equal the sensitive attribute: the factual MLP learns s, the augmented one cannot."""
    frame, spec, enc = data
    X = enc.transform(frame)
    s_col = enc.columns_of("s")[0]
    y = X[:, s_col].copy()
    X_cf = X.copy()
    X_cf[:, s_col] = 1 - X[:, s_col]
    cfg = MLPConfig(epochs=60, lr=0.01, seed=0)
    factual = AugmentedMLP("binary", cfg).fit(X, y)
    augmented = AugmentedMLP("binary", cfg).fit(X, y, X_cf, y)
    gap = lambda m: np.mean((m.predict_score(X) - m.predict_score(X_cf)) ** 2)  # noqa: E731
    assert gap(factual) > 0.5
    assert gap(augmented) < 0.25 * gap(factual)
    with pytest.raises(DataError, match="both X_cf and y_cf"):
        AugmentedMLP("binary", cfg).fit(X, y, X_cf)


def test_plugin_through_the_shared_evaluation_has_zero_cf_mse(data):
    from cffair.scores._metrics import evaluate

    frame, spec, enc = data
    X, y = enc.transform(frame), frame["y"].to_numpy()
    model = PlugInCF(enc, FAST).fit(X, y)
    pairs = _flip_pairs(X, enc)
    out = evaluate(model.score_fn(pairs), X, y, pairs, frame["s"].astype(str).to_numpy(), target_kind="binary")
    assert out["cf_mse"] == pytest.approx(0.0, abs=1e-12)
    assert out["cf_mse_worst_subgroup"] == pytest.approx(0.0, abs=1e-12)
    base = evaluate(model.base_score, X, y, pairs, frame["s"].astype(str).to_numpy(), target_kind="binary")
    assert base["cf_mse"] > 1e-4


# ----------------------------------------------------------------------------- merged rows (issue 43)
def _repeated(seed: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 4)).astype(np.float32)
    y = (rng.random(40) < 0.5).astype(np.float32) if kind == "binary" else rng.normal(size=40).astype(np.float32)
    reps = rng.integers(1, 4, size=40)  # each row 1-3 times, as [x; x′] repeats rows
    return np.repeat(X, reps, axis=0), np.repeat(y, reps)


@pytest.mark.parametrize("kind", ["binary", "score"])
def test_merged_rows_with_counts_give_the_loss_and_gradients_of_the_repeated_rows(kind):
    from cffair.baselines._augmented import merge_rows, predictor_loss
    from cffair.learners._networks import make_mlp

    X, y = _repeated(0, kind)
    Xu, yu, w = merge_rows(X, y)
    assert w is not None and len(Xu) < len(X) and w.sum() == len(X)
    torch.manual_seed(0)
    net = make_mlp(4, kind, (8, 4))
    grads = []
    for xs, ys, ws in ((X, y, None), (Xu, yu, torch.from_numpy(w))):
        net.zero_grad()
        loss = predictor_loss(net(torch.from_numpy(xs)), torch.from_numpy(ys), kind, ws)
        loss.backward()
        grads.append((float(loss.detach()), [p.grad.clone() for p in net.parameters()]))
    (l_rep, g_rep), (l_merged, g_merged) = grads
    assert l_merged == pytest.approx(l_rep, rel=1e-6)
    for a, b in zip(g_rep, g_merged, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-7)


def test_full_batch_training_on_merged_rows_follows_training_on_the_repeated_rows():
    """train_mlp (which merges) against the same Adam loop on the repeated rows, written out here."""
    from cffair.baselines._augmented import MLPConfig, predict_mlp, predictor_loss, train_mlp
    from cffair.learners._networks import make_mlp

    X, y = _repeated(1, "binary")
    config = MLPConfig(epochs=60, lr=0.01, hidden=(8, 4))
    merged, history = train_mlp(X, y, "binary", config)
    torch.manual_seed(config.seed)
    plain = make_mlp(4, "binary", config.hidden)
    opt = torch.optim.Adam(plain.parameters(), lr=config.lr)
    xt, yt = torch.from_numpy(X), torch.from_numpy(y)
    losses = []
    for _ in range(config.epochs):
        opt.zero_grad()
        loss = predictor_loss(plain(xt), yt, "binary")
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
    plain.eval()
    np.testing.assert_allclose(history, losses, rtol=1e-5)
    np.testing.assert_allclose(predict_mlp(merged, X), predict_mlp(plain, X), atol=1e-5)


def test_rows_without_repeats_are_left_as_they_are():
    from cffair.baselines._augmented import merge_rows

    X = np.arange(12, dtype=np.float32).reshape(6, 2)
    y = np.zeros(6, dtype=np.float32)
    Xu, yu, w = merge_rows(X, y)
    assert w is None and Xu is X and yu is y
    # a row repeated with another label is two rows
    Xd = np.vstack([X, X[:1]])
    assert merge_rows(Xd, np.r_[y, 1.0].astype(np.float32))[2] is None


# ----------------------------------------------------------------------------- GAN: written-out adversary update
def _adversaries(k: int) -> list[torch.nn.Sequential]:
    from cffair.baselines._gan import AdversarialVAE

    out = []
    for seed in range(k):
        torch.manual_seed(seed)
        out.append(AdversarialVAE(4, GANConfig()).adversary)
    return out


def test_packed_adversary_gradients_and_adam_equal_autograd():
    """Each member's weight, bias and z gradients equal autograd's (float32: within 1e-6 of the
    largest entry), and one packed Adam step equals ``torch.optim.Adam``'s on each member."""
    from cffair.baselines._adversary import PackedAdversary

    mods = _adversaries(3)
    packed = PackedAdversary(mods, lr=1e-3)
    gen = torch.Generator().manual_seed(0)
    z = torch.randn(3, 64, 5, generator=gen) * 2
    s = (torch.rand(3, 64, 1, generator=gen) > 0.5).float()
    dz = torch.zeros_like(z)
    losses = packed.gradients(z, s, leak=dz)
    for k, m in enumerate(mods):
        zk = z[k].clone().requires_grad_()
        loss = torch.nn.functional.mse_loss(m(zk), s[k])
        loss.backward()
        assert float(losses[k]) == pytest.approx(float(loss.detach()), rel=1e-6)
        for (gw, gb), lin in zip(packed.member_gradients(k), (l for l in m if isinstance(l, torch.nn.Linear))):
            for mine, ref in ((gw, lin.weight.grad), (gb, lin.bias.grad)):
                assert float((mine - ref).abs().max()) <= 1e-6 * float(ref.abs().max())
        assert float((dz[k] - zk.grad).abs().max()) <= 1e-6 * float(zk.grad.abs().max())
        opt = torch.optim.Adam(m.parameters(), lr=1e-3, fused=True)
        opt.step()
    packed.adam_step()
    copies = _adversaries(3)
    packed.write_to(copies)
    for m, c in zip(mods, copies):
        for p, q in zip(m.parameters(), c.parameters()):
            assert torch.allclose(p, q, rtol=0, atol=1e-7)


@pytest.mark.parametrize("leak", [False, True])
def test_written_adversary_update_trains_like_autograd(data, leak):
    """Stage 1 for 4 epochs (20 then 10 adversary steps per batch) with the written-out update and
    with autograd + torch.optim.Adam: the epoch losses agree within 1e-6 relative (measured: 3e-8
    to 6e-8; the two differ only by float32 rounding, which 4 epochs of 3 batches barely amplify)."""
    frame, spec, enc = data
    hist = {}
    for update in ("written", "autograd"):
        cfg = GANConfig(
            batch_size=64,
            inference_epochs=4,
            inner_steps=10,
            first_epoch_inner_steps=20,
            leak_adversary_grad=leak,
            adversary_update=update,
            seed=0,
        )
        hist[update] = np.array(GANBaseline(cfg).fit_inference(frame, enc).history_["inference"])
    np.testing.assert_allclose(hist["written"], hist["autograd"], rtol=1e-6)
    with pytest.raises(ValueError, match="adversary_update"):
        GANConfig(adversary_update="fast")
