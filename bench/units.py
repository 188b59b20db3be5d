"""What the driver, the worker and the report share: sizes, the implementations' names, human()."""

from __future__ import annotations

MiB = 1 << 20
GiB = 1 << 30
VARIANTS = ("floor", "reference", "executorch")
LABELS = {"floor": "floor", "reference": "reference", "executorch": "ExecuTorch"}


def human(size: float) -> str:
    """``size`` bytes in the largest binary unit it reaches: "64 MiB", "1.5 GiB", "31.4 KiB"."""
    for unit, scale in (("GiB", GiB), ("MiB", MiB), ("KiB", 1 << 10)):
        if size >= scale:
            value = size / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{size:.0f} B"
