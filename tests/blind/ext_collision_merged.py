"""Breaks: NDS-EXT-6
Profile: core
Bug: a shard whose computed tag already exists is merged into that tag's entries instead of
raising "external data tag collision".
"""

from __future__ import annotations

from conformance.api import Implementation
from reference import named_data

from . import implementation


class NamedDataStore(named_data.NamedDataStore):
    def _install(self, tag, shard, keys, external, tags):
        if tag in external:
            external[tag] = {**external[tag], **{key: shard[key] for key in keys}}
            tags.update(dict.fromkeys(keys, tag))
            return
        super()._install(tag, shard, keys, external, tags)


IMPLEMENTATION = implementation(__name__, NamedDataStore=NamedDataStore)


def scenario(impl: Implementation) -> str | None:
    import hashlib

    taken = "p_" + hashlib.sha256(b"k").hexdigest()  # the tag the shard of ["k"] computes
    store = impl.NamedDataStore()
    store.add_named_data("other", b"o", external_tag=taken)
    store.add_named_data("k", b"kk")
    try:
        store.externalize_pte_data(100, "p")
    except ValueError as exc:
        if "external data tag collision" not in str(exc):
            return f"a tag collision raised {str(exc)!r}"
        if "k" not in store.get_named_data_store_output().pte_data:
            return "a refused externalize changed the store"
        return None
    return f"the shard of ['k'] was merged into the existing tag {taken!r}"
