"""cffair._support.utils.torch_cpu_setup: one thread, and the process's floating-point state left alone."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

# In a fresh process, so that what other test modules set up does not leak in.
PROBE = """
import torch
from cffair._support.utils import torch_cpu_setup
tiny = torch.tensor([1e-39], dtype=torch.float32)  # a float32 denormal (below 1.18e-38)
before = float(tiny * 2.0)
torch_cpu_setup()
print(torch.get_num_threads(), before, float(tiny * 2.0))
"""


def test_torch_cpu_setup_uses_one_thread_and_keeps_denormals():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    threads, before, after = out.stdout.split()
    assert int(threads) == 1
    assert float(before) == pytest.approx(2e-39, rel=1e-3)  # the CPU computes with denormals...
    assert float(after) == float(before)  # ...and still does after the setup: no process-wide flush to zero


FLUSH_PROBE = """
import numpy as np, torch
from cffair._support.devices import _flushing_denormals
from cffair.learners._training import LTNLearner
from cffair.logic._axioms import KnowledgeBase
rng = np.random.default_rng(0)
X = rng.normal(size=(64, 3)).astype(np.float32); y = (X[:, 0] > 0).astype(float)
preset = {preset}
if preset:
    torch.set_flush_denormal(True)
seen = []
L = LTNLearner("binary", "acc", pretrain_epochs=2, progress=False).fit(X, y)
L.train_stage(L.kb_, 3, "probe", on_epoch=lambda epoch, sats: seen.append(_flushing_denormals()))
print(seen, _flushing_denormals())
"""


@pytest.mark.parametrize("preset", [False, True])
def test_the_learner_flushes_denormals_only_while_it_trains(preset):
    """Inside every training step denormals are flushed to zero; after the stage the process's own
    setting is back, whichever it was (in a fresh process, so nothing leaks between tests)."""
    code = FLUSH_PROBE.format(preset=preset)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["[True,", "True,", "True]", str(preset)]


def test_the_baselines_train_with_denormals_flushed_and_restore_the_setting(monkeypatch):
    """The MLP baselines' loop (train_mlp) runs every step with denormals flushed, and the process's
    setting is back afterwards; the GAN's and DCEVAE's training methods are wrapped the same way."""
    from cffair._support.devices import _flushing_denormals
    from cffair.baselines import _augmented as augmented
    from cffair.baselines import _dcevae as dcevae
    from cffair.baselines import _gan as gan

    seen: list[bool] = []
    real = augmented.make_mlp

    def probed(*args, **kwargs):
        net = real(*args, **kwargs)
        net.register_forward_hook(lambda *_: seen.append(_flushing_denormals()))
        return net

    monkeypatch.setattr(augmented, "make_mlp", probed)
    X = np.random.default_rng(0).normal(size=(32, 3)).astype(np.float32)
    before = _flushing_denormals()
    augmented.train_mlp(X, (X[:, 0] > 0).astype(np.float32), "binary", augmented.MLPConfig(epochs=3))
    assert seen and all(seen), seen
    assert _flushing_denormals() == before
    for method in (gan.GANBaseline.fit_inference, gan.GANBaseline.fit_predictor, dcevae.DCEVAE.fit):
        assert getattr(method, "__wrapped__", None) is not None, f"{method.__qualname__} does not flush denormals"
