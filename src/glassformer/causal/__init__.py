"""Causal methods on any model with hook points (nn/hooks.py): activation patching, attribution
patching, path patching, direct logit attribution and head detectors, and
the same reaching one expert of a mixture of experts (experts.py). This package sits between
the model and the views; it reads the model only through `hook_points()` and `run_with_hooks`
(and the final norm and head for the logit direction), so every kind that declares the hooks works."""

from glassformer.causal.detectors import AblationCheck, ablation_check, head_scores, pattern, repeated_tokens
from glassformer.causal.experts import ablate_expert, expert_ablation, patch_expert
from glassformer.causal.logit_attribution import LogitAttribution, logit_attribution
from glassformer.causal.patching import (
    Agreement,
    PatchGrid,
    activation_patching,
    agreement,
    attribution_patching,
    logit_diff,
    path_patching,
    token_loss,
    token_prob,
)
from glassformer.causal.tokens import to_str_tokens, to_tokens

__all__ = [
    "AblationCheck",
    "Agreement",
    "LogitAttribution",
    "PatchGrid",
    "ablate_expert",
    "ablation_check",
    "activation_patching",
    "agreement",
    "attribution_patching",
    "expert_ablation",
    "head_scores",
    "logit_attribution",
    "logit_diff",
    "patch_expert",
    "path_patching",
    "pattern",
    "repeated_tokens",
    "to_str_tokens",
    "to_tokens",
    "token_loss",
    "token_prob",
]
