"""Held-out outputs (group ``unseen-102``): a hundred-and-second batch, backup, sync and archive tools as an ops agent
runs them on generated data trees of 2,800 to 5,800 files whose folders are named after the business
(``failed_payments``, ``error_reports``, ``retry_queue``, ``exception_logs``), all offline with local repositories.

Failing runs: ``rsync -av --itemize-changes --delete`` run as an unprivileged user where two files and one folder
of the source belong to root (``Permission denied`` in the middle, deletion skipped, code 23 at the end), ``rsync -a
--delete -v --stats`` into a backup whose ``retry_queue`` folder the user cannot write (``mkstemp`` failures), a
``borg create --list --stats`` then ``borg check -v --archives-only --verify-data`` of a repository with a corrupted
segment, ``restic check --read-data`` with a damaged pack then ``restic ls -l latest``, ``rclone sync -v`` local to
local with an unreadable source file, and ``tar -cvf`` where a log grows while it is read (``file changed as we read
it``). Clean runs full of the business words: ``rsync -av --stats``, ``borg create --list --stats``, ``restic backup
-v`` with ``restic ls -l latest``, ``rclone sync -v`` with ``rclone check``, and ``cpio -ov`` then ``cpio -idv``.
Labels were written with each scenario, before the engine saw the output. Needs rsync, borgbackup, restic, rclone,
tar and cpio (Debian ``rsync``, ``borgbackup``, ``restic``, ``rclone``, ``cpio``), ``setpriv`` (util-linux) to run
as ``nobody``, and ``faketime`` (Debian ``faketime``) to hold borg's clock still.
"""

from __future__ import annotations

import os
from pathlib import Path

from _harness import case, scrub, sh, substitute

GROUP = "unseen-102"

#: The time every generated file carries (2024-06-01 00:00:00 UTC), so listings with dates are the same each run.
_MTIME = 1717200000

_AREAS = [
    "failed_payments", "error_reports", "retry_queue", "exception_logs", "billing", "refunds", "ledger", "invoice",
    "webhooks", "audit", "orders", "shipping",
]  # fmt: skip

