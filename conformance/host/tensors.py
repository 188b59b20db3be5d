"""The tensors of a method's result, for the host check and its runtime child alike."""

from __future__ import annotations

import torch


def outputs(value: object) -> list[torch.Tensor]:
    """The tensors in ``value`` (a tensor, or tuples and lists of them, nested), in order."""
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in outputs(v)]
    return []
