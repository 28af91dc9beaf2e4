"""The conformance suite every workspace backend must pass, shipped with the package.

A backend author subclasses :class:`WorkspaceSuite` in a test module and gives it
a ``workspace`` fixture that yields an opened, empty workspace for each test::

    import pytest
    from workspaces.testing import WorkspaceSuite

    class TestMyWorkspace(WorkspaceSuite):
        @pytest.fixture
        async def workspace(self, tmp_path):
            async with MyWorkspace(tmp_path / "ws") as ws:
                yield ws

The tests are async and run through anyio's pytest plugin (on asyncio, and
once on trio). They check the on-disk layout, naming, the offload calls, Read,
Grep and Glob, the primitives' contract (exclusive and ranged I/O, atomic
appends), confinement, retention and the grep prefilter. Optional hooks a
subclass may override: :meth:`~SafetyTests.plant_symlink` (backends whose
storage has symlinks) and the ``full_workspace`` fixture (a workspace on a
nearly full disk); without them those tests are skipped with the reason.
"""

from __future__ import annotations

from ._files import FileToolTests
from ._offload import OffloadTests
from ._primitives import PrimitiveTests
from ._retention import RetentionTests
from ._safety import SafetyTests

__all__ = ["FileToolTests", "OffloadTests", "PrimitiveTests", "RetentionTests", "SafetyTests", "WorkspaceSuite"]


class WorkspaceSuite(OffloadTests, FileToolTests, PrimitiveTests, SafetyTests, RetentionTests):
    """Every conformance test; subclass it and provide a ``workspace`` fixture."""
