"""NamedDataStore.externalize_pte_data: moving inline entries to external shards (spec 4.7)."""

from __future__ import annotations

import hashlib
import re

import pytest

from conformance.api import FileBackedData, Implementation, NamedDataStore
from conformance.harness.checks import check
from conformance.harness.helpers import Blobs, content, state
from conformance.harness.measure import READ_LIMIT, rchar

clause = pytest.mark.clause
relies_on = pytest.mark.relies_on
requires_externalize = pytest.mark.requires("externalize")  # on each class: it comes along

Blob = bytes | FileBackedData
LAYOUT = ("f32", (1,), (0,))


def tag_of(prefix: str, keys: list[str]) -> str:
    """NDS-EXT-4, computed here: the prefix and the SHA-256 of the sorted keys joined by NUL, each
    NUL of a key written as the byte FF (NDS-EXT-9; keys without NUL are joined as they are)."""
    joined = b"\0".join(key.encode("utf-8").replace(b"\0", b"\xff") for key in sorted(keys))
    return f"{prefix}_{hashlib.sha256(joined).hexdigest()}"


def externalize(store: NamedDataStore, max_data_bytes: object, tag_prefix: object) -> None:
    store.externalize_pte_data(max_data_bytes, tag_prefix)  # type: ignore[attr-defined]  # optional: Capability.EXTERNALIZE


def check_refused(
    store: NamedDataStore, max_data_bytes: object, tag_prefix: object, match: str | None = None
) -> None:
    """Externalizing raises ValueError (matching ``match``) and leaves the store as it was."""
    before = state(store)
    with pytest.raises(ValueError, match=match):
        externalize(store, max_data_bytes, tag_prefix)
    assert state(store) == before


def check_collision_refused(
    impl: Implementation, inline: list[tuple[str, bytes, int]], colliding: str, max_data_bytes: int
) -> None:
    """A store of ``inline`` entries (key, data, alignment) that externalizing at
    ``max_data_bytes`` shards apart, and existing external data already under the tag the shard
    of ``colliding`` would get: refused as a tag collision, the store unchanged (NDS-EXT-6)."""
    store = impl.NamedDataStore()
    store.add_named_data("external", b"ext", 8, tag_of("constants", [colliding]))
    for entry in inline:
        store.add_named_data(*entry)
    check_refused(store, max_data_bytes, "constants", match="external data tag collision")


def shards(store: NamedDataStore) -> dict[str, list[tuple[str, bytes, int, object]]]:
    """Each tag's entries in order, with the contents of their buffers."""
    out = store.get_named_data_store_output()
    return {
        tag: [
            (k, content(out.buffers[e.buffer_index]), e.alignment, e.tensor_layout)
            for k, e in entries.items()
        ]
        for tag, entries in out.external_data.items()
    }


def mixed_store(impl: Implementation, blobs: Blobs) -> NamedDataStore:
    """Existing external data, inline bytes and files, and two keys sharing a buffer."""
    store = impl.NamedDataStore()
    store.add_named_data("external", b"ext", 8, "existing")
    store.add_named_data("inline_b", b"bbb", 16, None, LAYOUT)
    store.add_named_data("inline_a", blobs.moved(b"aaaa"), 4)
    store.add_named_data("alias_b", b"bbb", 32)
    store.add_named_data("external_2", b"ext 2", 1, "existing")
    return store


@requires_externalize
class TestArguments:
    @clause("NDS-EXT-1")
    @pytest.mark.parametrize(
        "cap",
        [True, False, 0, -1, 1.5, 10.0, "10", None],
        ids=["True", "False", "zero", "negative", "float", "integral-float", "str", "None"],
    )
    def test_invalid_cap(self, impl: Implementation, blobs: Blobs, cap: object) -> None:
        store = mixed_store(impl, blobs)
        check_refused(store, cap, "constants")

    @clause("NDS-EXT-1")
    @pytest.mark.parametrize("cap", [True, False], ids=["True", "False"])
    def test_bool_cap_where_its_int_value_would_fit(
        self, impl: Implementation, blobs: Blobs, cap: bool
    ) -> None:
        # Blobs of at most one byte: a cap read as int(True) == 1 fits them, so only the type
        # check can reject it (a store of larger blobs fails "exceeds the cap" either way).
        store = impl.NamedDataStore()
        store.add_named_data("one", b"1")
        store.add_named_data("empty", blobs.moved(b""))
        check_refused(store, cap, "constants")

    @clause("NDS-EXT-1")
    def test_empty_prefix(self, impl: Implementation, blobs: Blobs) -> None:
        store = mixed_store(impl, blobs)
        check_refused(store, 100, "")

    @clause("NDS-EXT-8")
    @pytest.mark.parametrize(
        "prefix", [None, 5, b"constants", ("constants",)], ids=["None", "int", "bytes", "tuple"]
    )
    def test_prefix_must_be_str(self, impl: Implementation, blobs: Blobs, prefix: object) -> None:
        store = mixed_store(impl, blobs)
        check_refused(store, 100, prefix, match=re.escape(repr(prefix)))


