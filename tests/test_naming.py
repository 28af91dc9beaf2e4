"""Ids become safe, stable, collision-free file-name components."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from offloader.core.naming import is_plain_name, safe_name


def test_plain_ids_are_used_as_given() -> None:
    for plain in ["call_1", "toolu_01ABC", "a.b-c", "x" * 64]:
        assert safe_name(plain) == plain


@pytest.mark.parametrize(
    "hostile",
    [
        "../../etc/passwd",
        "/abs",
        ".",
        "..",
        ".hidden",
        "a/b",
        "a\\b",
        "a\x00b",
        "tab\tid",
        "ключ",
        "x" * 65,
        "x" * 2048,
    ],
)
def test_other_ids_become_slug_and_hash(hostile: str) -> None:
    name = safe_name(hostile)
    assert name != hostile
    assert is_plain_name(name.rsplit("-", 1)[0] or "x") or name.startswith("id-")
    assert "/" not in name and "\\" not in name and "\x00" not in name and not name.startswith(".")
    assert len(name) <= 60


def test_encoding_is_stable() -> None:
    assert safe_name("a/b") == safe_name("a/b")


def test_a_plain_id_shaped_like_an_encoded_one_cannot_collide_with_it() -> None:
    encoded = safe_name("a/b")
    assert safe_name(encoded) != encoded


def test_empty_and_non_string_ids_are_rejected() -> None:
    with pytest.raises(ValueError):
        safe_name("")
    with pytest.raises(TypeError):
        safe_name(42)  # type: ignore[arg-type]


@given(st.text(min_size=1, max_size=300), st.text(min_size=1, max_size=300))
def test_distinct_ids_never_share_a_name(a: str, b: str) -> None:
    if a != b:
        assert safe_name(a) != safe_name(b)


@given(st.text(min_size=1, max_size=3000))
def test_every_name_is_a_single_safe_component(value: str) -> None:
    name = safe_name(value)
    assert name not in {".", ".."} and "/" not in name and "\x00" not in name
    assert len(name) <= 64 and name.isascii()
