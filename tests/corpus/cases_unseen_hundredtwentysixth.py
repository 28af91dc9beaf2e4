"""Held-out outputs (group ``unseen-126``): a hundred-and-twenty-sixth batch, git repository maintenance and integrity
checks as an agent runs them on generated repositories of hundreds of commits: ``paydesk``, a payments service of 30
modules named after business words (``failed_payments``, ``error_codes``, ``retry_queue``, ``exceptions``,
``refunds``, ``chargebacks``, ``dead_letters``, ``crash_reports`` ...), every commit message a fix of an error path,
branches like ``fix/failed-payments-...`` and tags like ``v3.K.0-errors-resolved``; all offline with Debian's git 2.39,
each history written with ``git fast-import`` from a fixed stream (fixed dates, so the same object ids on every run).

Failing runs: ``git fsck --full --verbose`` over 4,000 loose objects where one blob in the middle of the history was
deleted (the ``missing blob`` verdict at the very end), ``git fsck --full`` where one loose blob is corrupt (the
inflate errors first, the ``missing blob`` in the middle of hundreds of ``dangling blob`` lines), ``git verify-pack
-v`` over the eleven packs of a checkpointed import where one pack has garbage in the middle, ``git bundle create``
of a weekly incremental bundle, ``git bundle list-heads`` of its 226 refs, then ``git bundle verify`` in a mirror
that lacks the prerequisite commit, a ``git gc --aggressive`` loop over 24 service repositories where one has a
corrupt loose object, and a ``git maintenance run`` loop over 24 repositories where one has a stale
``multi-pack-index.lock`` (the loop exits 0: only git's ``error: task 'incremental-repack' failed`` says so). Clean
runs full of those business words: ``git gc --aggressive`` then ``git gc --auto`` with ``count-objects -v`` before
and after and the ``too many unreachable loose objects`` warning, ``git bundle create --all`` then ``git bundle
verify`` of 277 refs, ``git fsck --full --strict`` with ``missingTaggerEntry`` warnings of legacy tags and hundreds of
dangling objects, and ``git prune --dry-run --verbose`` over the objects of deleted hotfix branches. Labels were
written with each scenario, before the engine saw the output. Needs git (Debian ``git``).
"""

from __future__ import annotations

import os
from pathlib import Path

from _harness import case, scrub, sh, substitute

GROUP = "unseen-126"

#: The 30 modules of the payments service, in the order the history touches them.
_MODULES = [
    "billing", "failed_payments", "error_codes", "retry_queue", "exceptions", "refunds", "chargebacks", "invoice",
    "ledger", "dead_letters", "timeouts", "fraud_alerts", "disputes", "payouts", "settlements", "webhooks", "audit",
    "declines", "rollbacks", "crash_reports", "incidents", "outages", "fees", "tax", "coupons", "orders", "shipping",
    "reconcile", "alerts", "panic_button",
]  # fmt: skip

#: The 24 service repositories of the loops.
_SERVICES = [
    "billing-api", "failed-payments-worker", "error-codes-registry", "retry-queue", "exceptions-inbox",
    "refunds-service", "chargeback-disputes", "invoice-renderer", "ledger-core", "dead-letter-relay",
    "timeout-watchdog", "fraud-alerts", "payout-scheduler", "settlement-batch", "webhook-dispatcher",
    "audit-trail", "decline-analytics", "rollback-manager", "crash-reporter", "incident-bot", "outage-pager",
    "fee-calculator", "tax-engine", "reconcile-nightly",
]  # fmt: skip

_WHO = "Paydesk Ops <ops@paydesk.example>"
_T0 = 1_700_000_000


