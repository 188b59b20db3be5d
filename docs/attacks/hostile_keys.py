"""Keys a store accepts but cannot keep (spec NDS-KEY-7, NDS-EXT-9).

1. A key holding a lone surrogate, as ``os.fsdecode`` gives for a file name that is not UTF-8: it
   must be refused by ``add_named_data`` (ValueError naming it), or, if accepted, survive
   ``externalize_pte_data``; accepted and then ``UnicodeEncodeError`` is the defect.
2. Keys holding NUL: a shard of ``["a\\0b"]`` and a later one of ``["a", "b"]`` are two shards;
   one tag for both (a false "external data tag collision") is the defect.

Exit status 0 when every accepted key survives and no two shards share a tag; 1 with a message for
each defect found. Run from anywhere: ``python docs/attacks/hostile_keys.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from _common import report

from reference import NamedDataStore


def surrogate_key() -> str | None:
    key = os.fsdecode(b"weights-\xff.bin")  # a name that is not UTF-8: '\udcff' in it
    store = NamedDataStore()
    try:
        store.add_named_data(key, b"weights")
    except ValueError as exc:
        print(f"  surrogate key: refused at add ({exc})")
        return None
    try:
        store.externalize_pte_data(1 << 20, "constants")
        store.get_named_data_store_output()
    except UnicodeEncodeError as exc:
        return f"the key {key!r} was accepted by add, then externalize raised {exc!r}"
    print("  surrogate key: accepted and externalized")
    return None


def nul_keys() -> str | None:
    store = NamedDataStore()
    store.add_named_data("a\0b", b"one shard")
    store.externalize_pte_data(1 << 20, "constants")
    store.add_named_data("a", b"another")
    store.add_named_data("b", b"shard")
    try:
        store.externalize_pte_data(1 << 20, "constants")
    except ValueError as exc:
        return f'the shards ["a\\0b"] and ["a", "b"] computed one tag: {exc}'
    tags = list(store.get_named_data_store_output().external_data)
    if len(tags) != 2:
        return f"two shards are under {len(tags)} tag(s): {tags}"
    print(f"  NUL keys: two shards, two tags ({', '.join(t[:18] + '...' for t in tags)})")
    return None


def main() -> int:
    defects = [found for found in (surrogate_key(), nul_keys()) if found]
    return report("hostile_keys", defects, "every accepted key survives; no two shards share a tag")


if __name__ == "__main__":
    sys.exit(main())