_MONTHS = [f"2024-{m:02d}" for m in range(1, 13)]


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, times, durations, ids and hashes."""
    return substitute(
        scrub(out, root),
        (r"\d{4}/\d\d/\d\d \d\d:\d\d:\d\d", "2026/01/01 00:00:00"),
        (r"(Time \((?:start|end)\): +).*$", r"\1Mon, 2026-01-01 00:00:00"),
        (r"(Duration: ).*$", r"\g<1>1.00 seconds"),
        (r"(Archive fingerprint: )[0-9a-f]+", r"\g<1>" + "0" * 64),
        (r"(Repository ID: )[0-9a-f]+", r"\g<1>" + "0" * 64),
        (r"\b[0-9a-f]{64}\b", "0" * 64),
        (r"\b[0-9a-f]{8}\b", "00000000"),
        (r"saved in \d+\.\d+s", "saved in 0.001s"),
        (r" in \d+:\d\d(:\d\d)?$", " in 0:01"),
        (r"\.([A-Za-z0-9]{6})\" failed", '.XXXXXX" failed'),
        (r"(Elapsed time: +).*$", r"\g<1>1.0s"),
        (r"(Transferred: +[^,]+, [^,]+, ).*$", r"\g<1>0 B/s, ETA -"),
        (r"[\d,]+(\.\d+)? bytes/sec", "1,000.00 bytes/sec"),
        (r"(File list (?:generation|transfer) time: )[\d.]+", r"\g<1>0.001"),
        (r"^(File list size: |Total bytes sent: |Total bytes received: )[\d,]+", r"\g<1>1,000"),
        (r"^sent [\d,]+ bytes  received [\d,]+ bytes", "sent 1,000 bytes  received 1,000 bytes"),
    )


def _record(area: str, month: str, k: int) -> str:
    kind = area.rstrip("s").replace("_", " ")
    return (
        f'{{"id": "{area}-{month}-{k:04d}", "kind": "{kind}", "month": "{month}", "amount_cents": {(k * 7919) % 99991},'
        f' "attempts": {k % 5}, "note": "{kind} record {k} of {month}"}}\n'
    ) * (1 + k % 4)


def _tree(base: Path, areas: list[str], months: list[str], per_month: int) -> int:
    """Small JSON files ``base/area/month/area_NNNN.json`` with fixed times; how many were written."""
    count = 0
    for area in areas:
        for month in months:
            folder = base / area / month
            folder.mkdir(parents=True, exist_ok=True)
            for k in range(per_month):
                path = folder / f"{area}_{k:04d}.json"
                path.write_text(_record(area, month, k))
                os.utime(path, (_MTIME, _MTIME))
                count += 1
            os.utime(folder, (_MTIME, _MTIME))
        os.utime(base / area, (_MTIME, _MTIME))
    os.utime(base, (_MTIME, _MTIME))
    return count


def _as_nobody(root: Path, *owned: Path) -> str:
    """Let ``nobody`` into ``root`` and give it ``owned``; the prefix that runs a command as ``nobody``."""
    os.chmod(root, 0o755)
    for path in owned:
        sh(f"chown -R nobody:nogroup {path}", root)
    return "HOME=/nonexistent setpriv --reuid=65534 --regid=65534 --clear-groups"


def _root_only(path: Path, mode: int = 0o600, group: int = 0) -> None:
    os.chown(path, 0, group)
    os.chmod(path, mode)


# ---------------------------------------------------------------- rsync


@case(
    "u102_rsync_itemize_permission_denied",
    "rsync",
    clean=False,
    group=GROUP,
    decisive=[
        'send_files failed to open "/tmp/work/data/failed_payments/2024-07/failed_payments_0017.json": '
        "Permission denied (13)",
        'opendir "/tmp/work/data/ledger/2024-03" failed: Permission denied (13)',
        "IO error encountered -- skipping file deletion",
        "rsync error: some files/attrs were not transferred (see previous errors) (code 23)",
    ],
)
def _rsync_permission(root: Path) -> bytes:
    data = root / "data"
    _tree(data, _AREAS[:8], _MONTHS, 45)
    mirror = root / "mirror"
    mirror.mkdir()
    (mirror / "stale_export.csv").write_text("old\n")
    prefix = _as_nobody(root, data, mirror)
    _root_only(data / "failed_payments/2024-07/failed_payments_0017.json")
    _root_only(data / "failed_payments/2024-07/failed_payments_0018.json")
    _root_only(data / "ledger/2024-03", 0o700)
    cmd = f"{prefix} rsync -av --itemize-changes --delete {data}/ {mirror}/"
    return _settle(sh(cmd, root), root)


@case(
    "u102_rsync_mkstemp_receiver",
    "rsync",
    clean=False,
    group=GROUP,
    decisive=[
        'rsync: [receiver] mkstemp "/tmp/work/backup/retry_queue/2024-05/.retry_queue_0000.json.XXXXXX" failed: '
        "Permission denied (13)",
        "rsync error: some files/attrs were not transferred (see previous errors) (code 23)",
    ],
)
def _rsync_receiver(root: Path) -> bytes:
    data = root / "data"
    _tree(data, _AREAS, _MONTHS[:6], 40)
    backup = root / "backup"
    (backup / "retry_queue/2024-05").mkdir(parents=True)
    prefix = _as_nobody(root, data, backup)
    _root_only(backup / "retry_queue/2024-05", 0o755, group=65534)
    cmd = f"{prefix} rsync -a --delete -v --stats {data}/ {backup}/"
    return _settle(sh(cmd, root), root)


@case(
    "u102_rsync_clean_stats",
    "rsync",
    clean=True,
    group=GROUP,
    decisive=["Number of regular files transferred: 4,800", "total size is "],
)
def _rsync_clean(root: Path) -> bytes:
    data = root / "data"
    _tree(data, _AREAS[:4] + _AREAS[8:], _MONTHS, 50)
    return _settle(sh(f"rsync -av --stats {data}/ {root / 'mirror'}/", root), root)


# ---------------------------------------------------------------- borg


def _borg(root: Path) -> str:
    return (
        f"BORG_BASE_DIR={root / 'borg-home'} BORG_UNKNOWN_UNENCRYPTED_REPO_ACCESS_IS_OK=yes "
        "BORG_RELOCATED_REPO_ACCESS_IS_OK=yes PYTHONHASHSEED=0 TZ=UTC borg"
    )


def _borg_create(root: Path, archive: str) -> str:
    """``find data | sort | borg create --paths-from-stdin``: the order of the listing is the sorted one."""
    return (
        f"find data | sort | faketime -f '2024-06-02 23:30:00' env {_borg(root)} create --list --stats "
        f"--paths-from-stdin --files-cache=mtime,size --noctime --nobirthtime --compression lz4 repo::{archive}"
    )


@case(
    "u102_borg_create_clean",
    "borg",
    clean=True,
    group=GROUP,
    decisive=["Archive name: nightly-2024-06-01", "Number of files: 5760"],
)
def _borg_clean(root: Path) -> bytes:
    _tree(root / "data", _AREAS, _MONTHS, 40)
    sh(f"{_borg(root)} init --encryption=none repo", root)
    return _settle(sh(_borg_create(root, "nightly-2024-06-01"), root), root)


def _flip(path: Path, offset: int, count: int = 64) -> None:
    """Overwrite ``count`` bytes of ``path`` at ``offset`` with their complement (bit rot)."""
    with open(path, "r+b") as f:
        f.seek(offset)
        chunk = f.read(count)
        f.seek(offset)
        f.write(bytes(255 - b for b in chunk))


@case(
    "u102_borg_check_corrupt_segment",
    "borg",
    clean=False,
    group=GROUP,
    decisive=["Segment entry checksum mismatch", "Archive consistency check complete, problems found."],
)
def _borg_corrupt(root: Path) -> bytes:
    data = root / "data"
    _tree(data, _AREAS, _MONTHS[:8], 40)
    sh(f"{_borg(root)} init --encryption=none repo && {_create_quiet(root)}", root)
    segment = max((root / "repo/data/0").iterdir(), key=lambda p: p.stat().st_size)
    _flip(segment, segment.stat().st_size // 2)
    for k in range(5):
        path = data / "retry_queue/2024-08" / f"retry_queue_{k:04d}.json"
        path.write_text(_record("retry_queue", "2024-08", k + 100))
        os.utime(path, (_MTIME + 86400, _MTIME + 86400))
    cmd = f"{_borg_create(root, 'nightly-2024-06-02')} && {_borg(root)} check -v --archives-only --verify-data repo"
    return _settle(sh(cmd, root), root)


def _create_quiet(root: Path) -> str:
    return (
        f"find data | sort | faketime -f '2024-06-01 23:30:00' env {_borg(root)} create --paths-from-stdin "
        "--files-cache=mtime,size "
        "--noctime --nobirthtime --compression lz4 repo::nightly-2024-06-01"
    )


# ---------------------------------------------------------------- restic


def _restic(root: Path) -> str:
    return f"RESTIC_PASSWORD=offsite-2024 RESTIC_CACHE_DIR={root / 'restic-cache'} TZ=UTC restic -r repo"


def _restic_settle(out: bytes, root: Path) -> bytes:
    return _settle(
        substitute(
            out,
            (r"restic-check-cache-\d+", "restic-check-cache-1000"),
            (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \+0000 UTC", "2026-01-01 00:00:00.000000000 +0000 UTC"),
            (r"^(\w{8}  )\d{4}-\d\d-\d\d \d\d:\d\d:\d\d  \S+", r"\g<1>2026-01-01 00:00:00  backup-host"),
            (r"(finished in )\d+\.\d+s", r"\g<1>0.100s"),
            (r"(scan finished in )\d+\.\d+s", r"\g<1>0.100s"),
            (r"^\[\d+:\d\d\] ", "[0:00] "),
            (r"\([\d.]+ \w+ stored\)", "(1.150 MiB stored)"),
        ),
        root,
    )


def _logs(base: Path, months: list[str], size: int) -> None:
    """Large exception logs (several restic packs), fixed times."""
    for i, month in enumerate(months):
        path = base / "exception_logs" / month / "exceptions.log"
        lines = [f"{month} worker-{k % 7} handled exception batch {k} retry={k % 3} ok\n" for k in range(size)]
        path.write_text("".join(lines) + f"# {i}\n")
        os.utime(path, (_MTIME, _MTIME))
        os.utime(path.parent, (_MTIME, _MTIME))


@case(
    "u102_restic_backup_ls_clean",
    "restic",
    clean=True,
    group=GROUP,
    decisive=["Files:        4800 new,     0 changed,     0 unmodified", "snapshot 00000000 saved"],
)
def _restic_clean(root: Path) -> bytes:
    _tree(root / "data", _AREAS[:10], _MONTHS, 40)
    r = _restic(root)
    sh(f"{r} init", root)
    return _restic_settle(sh(f"{r} backup -v data && {r} ls -l latest", root), root)


@case(
    "u102_restic_check_damaged_pack",
    "restic",
    clean=False,
    group=GROUP,
    decisive=["Pack ID does not match, want ", "Fatal: repository contains errors"],
)
def _restic_damaged(root: Path) -> bytes:
    data = root / "data"
    _tree(data, _AREAS[:6], _MONTHS[:8], 50)
    _logs(data, _MONTHS[:8], 60000)
    r = _restic(root)
    sh(f"{r} init && {r} backup -q data", root)
    packs = sorted((root / "repo/data").rglob("*"), key=lambda p: (-p.stat().st_size, p.name))
    pack = [p for p in packs if p.is_file()][1]
    os.chmod(pack, 0o600)
    _flip(pack, pack.stat().st_size // 3)
    return _restic_settle(sh(f"{r} check --read-data; {r} ls -l latest", root), root)


# ---------------------------------------------------------------- rclone


def _rclone(root: Path) -> str:
    (root / "rclone.conf").write_text("")
    os.chmod(root / "rclone.conf", 0o644)
    return (
        f"RCLONE_CONFIG={root / 'rclone.conf'} XDG_CACHE_HOME={root / 'cache'} rclone --transfers 1 --checkers 1 "
        "--check-first --order-by name,ascending --stats 0 --retries 1 --low-level-retries 1"
    )


@case(
    "u102_rclone_sync_unreadable",
    "rclone",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR : error_reports/2024-09/error_reports_0021.json: Failed to copy: failed to open source object: "
        "open /tmp/work/data/error_reports/2024-09/error_reports_0021.json: permission denied",
        "not deleting files as there were IO errors",
        "Failed to sync: failed to open source object: ",
    ],
)
def _rclone_fail(root: Path) -> bytes:
    data = root / "data"
    _tree(data, _AREAS[:8], _MONTHS, 30)
    offsite = root / "offsite"
    offsite.mkdir()
    (offsite / "retry_queue_old.tar").write_text("old\n")
    rclone = _rclone(root)
    prefix = _as_nobody(root, data, offsite, root / "rclone.conf")
    _root_only(data / "error_reports/2024-09/error_reports_0021.json")
    cmd = f"{prefix} env {rclone} sync -v data offsite"
    return _settle(sh(cmd, root), root)


@case(
    "u102_rclone_sync_check_clean",
    "rclone",
    clean=True,
    group=GROUP,
    decisive=["0 differences found", "3600 matching files"],
)
def _rclone_clean(root: Path) -> bytes:
    _tree(root / "data", _AREAS[:6], _MONTHS, 50)
    rclone = _rclone(root)
    return _settle(sh(f"{rclone} sync -v data offsite && {rclone} check data offsite", root), root)


# ---------------------------------------------------------------- tar and cpio


@case(
    "u102_tar_file_changed",
    "tar",
    clean=False,
    group=GROUP,
    decisive=["tar: data/exception_logs/2024-04/exceptions.log: file changed as we read it", "[exit status 1]"],
)
def _tar_changed(root: Path) -> bytes:
    data = root / "data"
    _tree(data, _AREAS[:8], _MONTHS[:8], 60)
    _logs(data, _MONTHS[:8], 20000)
    grow = data / "exception_logs/2024-04/exceptions.log"
    action = f"exec=sh -c 'echo late exception >> {grow}'"
    cmd = f'tar --sort=name --checkpoint=50 --checkpoint-action="{action}" -cvf archive.tar data'
    return _settle(sh(cmd, root), root)


@case(
    "u102_cpio_out_in_clean",
    "cpio",
    clean=True,
    group=GROUP,
    decisive=["3093 blocks", "310 blocks"],
)
def _cpio_clean(root: Path) -> bytes:
    _tree(root / "data", _AREAS[:3] + _AREAS[6:10], _MONTHS, 35)
    cmd = (
        "find data | sort | cpio -ov -H newc > data.cpio && mkdir restore && cd restore && cpio -idv -B < ../data.cpio"
    )
    return _settle(sh(cmd, root), root)