@requires_externalize
class TestExternalize:
    @clause("NDS-EXT-2")
    def test_inline_entries_move_unchanged(self, impl: Implementation, blobs: Blobs) -> None:
        store = mixed_store(impl, blobs)
        before = state(store)
        externalize(store, 100, "constants")
        after = state(store)
        assert after.buffers == before.buffers
        assert after.pte_data == ()
        existing = dict(before.external_data)["existing"]
        assert dict(after.external_data)["existing"] == existing
        moved = [
            entry for tag, entries in after.external_data if tag != "existing" for entry in entries
        ]
        assert sorted(moved) == sorted(before.pte_data)
        tags = {tag for tag, entries in after.external_data for entry in entries if entry in moved}
        assert len(tags) == 1

    @clause("NDS-EXT-3")
    # the aliases share one buffer to be counted once, and the inline entries all leave pte_data
    @relies_on("NDS-DEDUP-1", "NDS-EXT-2")
    def test_a_shared_buffer_is_counted_once(self, impl: Implementation) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("key_a", b"aaaaaa", 16, None, LAYOUT)
        store.add_named_data("key_a_alias", b"aaaaaa", 32, None, LAYOUT)
        store.add_named_data("key_b", b"bbbb", 16, None, LAYOUT)
        before = state(store)
        externalize(store, 10, "constants")  # 6 + 4 fits; 6 + 6 + 4 would not
        after = state(store)
        assert (after.buffers, after.pte_data) == (before.buffers, ())
        assert len(after.external_data) == 1
        assert sorted(after.external_data[0][1]) == sorted(before.pte_data)

    @clause("NDS-EXT-3")
    def test_groups_are_packed_greedily_in_key_order(self, impl: Implementation) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("c", b"333", 1)  # 3 bytes, group ("c",)
        store.add_named_data("m", b"xxxx", 2)  # 4 bytes, group ("b", "m")
        store.add_named_data("bb", b"666666", 4)  # 6 bytes, group ("bb",)
        store.add_named_data("a", b"yyyy", 8)  # 4 bytes, group ("a",)
        store.add_named_data("b", b"xxxx", 16)
        externalize(store, 8, "constants")
        # Groups in order: (a) 4, (b, m) 4 -> 8; (bb) 6 would make 14: new shard;
        # (c) 3 would make 9: new shard. Best-fit packing would put c with bb.
        assert shards(store) == {
            tag_of("constants", ["a", "b", "m"]): [
                ("a", b"yyyy", 8, None),
                ("b", b"xxxx", 16, None),
                ("m", b"xxxx", 2, None),
            ],
            tag_of("constants", ["bb"]): [("bb", b"666666", 4, None)],
            tag_of("constants", ["c"]): [("c", b"333", 1, None)],
        }

    @clause("NDS-EXT-3")
    def test_result_does_not_depend_on_insertion_order(self, impl: Implementation) -> None:
        data = {
            "key_a": (b"a" * 6, 16),
            "key_a_alias": (b"a" * 6, 32),
            "key_b": (b"b" * 4, 32),
            "key_c": (b"c" * 5, 64),
        }

        def run(order: list[str]) -> dict[str, list[tuple[str, bytes, int, object]]]:
            store = impl.NamedDataStore()
            for key in order:
                store.add_named_data(key, *data[key])
            externalize(store, 10, "constants")
            return shards(store)

        forward = run(["key_a", "key_a_alias", "key_b", "key_c"])
        assert forward == run(["key_c", "key_b", "key_a_alias", "key_a"])
        assert forward == run(["key_b", "key_a_alias", "key_c", "key_a"])
        # (key_a, key_a_alias) 6 + (key_b) 4 fill a 10-byte shard; (key_c) starts the next.
        assert forward == {
            tag_of("constants", ["key_a", "key_a_alias", "key_b"]): [
                ("key_a", b"a" * 6, 16, None),
                ("key_a_alias", b"a" * 6, 32, None),
                ("key_b", b"b" * 4, 32, None),
            ],
            tag_of("constants", ["key_c"]): [("key_c", b"c" * 5, 64, None)],
        }

    @clause("NDS-EXT-3", "NDS-EXT-4")
    def test_shards_follow_existing_tags_in_packing_order(self, impl: Implementation) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("z_existing", b"existing", 1, "existing")
        for key, data in [("c", b"333"), ("m", b"xxxx"), ("bb", b"666666"), ("a", b"yyyy")]:
            store.add_named_data(key, data)
        store.add_named_data("b", b"xxxx")
        externalize(store, 8, "constants")
        packed = [tag_of("constants", keys) for keys in (["a", "b", "m"], ["bb"], ["c"])]
        assert packed != sorted(packed)  # the order of the tags' hashes is another order
        tags = list(store.get_named_data_store_output().external_data)
        assert tags == ["existing", *packed]

    @clause("NDS-EXT-4")
    def test_tags_and_entry_order(self, impl: Implementation, blobs: Blobs) -> None:
        keys = ["zeta", "Alpha", "ключ", "a\u00e9", "a\x01b"]  # a NUL: NDS-EXT-9
        store = impl.NamedDataStore()
        for i, key in enumerate(keys):
            store.add_named_data(key, f"data {i}".encode(), 1)
        store.add_named_data("\u0451-last", blobs.moved(b"x" * 20))  # sorts after Cyrillic "к"
        externalize(store, 30, "my_prefix")  # the five 6-byte blobs fill the first shard
        found = {tag: [k for k, *_ in entries] for tag, entries in shards(store).items()}
        assert found == {
            tag_of("my_prefix", keys): sorted(keys),
            tag_of("my_prefix", ["\u0451-last"]): ["\u0451-last"],
        }

    @clause("NDS-EXT-4")
    def test_entries_sorted_across_groups(self, impl: Implementation) -> None:
        """Keys sharing a buffer pack as one group, but a shard lists its entries in sorted key
        order, not group by group: ``aa`` sorts between ``a`` and ``c`` of another group."""
        store = impl.NamedDataStore()
        for key, data in [("c", b"XX"), ("b", b"YY"), ("a", b"XX"), ("ab", b"ZZ"), ("aa", b"YY")]:
            store.add_named_data(key, data)
        externalize(store, 1 << 20, "shard")
        found = {tag: [k for k, *_ in entries] for tag, entries in shards(store).items()}
        keys = ["a", "aa", "ab", "b", "c"]
        assert found == {tag_of("shard", keys): keys}

    @clause("NDS-EXT-9")
    @relies_on("NDS-EXT-2", "NDS-EXT-7")
    @pytest.mark.parametrize(
        ("first", "second"),
        [(["a\0b"], ["a", "b"]), (["a", "b"], ["a\0b"]), (["\0a"], ["", "a"])],
        ids=["joined-first", "joined-second", "empty-key"],
    )
    def test_keys_holding_nul_get_a_tag_of_their_own(
        self, impl: Implementation, first: list[str], second: list[str]
    ) -> None:
        """Two shards whose keys, joined by NUL as they are, are the same bytes: not a
        collision, each under the tag of its own keys."""
        store = impl.NamedDataStore()
        for externalized in (first, second):
            for i, key in enumerate(externalized):
                store.add_named_data(key, f"{key!r} {i}".encode(), 1)
            externalize(store, 1 << 20, "constants")
        found = {tag: sorted(k for k, *_ in entries) for tag, entries in shards(store).items()}
        assert found == {
            tag_of("constants", first): sorted(first),
            tag_of("constants", second): sorted(second),
        }

    @clause("NDS-EXT-5")
    def test_oversize_buffer_is_rejected_atomically(
        self, impl: Implementation, blobs: Blobs
    ) -> None:
        store = impl.NamedDataStore()
        store.add_named_data("external", b"ext", 8, "existing")
        store.add_named_data("key_a", b"aaaa", 16)
        store.add_named_data("key_z", blobs.moved(b"z" * 11), 32)  # last in key order
        check_refused(store, 10, "constants", match="exceeds external data shard cap")

    @clause("NDS-EXT-6")
    def test_tag_collision_is_rejected_atomically(self, impl: Implementation) -> None:
        inline = [("inline", b"inline", 16), ("other", b"other data", 4)]
        check_collision_refused(impl, inline, "inline", 10)

    @clause("NDS-EXT-6")
    def test_collision_of_a_later_shard_is_rejected_atomically(self, impl: Implementation) -> None:
        # The colliding shard comes second: the first one is tagged (and, in a store that moves
        # shards as it goes, moved) before the collision is found.
        inline = [("first", b"first!", 16), ("second", b"second data", 4)]
        check_collision_refused(impl, inline, "second", 11)

    @clause("NDS-EXT-7")
    def test_again_changes_nothing(self, impl: Implementation, blobs: Blobs) -> None:
        store = mixed_store(impl, blobs)
        externalize(store, 5, "constants")
        first = state(store)
        externalize(store, 5, "constants")
        assert state(store) == first
        assert [tag for tag, _ in first.external_data].count("existing") == 1
        assert len(first.external_data) == 3

    @clause("NDS-EXT-2", "NDS-EXT-3", "NDS-EXT-4")
    # adding the file reads its prefix only (an unmatched fingerprint), seen by identity after
    @relies_on("FBD-READ-1", "NDS-DEDUP-3", "NDS-OUT-2")
    def test_a_large_file_is_not_read(self, impl: Implementation, blobs: Blobs) -> None:
        size = 1_174_405_120
        path = blobs.sparse(size)  # a hole: nothing is written, and the test must read nothing
        largest = blobs.wrap(path, cleanup=False)
        store = impl.NamedDataStore()
        store.add_named_data("small", b"small", 1, "existing")
        start = rchar()
        store.add_named_data("largest", largest, 16)
        externalize(store, 1_500_000_000, "vulkan_constants")
        read = rchar() - start
        assert read < READ_LIMIT, f"{read} bytes read"
        out = store.get_named_data_store_output()
        check(out.pte_data == {}, f"pte_data {dict(out.pte_data)} left", "NDS-EXT-2")
        assert out.buffers[1] is largest
        tag = tag_of("vulkan_constants", ["largest"])
        assert {t: list(entries) for t, entries in out.external_data.items()} == {
            "existing": ["small"],
            tag: ["largest"],
        }
        entry = out.external_data[tag]["largest"]
        assert (entry.buffer_index, entry.alignment, entry.tensor_layout) == (1, 16, None)


