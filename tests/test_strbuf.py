"""The bytes of an ASCII str read in place (offloader.core.strbuf), and the writes that use them."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from offloader.core.strbuf import ascii_view
from workspaces._confined import ConfinedTree


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_the_view_of_an_ascii_str_is_its_encoding(text: str) -> None:
    view = ascii_view(text)
    assert view is not None
    assert view.tobytes() == text.encode("ascii")


def test_the_view_is_read_only() -> None:
    view = ascii_view("x" * 64)
    assert view is not None and view.readonly
    with pytest.raises(TypeError):
        view[0] = 0  # type: ignore[index]


def test_the_view_keeps_the_str_alive() -> None:
    text = "".join(["kept ", "alive ", str(12345)]) * 1000  # built at run time, referenced only here
    expected = text.encode()
    view = ascii_view(text)
    del text
    gc.collect()
    filler = ["y" * 6000 for _ in range(100)]  # would reuse the memory of a freed str
    assert view is not None and view.tobytes() == expected
    del filler


@pytest.mark.parametrize(
    "text",
    ["caf\u00e9", "\u65e5\u672c", "emoji \U0001f600", "lone \udc80 surrogate"],
    ids=["latin-1", "CJK", "astral", "surrogate"],
)
def test_a_str_beyond_ascii_has_no_view(text: str) -> None:
    assert ascii_view(text) is None


def test_a_str_subclass_has_no_view() -> None:
    class Name(str):
        pass

    assert ascii_view(Name("plain ascii")) is None


@pytest.mark.parametrize(
    "text",
    ["ascii " * 300_000, "caf\u00e9 " * 300_000, "lone \udc80 surrogate " * 1000],
    ids=["ascii (in place)", "beyond ascii (encoded in pieces)", "surrogate (surrogatepass)"],
)
def test_a_str_is_written_as_its_utf8(tmp_path: Path, text: str) -> None:
    tree = ConfinedTree(str(tmp_path))
    tree.open()
    try:
        assert tree.write("out.txt", text, exclusive=True)
    finally:
        tree.close()
    assert (tmp_path / "out.txt").read_bytes() == text.encode("utf-8", "surrogatepass")