def _env(root: Path) -> dict[str, str]:
    """Git with no user or system configuration and fixed identities and dates."""
    return {
        "HOME": str(root),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Paydesk Ops",
        "GIT_AUTHOR_EMAIL": "ops@paydesk.example",
        "GIT_COMMITTER_NAME": "Paydesk Ops",
        "GIT_COMMITTER_EMAIL": "ops@paydesk.example",
        "GIT_AUTHOR_DATE": f"{_T0} +0000",
        "GIT_COMMITTER_DATE": f"{_T0} +0000",
    }


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of the folder and of random temporary pack names (git's object ids are fixed by the
    streams)."""
    return substitute(scrub(out, root), (r"tmp_pack_\w{6}", "tmp_pack_XXXXXX"))


def _stream(
    commits: int,
    *,
    salt: str = "",
    branches: int = 0,
    tags: int = 0,
    checkpoint: int = 0,
    start: int = 1,
    ref: str = "refs/heads/main",
) -> str:
    """A ``git fast-import`` stream: ``commits`` commits on ``ref``, each adding an error path to one module;
    a branch every ``commits // branches`` commits, an annotated tag every ``commits // tags`` and a checkpoint
    (a new pack) every ``checkpoint`` commits."""
    out: list[str] = []
    content = {
        m: f'"""Paydesk {m.replace("_", " ")}{salt}: error paths, retries and failed-payment handling."""\n'
        for m in _MODULES
    }
    for k in range(1, start):
        m = _MODULES[(k * 7) % len(_MODULES)]
        content[m] += _handler(m, k, salt)
    for k in range(start, start + commits):
        m = _MODULES[(k * 7) % len(_MODULES)]
        content[m] += _handler(m, k, salt)
        msg = f"Fix {m.replace('_', ' ')} error handling: raise E-{k:04d} instead of swallowing the exception\n"
        out.append(f"commit {ref}\nmark :{k}\ncommitter {_WHO} {_T0 + k * 3600} +0000\n")
        out.append(f"data {len(msg.encode())}\n{msg}")
        if k > 1:
            out.append(f"from :{k - 1}\n")
        for name in [m] if k > 1 else _MODULES:
            data = content[name]
            out.append(f"M 100644 inline src/paydesk/{name}.py\ndata {len(data.encode())}\n{data}\n")
        if branches and k % (commits // branches) == 0:
            out.append(f"reset refs/heads/fix/{m.replace('_', '-')}-E{k:04d}\nfrom :{k}\n\n")
        if tags and k % (commits // tags) == 0:
            note = f"Release 3.{k}.0: {m.replace('_', ' ')} errors resolved, failed retries re-queued\n"
            out.append(f"tag v3.{k}.0-errors-resolved\nfrom :{k}\ntagger {_WHO} {_T0 + k * 3600 + 60} +0000\n")
            out.append(f"data {len(note.encode())}\n{note}")
        if checkpoint and k % checkpoint == 0:
            out.append("checkpoint\n\n")
    return "".join(out)


def _handler(m: str, k: int, salt: str) -> str:
    return (
        f"\n\ndef handle_{m}_{k}(event):\n"
        f'    """Error path {k}{salt}: retry a failed {m.replace("_", " ")} event, then raise."""\n'
        f"    if event.get('status') == 'failed' and event.get('attempt', 0) < {k % 5 + 1}:\n"
        f"        return retry_queue.push(event, delay={60 * (k % 4 + 1)})\n"
        f"    if event.get('status') == 'failed':\n"
        f"        raise PaymentError('E-{k:04d}', '{m} failed after retries')\n"
        f"    return {k}\n"
    )


def _repo(root: Path, name: str, stream: str, *, loose: bool = False) -> Path:
    """A repository ``root/name`` imported from ``stream``; ``loose`` unpacks every object."""
    path = root / name
    env = _env(root)
    sh(f"git init -q -b main {name}", root, env=env)
    for key, value in (("pack.threads", "1"), ("gc.autoDetach", "false"), ("maintenance.auto", "false")):
        sh(f"git config {key} {value}", path, env=env)
    (root / f"{name}.fi").write_text(stream)
    sh(f"git fast-import --quiet < ../{name}.fi", path, env=env)
    if loose:
        sh(f"mkdir ../.{name}.packs && mv .git/objects/pack/* ../.{name}.packs/"
           f" && for p in ../.{name}.packs/*.pack; do git unpack-objects -q < $p; done", path, env=env)  # fmt: skip
    return path


def _blob(path: Path, rev: str) -> str:
    return sh(f"git rev-parse {rev}", path, env=_env(path.parent)).decode().strip()


def _corrupt_loose(path: Path, sha: str) -> None:
    obj = path / ".git" / "objects" / sha[:2] / sha[2:]
    obj.chmod(0o644)
    data = bytearray(obj.read_bytes())
    data[2:20] = b"garbage-in-storage"
    obj.write_bytes(bytes(data))


def _scratch(path: Path, count: int, what: str) -> None:
    """``count`` unreachable loose blobs (scratch exports an agent wrote with ``hash-object -w``)."""
    rows = "".join(f"{what} export row {i}: E-{i:04d} failed payment retried\n" for i in range(count))
    (path.parent / f"{path.name}-scratch.txt").write_text(rows)
    loop = (
        f'while read -r row; do echo "$row" | git hash-object -w --stdin >/dev/null; done < ../{path.name}-scratch.txt'
    )
    sh(loop, path, env=_env(path.parent))


# ---------------------------------------------------------------- fsck


@case(
    "u126_fsck_verbose_missing_blob",
    "git fsck --full --verbose",
    clean=False,
    group=GROUP,
    decisive=["missing blob 470016214358fc1d1a4061bc3f500dc0fcec9a90", "[exit status 2]"],
)
def _fsck_verbose_missing(root: Path) -> bytes:
    path = _repo(root, "paydesk", _stream(450, branches=15, tags=30), loose=True)
    sha = _blob(path, "main~230:src/paydesk/refunds.py")
    (path / ".git" / "objects" / sha[:2] / sha[2:]).unlink()
    return _settle(sh("git fsck --full --verbose", path, env=_env(root)), root)


@case(
    "u126_fsck_corrupt_loose_dangling",
    "git fsck --full",
    clean=False,
    group=GROUP,
    decisive=[
        "error: c03783fa6de398a331d3ce87c5b597e1de7edda8: object corrupt or missing: .git/objects/c0/",
        "missing blob c03783fa6de398a331d3ce87c5b597e1de7edda8",
        "[exit status 3]",
    ],
)
def _fsck_corrupt(root: Path) -> bytes:
    path = _repo(root, "paydesk", _stream(420, branches=20, tags=20), loose=True)
    _scratch(path, 650, "chargebacks")
    _corrupt_loose(path, _blob(path, "main~180:src/paydesk/error_codes.py"))
    return _settle(sh("git fsck --full", path, env=_env(root)), root)


@case(
    "u126_fsck_strict_clean",
    "git fsck --full --strict",
    clean=True,
    group=GROUP,
    decisive=[
        "warning in tag 0b7444c231e6cb32ff491f55c874406d78d2ef42: missingTaggerEntry: invalid format - expected"
        " 'tagger' line"
    ],
)
def _fsck_strict_clean(root: Path) -> bytes:
    path = _repo(root, "paydesk", _stream(400, branches=20, tags=40))
    _scratch(path, 420, "refunds")
    env = _env(root)
    for k, name in (
        (12, "v0.9-legacy-failed-payments"),
        (31, "v0.9.1-legacy-error-codes"),
        (57, "v0.9.2-legacy-retry"),
    ):
        tag = f"object $(git rev-parse main~{400 - k})\ntype commit\ntag {name}\n\nImported from the old SVN: {name}\n"
        sh(f'printf "{tag}" | git hash-object -t tag -w --stdin --literally > ../tag.id'
           f" && git update-ref refs/tags/{name} $(cat ../tag.id)", path, env=env)  # fmt: skip
    return _settle(sh("git fsck --full --strict", path, env=env), root)


# ---------------------------------------------------------------- packs


@case(
    "u126_verify_pack_bad_object",
    "git verify-pack -v",
    clean=False,
    group=GROUP,
    decisive=[
        "fatal: pack has bad object at offset 12590: inflate returned -3",
        "pack-5acb220ca0d44d0b343d15401ab6e5121d5b2c8b.pack: bad",
        "[exit status 1]",
    ],
)
def _verify_pack_bad(root: Path) -> bytes:
    path = _repo(root, "paydesk", _stream(440, branches=10, tags=20, checkpoint=40))
    packs = sorted((path / ".git" / "objects" / "pack").glob("*.pack"))
    bad = packs[len(packs) // 2]
    bad.chmod(0o644)
    data = bytearray(bad.read_bytes())
    mid = len(data) // 2
    data[mid : mid + 16] = b"XXXXXXXXXXXXXXXX"
    bad.write_bytes(bytes(data))
    return _settle(sh("git verify-pack -v .git/objects/pack/*.idx", path, env=_env(root)), root)


@case(
    "u126_gc_aggressive_clean",
    "git gc --aggressive",
    clean=True,
    group=GROUP,
    decisive=["count: 1300", "in-pack: 2429"],
)
def _gc_clean(root: Path) -> bytes:
    path = _repo(root, "paydesk", _stream(450, branches=45, tags=150), loose=True)
    _scratch(path, 1300, "failed_payments")
    cmd = (
        "git count-objects -v && git gc --aggressive && git -c gc.auto=200 gc --auto && git count-objects -v"
        " && git for-each-ref --format='%(refname:short) %(objectname:short) %(contents:subject)'"
    )
    return _settle(sh(cmd, path, env=_env(root)), root)


@case(
    "u126_prune_dry_run_clean",
    "git prune --dry-run --verbose",
    clean=True,
    group=GROUP,
    decisive=["count: 540", "in-pack: 2069"],
)
def _prune_clean(root: Path) -> bytes:
    path = _repo(root, "paydesk", _stream(400, tags=40))
    env = _env(root)
    hotfix = "".join(
        _stream(3, salt=f" (hotfix {h})", start=380 - 9 * h, ref=f"refs/heads/hotfix/crash-{h:02d}").replace(
            f"from :{379 - 9 * h}\n", f"from {_blob(path, f'main~{21 + 9 * h}')}\n", 1
        )
        for h in range(36)
    )
    (root / "hotfix.fi").write_text(hotfix)
    packs = set((path / ".git" / "objects" / "pack").glob("*.pack"))
    sh("git fast-import --quiet < ../hotfix.fi", path, env=env)
    (new,) = set((path / ".git" / "objects" / "pack").glob("*.pack")) - packs
    sh(
        f"mv {new} ../hotfix.pack && rm -f {new.with_suffix('.idx')} && git unpack-objects -q < ../hotfix.pack",
        path,
        env=env,
    )
    sh("git for-each-ref --format='delete %(refname)' refs/heads/hotfix | git update-ref --stdin", path, env=env)
    return _settle(sh("git prune --dry-run --verbose && git count-objects -v", path, env=env), root)


# ---------------------------------------------------------------- bundles


@case(
    "u126_bundle_verify_prerequisite",
    "git bundle create / verify",
    clean=False,
    group=GROUP,
    decisive=[
        "error: Repository lacks these prerequisite commits:",
        "error: 860cae01d029569ba6d2bb13de6b6a4aa39d8a43",
        "[exit status 1]",
    ],
)
def _bundle_prereq(root: Path) -> bytes:
    _repo(root, "paydesk", _stream(420, branches=42, tags=210))
    _repo(root, "mirror", _stream(200, branches=20, tags=100))
    cmd = (
        "cd paydesk && git bundle create ../weekly-2024-w47.bundle --branches --tags ^main~150"
        " && git bundle list-heads ../weekly-2024-w47.bundle"
        " && cd ../mirror && git bundle verify ../weekly-2024-w47.bundle"
    )
    return _settle(sh(cmd, root, env=_env(root)), root)


@case(
    "u126_bundle_create_verify_clean",
    "git bundle create / verify",
    clean=True,
    group=GROUP,
    decisive=[
        "The bundle contains these 277 refs:",
        "The bundle records a complete history.",
        "../paydesk-archive.bundle is okay",
    ],
)
def _bundle_clean(root: Path) -> bytes:
    _repo(root, "paydesk", _stream(450, branches=50, tags=225))
    cmd = (
        "cd paydesk && git bundle create ../paydesk-archive.bundle --all"
        " && git bundle verify ../paydesk-archive.bundle && stat -c '%s %n' ../paydesk-archive.bundle"
    )
    return _settle(sh(cmd, root, env=_env(root)), root)


# ---------------------------------------------------------------- loops over the service repositories


def _services(root: Path, *, loose: bool) -> None:
    """The 24 service repositories in ``root/services``; their packs dated a minute apart in name order (the
    incremental repack picks packs by date)."""
    for i, svc in enumerate(_SERVICES):
        path = _repo(
            root / "services",
            svc,
            _stream(60 + 5 * i, salt=f" [{svc}]", branches=6, tags=10, checkpoint=20),
            loose=loose,
        )
        for k, pack in enumerate(sorted((path / ".git" / "objects" / "pack").glob("pack-*"))):
            os.utime(pack, (_T0 + 60 * k, _T0 + 60 * k))


_REFS = "git -C $r for-each-ref --sort=-refname --count=8 --format='  %(refname:short) %(contents:subject)'"


@case(
    "u126_gc_aggressive_loop_corrupt",
    "git gc --aggressive (loop)",
    clean=False,
    group=GROUP,
    decisive=[
        "fatal: loose object f3f7aa4336d7c4584b17a66bb595b83a3ddfcf9e (stored in"
        " .git/objects/f3/f7aa4336d7c4584b17a66bb595b83a3ddfcf9e) is corrupt",
        "fatal: failed to run repack",
        "[exit status 128]",
    ],
)
def _gc_loop(root: Path) -> bytes:
    (root / "services").mkdir()
    _services(root, loose=True)
    bad = root / "services" / "dead-letter-relay"
    _corrupt_loose(bad, _blob(bad, "main~40:src/paydesk/dead_letters.py"))
    cmd = (
        'rc=0; for r in */; do r=${r%/}; echo "=== $r"; git -C $r count-objects -v;'
        " git -C $r gc --aggressive --prune=now || rc=$?; git -C $r count-objects -v; " + _REFS + "; done; exit $rc"
    )
    return _settle(sh(cmd, root / "services", env=_env(root)), root)


@case(
    "u126_maintenance_loop_midx_lock",
    "git maintenance run (loop)",
    clean=False,
    group=GROUP,
    decisive=[
        "fatal: Unable to create '/tmp/work/services/settlement-batch/.git/objects/pack/multi-pack-index.lock': File"
        " exists.",
        "error: task 'incremental-repack' failed",
    ],
)
def _maintenance_loop(root: Path) -> bytes:
    (root / "services").mkdir()
    _services(root, loose=False)
    (root / "services" / "settlement-batch" / ".git" / "objects" / "pack" / "multi-pack-index.lock").touch()
    cmd = (
        'for r in */; do r=${r%/}; echo "=== $r";'
        " git -C $r maintenance run --task=loose-objects --task=incremental-repack --task=commit-graph"
        " --task=pack-refs;"
        " git -C $r count-objects -v; " + _REFS + "; done"
    )
    return _settle(sh(cmd, root / "services", env=_env(root)), root)
