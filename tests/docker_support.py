"""Test images and containers for the Docker backend, built locally (no registry).

The images are imported (``docker import``) from a tar of a tiny root
filesystem (imported through the SDK, no CLI needed): the host's static busybox (``/bin/busybox`` from Debian's
``busybox-static``) with one symlink per applet, or the host's own GNU tools
with their shared libraries. They build in a fraction of a second, offline.
An image that already exists is reused. Containers made here carry the label
``offloader-test`` so leftovers of a killed run are easy to find
(``docker ps -aq --filter label=offloader-test | xargs docker rm -f``).
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import io
import os
import re
import shutil
import subprocess
import tarfile
from typing import Any

BUSYBOX = "/bin/busybox"
LABEL = "offloader-test"

#: Busybox with every applet (the normal test image).
FULL = "busybox"
#: The host's GNU tools (dash, coreutils, findutils, grep, tar) and their libraries.
GNU = "gnu"
#: GNU tools without ``find`` (the "image lacks a tool" case; busybox's shell
#: runs its applets even without their symlinks, so it cannot lack one).
GNU_NO_FIND = "gnu-no-find"

GNU_TOOLS: tuple[str, ...] = ("cat", "mkdir", "realpath", "stat", "dd", "ln", "mv", "rm", "truncate", "tar")
GNU_TOOLS += ("grep", "find", "sleep", "ls", "printf", "flock", "tail", "wc")
#: Bump when the images' contents change (so an old image is not reused).
_IMAGE_REVISION = b"tail-3"


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
    """The tag of a test image; it encodes the source binary's hash so an upgrade rebuilds it."""
    with open(BUSYBOX if variant == FULL else "/bin/sh", "rb") as f:
        digest = hashlib.sha256(f.read() + _IMAGE_REVISION).hexdigest()[:12]
    return f"offloader-test/{variant}:{digest}"


def build_image(client: Any, variant: str = FULL) -> str:
    """Build (or reuse) the busybox test image ``variant``; return its tag."""
    import docker.errors

    tag = image_tag(variant)
    try:
        client.images.get(tag)
        return tag
    except docker.errors.ImageNotFound:
        pass
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for folder, mode in (("bin", 0o755), ("etc", 0o755), ("tmp", 0o1777), ("root", 0o700)):
            info = tarfile.TarInfo(folder)
            info.type, info.mode = tarfile.DIRTYPE, mode
            tar.addfile(info)
        if variant == FULL:
            _add_busybox(tar)
            _add_programs(tar, {"flock": _host_tool("flock")})  # Debian's busybox-static lacks the applet
        else:
            _add_gnu(tar, [t for t in GNU_TOOLS if not (variant == GNU_NO_FIND and t == "find")])
        for name, text in (
            ("etc/passwd", "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/tmp:/bin/sh\n"),
            ("etc/group", "root:x:0:\nnogroup:x:65534:\n"),
        ):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    repository, _, version = tag.rpartition(":")
    client.api.import_image_from_data(
        buf.getvalue(), repository=repository, tag=version, changes=["ENV PATH=/bin", 'CMD ["/bin/sh"]']
    )
    return tag


def _add_busybox(tar: tarfile.TarFile) -> None:
    if not os.path.exists(BUSYBOX):
        raise RuntimeError(f"{BUSYBOX} is missing: install Debian's busybox-static")
    if subprocess.run(["ldd", BUSYBOX], capture_output=True).returncode == 0:
        raise RuntimeError(f"{BUSYBOX} is dynamically linked: install Debian's busybox-static instead of busybox")
    applets = subprocess.run([BUSYBOX, "--list"], capture_output=True, text=True, check=True).stdout.split()
    tar.add(BUSYBOX, "bin/busybox")
    for name in applets:
        if name != "busybox":
            link = tarfile.TarInfo(f"bin/{name}")
            link.type, link.linkname = tarfile.SYMTYPE, "busybox"
            tar.addfile(link)


def _host_tool(tool: str) -> str:
    found = shutil.which(tool)
    if found is None:
        raise RuntimeError(f"the host lacks {tool}")
    return os.path.realpath(found)


def _add_gnu(tar: tarfile.TarFile, tools: list[str]) -> None:
    """Copy host programs (``sh`` is the host's /bin/sh) and every library ``ldd`` names."""
    programs = {"sh": os.path.realpath("/bin/sh")}
    programs.update((tool, _host_tool(tool)) for tool in tools)
    _add_programs(tar, programs)


def _add_programs(tar: tarfile.TarFile, programs: dict[str, str]) -> None:
    libraries: set[str] = set()
    for path in programs.values():
        out = subprocess.run(["ldd", path], capture_output=True, text=True).stdout
        libraries.update(word for word in out.split() if word.startswith("/"))
    for name, path in programs.items():
        tar.add(path, f"bin/{name}")
    folders = {os.path.dirname(lib.lstrip("/")) for lib in libraries}
    for folder in sorted({"/".join(f.split("/")[: i + 1]) for f in folders for i in range(f.count("/") + 1)}):
        if folder:  # readable by every user (an implicit folder would be root-only)
            info = tarfile.TarInfo(folder)
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            tar.addfile(info)
    for lib in sorted(libraries):
        tar.add(os.path.realpath(lib), lib.lstrip("/"))


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
            with contextlib.suppress(Exception):
                self._container.reload()
            if self._container.status != "running":  # a fault test may have stopped it
                remove_quietly(self._container)
                self._container = None
                return self.get()
        return self._container


class RequestLog:
    """Counts the HTTP requests a docker client sends to the engine (wraps ``client.api.request``).

    ``costly`` counts the requests that make the engine enter the container
    (exec start, archive put/get), each ~50-70 ms; exec create/inspect are ~2 ms.
    """

    def __init__(self, client: Any) -> None:
        self.calls: list[tuple[str, str]] = []
        api = client.api
        original = api.request

        def counting(method: str, url: str, *args: Any, **kwargs: Any) -> Any:
            path = re.sub(r"^.*?/v[0-9.]+/", "/", url.split("?", 1)[0])
            self.calls.append((method.upper(), path))
            return original(method, url, *args, **kwargs)

        api.request = counting

    def clear(self) -> None:
        self.calls.clear()

    @property
    def total(self) -> int:
        return len(self.calls)

    @property
    def costly(self) -> int:
        return sum(1 for _, path in self.calls if path.endswith("/start") or path.endswith("/archive"))


class EngineProxy:
    """A unix-socket relay in front of the real engine; ``stop()`` makes the engine vanish.

    Lets a test take the engine away mid-session without stopping the shared
    dockerd: clients built with ``base_url=proxy.url`` lose it on ``stop()``.
    """

    def __init__(self, path: str, engine: str = "/var/run/docker.sock") -> None:
        import socket
        import threading

        self.url = f"unix://{path}"
        self._engine = engine
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(path)
        self._server.listen(16)
        self._open: list[Any] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        import socket
        import threading

        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            upstream.connect(self._engine)
            self._open += [client, upstream]
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=_pump, args=(src, dst), daemon=True).start()

    def stop(self) -> None:
        import socket

        self._server.close()
        for sock in self._open:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


def _pump(src: Any, dst: Any) -> None:
    import socket

    try:
        while chunk := src.recv(65536):
            dst.sendall(chunk)
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass
