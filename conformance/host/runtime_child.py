"""Run in a child process by ``check.run_program``: load a program in ExecuTorch's runtime, run
its methods and compare them with eager PyTorch's outputs, print one JSON line per method. A child,
because a malformed program can crash the runtime (a segmentation fault), which must be a result
of the model, not the end of ``cordspec host``.

Usage: ``python -m conformance.host.runtime_child SPEC.json`` where the spec names ``pte``,
``ptd`` (or null), ``io`` (a ``torch.save`` of {method: (inputs, expected outputs)}),
``not_runnable`` ({method: reason}), ``rtol`` and ``atol``.
"""

from __future__ import annotations

import json
import sys

import torch
from executorch.runtime import Runtime

from conformance.host import tensors


def _run(
    program: object,
    name: str,
    inputs: list[torch.Tensor],
    want: list[torch.Tensor],
    rtol: float,
    atol: float,
) -> tuple[bool, str]:
    try:
        loaded = program.load_method(name)  # type: ignore[attr-defined]  # executorch: Any
        if loaded is None:
            raise RuntimeError(f"no method {name!r}")
        got = tensors.outputs(loaded.execute(list(inputs)))
    except Exception as exc:  # the runtime refused the method: a result
        return False, f"{type(exc).__name__}: {exc}"
    if len(got) != len(want):
        return False, f"{len(got)} outputs, eager PyTorch gives {len(want)}"
    if all(torch.allclose(g, w, rtol=rtol, atol=atol) for g, w in zip(got, want, strict=True)):
        return True, "ok"
    worst = max(float((g - w).abs().max()) for g, w in zip(got, want, strict=True))
    return False, f"differs from eager PyTorch by up to {worst:.3g}"


def main(spec_path: str) -> int:
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    io = torch.load(spec["io"])
    try:
        program = Runtime.get().load_program(spec["pte"], data_path=spec["ptd"])
    except Exception as exc:
        print(json.dumps(["*", False, f"load_program failed: {type(exc).__name__}: {exc}"]))
        return 0
    for name, (inputs, want) in io.items():
        if name in spec["not_runnable"]:
            print(json.dumps([name, False, spec["not_runnable"][name]]))
            continue
        ok, detail = _run(program, name, inputs, want, spec["rtol"], spec["atol"])
        print(json.dumps([name, ok, detail]), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
