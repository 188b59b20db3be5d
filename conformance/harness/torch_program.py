"""A real ``torch.export`` program for the copy hook's checks (HOOK-COPY-5), where torch is
importable: a backend's own copy (CUDA's low-memory deep copy, tensors memoized) is then judged on
the program it is written for, with its graph module, its signature's specs and its tensor
mappings, not only on a plain-Python stand-in."""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

__all__ = ["NO_TORCH", "exported_program", "program_shape", "torch_missing"]

NO_TORCH = (
    "torch is not importable here, so no torch.export program can be made (HOOK-COPY-5 is "
    "judged on the plain-Python stand-in)"
)


def torch_missing() -> bool:
    """Whether torch cannot be imported here."""
    return importlib.util.find_spec("torch") is None


def exported_program() -> Any:
    """``torch.export.export`` of a small module with a parameter, a buffer and a constant."""
    torch: Any = importlib.import_module("torch")

    class Small(torch.nn.Module):  # type: ignore[misc]  # torch's own base class, untyped here
        def __init__(self) -> None:
            super().__init__()
            self.linear = torch.nn.Linear(4, 2)
            self.register_buffer("scale", torch.ones(2))
            self.offset = torch.tensor([0.5, -0.5])  # a constant tensor, lifted by export

        def forward(self, x: Any) -> Any:
            return self.linear(x) * self.scale + self.offset

    return torch.export.export(Small(), (torch.randn(1, 4),))


def program_shape(program: Any) -> tuple[object, ...]:
    """What a copy must keep independent of the original, as plain values: the graph's nodes,
    the signature's input and output specs, the keys of ``state_dict`` and ``constants``."""
    return (
        [(n.op, str(n.target), [str(a) for a in n.args]) for n in program.graph_module.graph.nodes],
        [str(s) for s in program.graph_signature.input_specs],
        [str(s) for s in program.graph_signature.output_specs],
        sorted(program.state_dict),
        sorted(program.constants),
    )