@requires_externalize
class TestExternalizeBounds:
    @clause("NDS-EXT-1")
    def test_zero_cap_is_refused_with_nothing_inline(self, impl: Implementation) -> None:
        """A zero cap is refused for itself, not because some buffer exceeds it. Kills a mutmut
        mutant of the reference that accepts zero."""
        store = impl.NamedDataStore()
        store.add_named_data("external", b"data", 1, "model")
        check_refused(store, 0, "constants")

    @clause("NDS-EXT-1")
    def test_empty_prefix_is_refused_with_nothing_inline(self, impl: Implementation) -> None:
        """The arguments are checked whatever the store holds."""
        store = impl.NamedDataStore()
        store.add_named_data("external", b"data", 1, "model")
        check_refused(store, 100, "")

    @clause("NDS-EXT-1", "NDS-EXT-2")
    def test_a_cap_of_one_byte_is_valid(self, impl: Implementation) -> None:
        """The smallest positive cap is accepted. Kills a mutmut mutant that refuses 1."""
        store = impl.NamedDataStore()
        store.add_named_data("a", b"a")
        store.add_named_data("b", b"b")
        store.externalize_pte_data(1, "constants")  # type: ignore[attr-defined]  # optional: Capability.EXTERNALIZE
        out = store.get_named_data_store_output()
        check(dict(out.pte_data) == {}, f"pte_data {dict(out.pte_data)} left", "NDS-EXT-2")
        assert sorted(len(entries) for entries in out.external_data.values()) == [1, 1]

    @clause("NDS-EXT-3")
    def test_a_new_shard_starts_empty(self, impl: Implementation) -> None:
        """After a group starts a new shard, groups that fill that shard exactly stay in it.
        Kills a mutmut mutant that counts a byte too many in each new shard."""
        store = impl.NamedDataStore()
        store.add_named_data("a", b"A" * 10)
        store.add_named_data("b", b"B" * 6)
        store.add_named_data("c", b"C" * 4)
        store.externalize_pte_data(10, "constants")  # type: ignore[attr-defined]  # optional: Capability.EXTERNALIZE
        out = store.get_named_data_store_output()
        assert sorted(sorted(entries) for entries in out.external_data.values()) == [
            ["a"],
            ["b", "c"],
        ]
