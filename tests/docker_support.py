"""Test images and containers for the Docker backend, built locally (no registry).

The images are imported from a tar of a tiny root filesystem holding the
host's static busybox (``/bin/busybox`` from Debian's ``busybox-static``) and
one symlink per applet, so they build in a fraction of a second, offline.
An image that already exists is reused. Containers made here carry the label
``offloader-test`` so leftovers of a killed run can be swept.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import io
import os
import subprocess
import tarfile
from typing import Any

BUSYBOX = "/bin/busybox"
LABEL = "offloader-test"

#: Every applet (the normal test image).
FULL = "full"
#: Everything except ``find`` and ``grep`` (the "image lacks a tool" case).
NO_FIND_GREP = "no-find-grep"

_VARIANTS: dict[str, frozenset[str]] = {FULL: frozenset(), NO_FIND_GREP: frozenset({"find", "grep"})}


def engine_client() -> Any | None:
    """A docker client whose engine answers, or None."""
    try:
        import docker

        client = docker.from_env(timeout=30)
        client.ping()
        return client
    except Exception:
        return None


def image_tag(variant: str = FULL) -> str:
    """The tag of a test image; it encodes the busybox binary's hash so an upgrade rebuilds it."""
    with open(BUSYBOX, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:12]
    return f"offloader-test/busybox-{variant}:{digest}"


def build_image(client: Any, variant: str = FULL) -> str:
    """Build (or reuse) the busybox test image ``variant``; return its tag."""
    import docker.errors

    tag = image_tag(variant)
    try:
        client.images.get(tag)
        return tag
    except docker.errors.ImageNotFound:
        pass
    if not os.path.exists(BUSYBOX):
        raise RuntimeError(f"{BUSYBOX} is missing: install Debian's busybox-static")
    applets = subprocess.run([BUSYBOX, "--list"], capture_output=True, text=True, check=True).stdout.split()
    leave_out = _VARIANTS[variant]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for folder, mode in (("bin", 0o755), ("etc", 0o755), ("tmp", 0o1777), ("root", 0o700)):
            info = tarfile.TarInfo(folder)
            info.type, info.mode = tarfile.DIRTYPE, mode
            tar.addfile(info)
        tar.add(BUSYBOX, "bin/busybox")
        for name in applets:
            if name == "busybox" or name in leave_out:
                continue
            link = tarfile.TarInfo(f"bin/{name}")
            link.type, link.linkname = tarfile.SYMTYPE, "busybox"
            tar.addfile(link)
        for name, text in (
            ("etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/tmp:/bin/sh\n"),
            ("etc/group", "root:x:0:\nnogroup:x:65534:\n"),
        ):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    subprocess.run(
        ["docker", "import", "-c", "ENV PATH=/bin", "-c", 'CMD ["/bin/sh"]', "-", tag],
        input=buf.getvalue(),
        check=True,
        capture_output=True,
    )
    return tag


def start_container(client: Any, image: str, **create_kwargs: Any) -> Any:
    """Start a labelled, idle container (``sleep infinity`` under docker-init)."""
    container = client.containers.create(
        image, ["sleep", "infinity"], detach=True, init=True, labels={LABEL: "1"}, **create_kwargs
    )
    container.start()
    return container


def remove_quietly(container: Any) -> None:
    with contextlib.suppress(Exception):
        container.remove(force=True)


def sweep(client: Any) -> None:
    """Remove every container a previous test run left behind."""
    for container in client.containers.list(all=True, filters={"label": LABEL}):
        remove_quietly(container)


class SharedContainer:
    """One container reused by many tests (each test gets its own workdir in it).

    Created on first use and removed when the interpreter exits.
    """

    def __init__(self) -> None:
        self._container: Any = None

    def get(self) -> Any:
        if self._container is None:
            client = engine_client()
            if client is None:
                raise RuntimeError("no Docker engine answers")
            self._container = start_container(client, build_image(client))
            atexit.register(remove_quietly, self._container)
        else:
            self._container.reload()
            if self._container.status != "running":  # a fault test may have stopped it
                remove_quietly(self._container)
                self._container = None
                return self.get()
        return self._container
