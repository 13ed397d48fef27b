"""The baselines of Table 1 (paper section 6.4) and cheap alternatives a user would try.

Every baseline has ``fit(...)`` and ``predict_score(X_encoded) -> np.ndarray`` (P(y = 1) for a
binary target, a real score otherwise), so one evaluation (:func:`cffair.scores.evaluate`)
scores them all on the same CNF counterfactual pairs. The generators also export their own
counterfactuals as a :class:`~cffair.causal.CounterfactualSet`
(``meta["generator"]`` is ``"gan"`` or ``"dcevae"``), e.g. for appendix A.

================================  ==========================================================
:class:`AugmentedMLP`             "CNF": MLP(100, 50) on factual + counterfactual rows
:class:`GANBaseline`              Grari et al. (2023), adversarial counterfactual inference
:class:`DCEVAEBaseline`           Kim et al. (2021) DCEVAE + MLP(100, 50) on its counterfactuals
:class:`UnawareMLP`               MLP(100, 50) without the sensitive attribute
:class:`ResidualMLP`              Kusner et al. (2017) level 3 (residuals of descendants)
:class:`PlugInCF`                 Zhou et al. (2024) plug-in counterfactual fairness (PCF)
================================  ==========================================================
"""

from __future__ import annotations

from cffair.baselines._augmented import AugmentedMLP, MLPConfig, pair_labels, train_mlp
from cffair.baselines._dcevae import DCEVAE, DCEVAEBaseline, DCEVAEConfig, kl_diag_std_normal
from cffair.baselines._gan import PAPER_BATCH_SIZE, GANBaseline, GANConfig, mmd_rbf, paper_config
from cffair.baselines._gan_stacked import fit_stacked
from cffair.baselines._simple import PlugInCF, ResidualMLP, UnawareMLP

__all__ = [
    "DCEVAE",
    "PAPER_BATCH_SIZE",
    "AugmentedMLP",
    "DCEVAEBaseline",
    "DCEVAEConfig",
    "GANBaseline",
    "GANConfig",
    "MLPConfig",
    "PlugInCF",
    "ResidualMLP",
    "UnawareMLP",
    "fit_stacked",
    "kl_diag_std_normal",
    "mmd_rbf",
    "pair_labels",
    "paper_config",
    "train_mlp",
]
