"""The model zoo: small models made in code (seeded, no downloads), each exported through
ExecuTorch's real pipeline in one of the ways this layer is used."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.exir import (
    EdgeProgramManager,
    ExecutorchBackendConfig,
    to_edge,
    to_edge_transform_and_lower,
)
from executorch.exir.passes.external_constants_pass import (
    delegate_external_constants_pass_unlifted,
)

from . import backend

__all__ = ["MODELS", "Method", "Model"]

Inputs = tuple[torch.Tensor, ...]


@dataclass(frozen=True)
class Method:
    """One method of a model: the eager module that computes it and an input."""

    module: torch.nn.Module
    inputs: Inputs


@dataclass(frozen=True)
class Model:
    """A model of the zoo: what it covers, how it is made and how it is exported."""

    name: str
    covers: str
    make: Callable[[], dict[str, Method]]
    """The methods, made afresh from a fixed seed (the same weights every time)."""
    lower: Callable[[Mapping[str, Method]], EdgeProgramManager]
    """The edge program, lowered (``torch.export``, ``to_edge``, partitioners)."""
    config: Callable[[], ExecutorchBackendConfig] = ExecutorchBackendConfig
    """The configuration of ``to_executorch``."""
    not_runnable: Mapping[str, str] = field(default_factory=dict)
    """Methods ExecuTorch's runtime cannot run here, and why."""
    file_backed: bool = False
    """Its export must hand a FileBackedData to the output (the file-backed path is taken)."""


class _MLP(torch.nn.Module):  # type: ignore[misc]  # torch is not analysed: Any
    def __init__(self, width: int = 16) -> None:
        super().__init__()
        self.first = torch.nn.Linear(8, width)
        self.second = torch.nn.Linear(width, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.second(torch.relu(self.first(x)))


class _Shared(torch.nn.Module):  # type: ignore[misc]  # torch is not analysed: Any
    """Three layers: two tied (one Parameter), a third with a copy of the same values; and a
    fourth whose weight has the same length and first 32 bytes but differs after them."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Linear(8, 8)
        self.b = torch.nn.Linear(8, 8)
        self.b.weight = self.a.weight
        self.c = torch.nn.Linear(8, 8)
        with torch.no_grad():
            self.c.weight.copy_(self.a.weight)
            self.c.bias.copy_(self.a.bias)
        self.d = torch.nn.Linear(8, 8)
        with torch.no_grad():
            self.d.weight.copy_(self.a.weight)
            self.d.weight[-1] += 1.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c(torch.relu(self.b(torch.relu(self.a(x))))) + self.d(x)


class _FirstLayer(torch.nn.Module):  # type: ignore[misc]  # torch is not analysed: Any
    """A second method over the first layer of another module (the same weights)."""

    def __init__(self, of: _Shared) -> None:
        super().__init__()
        self.of = of

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.of.a(x))


def _seeded(make: Callable[[], dict[str, Method]], seed: int) -> Callable[[], dict[str, Method]]:
    def made() -> dict[str, Method]:
        with torch.random.fork_rng():
            torch.manual_seed(seed)
            return make()

    return made


def _x(rows: int = 2) -> Inputs:
    return (torch.randn(rows, 8),)


def _exported(methods: Mapping[str, Method]) -> dict[str, torch.export.ExportedProgram]:
    return {
        name: torch.export.export(m.module.eval(), m.inputs, strict=True)
        for name, m in methods.items()
    }


def _portable(methods: Mapping[str, Method]) -> EdgeProgramManager:
    return to_edge(_exported(methods))


def _external_constants() -> ExecutorchBackendConfig:
    return ExecutorchBackendConfig(external_constants=True)


def _xnnpack(methods: Mapping[str, Method]) -> EdgeProgramManager:
    return to_edge_transform_and_lower(_exported(methods), partitioner=[XnnpackPartitioner()])


def _xnnpack_external(methods: Mapping[str, Method]) -> EdgeProgramManager:
    tagged = {}
    for name, m in methods.items():
        module = torch.export.export(m.module.eval(), m.inputs, strict=True).module()
        delegate_external_constants_pass_unlifted(module=module, gen_tag_fn=lambda _: "weights")
        tagged[name] = torch.export.export(module, m.inputs, strict=True)
    return to_edge_transform_and_lower(tagged, partitioner=[XnnpackPartitioner()])


def _file_backed(methods: Mapping[str, Method]) -> EdgeProgramManager:
    return to_edge(_exported(methods)).to_backend(
        {
            "blob": backend.partitioner(low_memory=True),
            "blob_bytes": backend.partitioner(low_memory=False),
            "blob_other": backend.partitioner(low_memory=False),
        }
    )


def _mlp() -> dict[str, Method]:
    return {"forward": Method(_MLP(), _x())}


def _shared() -> dict[str, Method]:
    shared = _Shared()
    return {"forward": Method(shared, _x()), "first": Method(_FirstLayer(shared), _x(3))}


def _blob_methods() -> dict[str, Method]:
    mlp, other = _MLP(width=32), _MLP(width=24)
    x = _x()
    return {
        "forward": Method(mlp, x),
        "blob": Method(mlp, x),
        "blob_bytes": Method(mlp, x),
        "blob_other": Method(other, x),
    }


_NO_KERNEL = (
    f"not runnable: ExecuTorch's runtime has no backend {backend.BACKEND_ID} "
    "(cordspec's own, export-side only)"
)

MODELS: tuple[Model, ...] = (
    Model(
        "portable_external",
        "portable ops, constants external (.pte + .ptd)",
        _seeded(_mlp, 1),
        _portable,
        _external_constants,
    ),
    Model(
        "xnnpack_shared",
        "XNNPACK-delegated; weights tied between layers, equal between layers and between two "
        "methods (dedup, merge of the lowered modules' stores), and two weights of one length "
        "and first 32 bytes that differ after them (a fingerprint collision)",
        _seeded(_shared, 2),
        _xnnpack,
    ),
    Model(
        "xnnpack_external_tag",
        "XNNPACK-delegated; named data under an external tag (.ptd 'weights')",
        _seeded(_mlp, 3),
        _xnnpack_external,
    ),
    Model(
        "file_backed",
        f"{backend.BACKEND_ID}: a weights blob handed over as a file (materialize_weights_blob, "
        "load_weights_blob, FileBackedData.move_from) and streamed into the .ptd; the same blob "
        "as bytes from a second method (dedup of a file with bytes), other weights as bytes "
        "from a third (so the .ptd has bytes after the file); a portable forward beside them",
        _seeded(_blob_methods, 4),
        _file_backed,
        not_runnable={"blob": _NO_KERNEL, "blob_bytes": _NO_KERNEL, "blob_other": _NO_KERNEL},
        file_backed=True,
    ),
)
