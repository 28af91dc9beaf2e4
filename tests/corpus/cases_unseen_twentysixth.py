"""Held-out outputs (group ``unseen-26``): a twenty-sixth batch, filesystem, archive and package integrity
checkers run on image files and archives made inside the scenario (never on a real disk or device).

Failing runs: ``e2fsck -fvn`` of a 32 MiB ext4 image (made with ``mkfs.ext4 -d`` from 600 export files) after
``debugfs -w -R clri`` zeroed the inode of one refunds settlement file, ``fsck.fat -n -v -l`` of a FAT image
(``mkfs.fat -C`` filled with ``mcopy``) where the directory entry of one ledger file points past the last
cluster, ``7zz t`` (7-Zip) over 50 nightly archives where one was cut short by a full disk, ``xz -tv`` over 200
compressed logs where one has a flipped byte, ``bzip2 -tv`` over 120 compressed exports where one fails its CRC,
``cpio -itv`` of a backup archive truncated in the middle and ``par2 verify`` of a release whose recovery set
finds one damaged file. Clean runs whose text talks about errors: ``e2fsck -fn`` over six volumes, one labelled
``ERRORS``, ``fsck.fat -n -v -l`` of a volume labelled ``ERRORS`` holding ``errors/`` folders and
``failed_jobs.csv`` files, ``7zz t -bb1`` of archives of ``errors/`` folders and ``zstd -tv`` over compressed
``error-*.log`` and ``failed_jobs`` files. Every file is written with a fixed mtime and every image with a fixed
UUID, volume id and hash seed, so the outputs are the same on every run. Labels were written with each scenario,
before the engine saw the output. Needs Debian ``e2fsprogs``, ``dosfstools``, ``mtools``, ``7zip``,
``xz-utils``, ``bzip2``, ``zstd``, ``cpio`` and ``par2``.
"""

from __future__ import annotations

import random
from pathlib import Path

from _harness import WORDS, case, scrub, sh, substitute

GROUP = "unseen-26"

_MTIME = "2026-03-02 09:00:00"
_E2FS_ENV = {"E2FSPROGS_FAKE_TIME": "1772442000", "MTOOLS_SKIP_CHECK": "1"}


def _export(area: str, k: int, rows: int) -> str:
    lines = ["id,account,amount,currency,status"]
    lines += [f"{area}-{k:03d}-{i:05d},acct-{(i * 7919) % 100000:05d},{(i * 37) % 10000}.{i % 100:02d},EUR,posted"
              for i in range(rows)]  # fmt: skip
    return "\n".join(lines) + "\n"


def _tree(root: Path, files: dict[str, str]) -> Path:
    """``files`` under ``root/src``, every file and folder with the same mtime; the folder."""
    src = root / "src"
    for rel, text in sorted(files.items()):
        path = src / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    sh(f"find src -exec touch -h -d '{_MTIME}' {{}} +", root)
    return src


def _shop_files(per_area: int, rows: int, names: tuple[str, ...] = ("export",)) -> dict[str, str]:
    files = {}
    for area in WORDS:
        for k in range(per_area):
            name = names[k % len(names)]
            files[f"{area}/{name}-{k:03d}.csv"] = _export(area, k, rows)
    return files


def _mkext4(root: Path, img: str, label: str, uuid_tail: int, size: str = "32M") -> None:
    uuid = f"3f1c2b9e-5a7d-4e2f-9c31-0a6b8d4e{uuid_tail:04x}"
    seed = f"8b0d6e2a-1c4f-4a9e-b7d3-5e2f9a1c{uuid_tail:04x}"
    sh(
        f"mkfs.ext4 -q -F -U {uuid} -E hash_seed={seed},root_owner=0:0 -L {label} -d src {img} {size}",
        root,
        env=_E2FS_ENV,
    )


# ---------------------------------------------------------------- e2fsck


@case(
    "e2fsck_fvn_ext4_cleared_settlement_inode",
    "e2fsck -fvn (ext4 image file, debugfs clri)",
    clean=False,
    group=GROUP,
    decisive=[
        "Entry 'settlement-017.csv' in /refunds (415) has deleted/unused inode 439.",
        "shopdata: ********** WARNING: Filesystem still has errors **********",
        "[exit status 4]",
    ],
)
def _e2fsck_cleared(root: Path) -> bytes:
    _tree(root, _shop_files(30, 40, ("export", "settlement")))
    _mkext4(root, "shopdata.img", "shopdata", 1)
    sh("debugfs -w -R 'clri /refunds/settlement-017.csv' shopdata.img", root, env=_E2FS_ENV)
    return scrub(sh("e2fsck -fvn shopdata.img", root, env=_E2FS_ENV), root)


@case(
    "e2fsck_fn_six_volumes_errors_label_clean",
    "e2fsck -fn (loop over six ext4 image files)",
    clean=True,
    group=GROUP,
    decisive=["ERRORS: 175/4096 files (0.0% non-contiguous), 2503/16384 blocks"],
)
def _e2fsck_clean(root: Path) -> bytes:
    files = _shop_files(6, 20)
    for area in WORDS[:8]:
        files[f"errors/{area}/failed_jobs.csv"] = "job_id,error,attempts\n" + "".join(
            f"{area}-{i:04d},TimeoutError: upstream did not answer,{i % 5}\n" for i in range(30)
        )
        files[f"errors/{area}/error-summary.txt"] = f"{area}: 30 failed jobs, 0 unretried errors\n"
    _tree(root, files)
    labels = ["ORDERS", "BILLING", "ERRORS", "LEDGER", "AUDIT", "EXPORT"]
    for n, label in enumerate(labels):
        _mkext4(root, f"{label.lower()}.img", label, 16 + n, "16M")
    script = (
        "for img in " + " ".join(f"{x.lower()}.img" for x in labels) + '; do echo "== $img"; e2fsck -fn "$img"; done'
    )
    return scrub(sh(script, root, env=_E2FS_ENV), root)


# ---------------------------------------------------------------- fsck.fat


def _mkfat(root: Path, img: str, label: str, volid: str, src: Path) -> None:
    sh(f"mkfs.fat -C -n {label} -i {volid} {img} 8192", root)
    dirs = sorted({p.parent.relative_to(src) for p in src.rglob("*") if p.is_file()})
    made: set[Path] = set()
    for d in dirs:
        for part in [*reversed(d.parents[:-1]), d]:
            if part not in made:
                sh(f"mmd -i {img} ::/{part}", root, env=_E2FS_ENV)
                made.add(part)
        names = " ".join(sorted(f"src/{d}/{p.name}" for p in (src / d).iterdir() if p.is_file()))
        sh(f"mcopy -i {img} -m {names} ::/{d}/", root, env=_E2FS_ENV)


@case(
    "fsck_fat_nvl_ledger_entry_past_last_cluster",
    "fsck.fat -n -v -l (FAT image file, mcopy)",
    clean=False,
    group=GROUP,
    decisive=[
        "  Start cluster beyond limit (7936 > 4082). Truncating file.",
        "[exit status 1]",
    ],
)
def _fsck_fat_bad(root: Path) -> bytes:
    files = _shop_files(20, 12)
    files["ledger/close-q1.csv"] = _export("ledger", 999, 30)
    src = _tree(root, files)
    _mkfat(root, "shopdata.img", "SHOPDATA", "2026A0B1", src)
    img = root / "shopdata.img"
    data = bytearray(img.read_bytes())
    at = data.find(b"CLOSE-Q1CSV")
    data[at + 26 : at + 28] = (0x1F00).to_bytes(2, "little")  # the entry's first cluster, past the last one
    img.write_bytes(bytes(data))
    return scrub(sh("fsck.fat -n -v -l shopdata.img", root), root)


@case(
    "fsck_fat_nvl_errors_volume_clean",
    "fsck.fat -n -v -l (FAT image file, mcopy)",
    clean=True,
    group=GROUP,
    decisive=["errors.img: 83 files, 82/4081 clusters"],
)
def _fsck_fat_clean(root: Path) -> bytes:
    files = {}
    for area in WORDS:
        files[f"errors/{area}/failed_jobs.csv"] = "job_id,error\n" + "".join(
            f"{area}-{i:04d},ConnectionError: reset by peer\n" for i in range(12)
        )
        files[f"errors/{area}/errors.log"] = f"ERROR {area} worker: 12 jobs failed, all retried\n"
        files[f"exceptions/{area}.txt"] = f"{area}: 0 unhandled exceptions\n"
    src = _tree(root, files)
    _mkfat(root, "errors.img", "ERRORS", "0E550B1D", src)
    return scrub(sh("fsck.fat -n -v -l errors.img", root), root)


# ---------------------------------------------------------------- 7-Zip

_7Z_SCRUB = ((r"Threads:\d+ OPEN_MAX:\d+", "Threads:N OPEN_MAX:N"),)


def _blob(seed: int, size: int) -> bytes:
    return random.Random(seed).randbytes(size)


@case(
    "sevenzip_t_fifty_nightly_archives_one_truncated",
    "7zz t -bse1 (50 archives)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR: nightly-2026-02-07.7z",
        "Unexpected end of archive",
        "Can't open as archive: 1",
    ],
)
def _sevenzip_bad(root: Path) -> bytes:
    arch = root / "archives"
    arch.mkdir()
    for n in range(50):
        day = f"2026-{1 + n // 31:02d}-{1 + n % 31:02d}"
        src = {f"nightly-{day}/{area}.csv": _export(area, n, 30) for area in WORDS[:6]}
        _tree(root, src)
        (root / "src" / f"nightly-{day}" / "snapshot.bin").write_bytes(_blob(n, 24000))
        sh(f"touch -d '{_MTIME}' src/nightly-{day} src/nightly-{day}/snapshot.bin", root)
        sh(f"cd src && 7zz a -bd -bso0 ../archives/nightly-{day}.7z nightly-{day}", root)
        sh("rm -rf src", root)
    bad = arch / "nightly-2026-02-07.7z"
    bad.write_bytes(bad.read_bytes()[:20000])  # the disk filled up while the archive was written
    return substitute(scrub(sh("7zz t -bd -bse1 '*.7z'", arch), root), *_7Z_SCRUB)


@case(
    "sevenzip_t_bb1_errors_archives_clean",
    "7zz t -bb1 (archives of errors/ folders)",
    clean=True,
    group=GROUP,
    decisive=["Everything is Ok"],
)
def _sevenzip_clean(root: Path) -> bytes:
    files = {}
    for area in WORDS:
        files[f"errors/{area}/failed_jobs.csv"] = "job_id,error\n" + "".join(
            f"{area}-{i:04d},ValueError: bad amount\n" for i in range(20)
        )
        files[f"errors/{area}/errors-2026-03-01.log"] = f"ERROR {area}: 20 jobs failed and were retried\n"
    _tree(root, files)
    sh("cd src && 7zz a -bd -bso0 ../errors-2026-03.7z errors", root)
    sh("cd src && 7zz a -bd -bso0 -tzip ../failed-jobs-2026-03.zip errors/*/failed_jobs.csv", root)
    out = sh("7zz t -bd -bb1 errors-2026-03.7z && 7zz t -bd -bb1 failed-jobs-2026-03.zip", root)
    return substitute(scrub(out, root), *_7Z_SCRUB)


# ---------------------------------------------------------------- xz, bzip2, zstd


def _flip(path: Path, at: float) -> None:
    data = bytearray(path.read_bytes())
    data[int(len(data) * at)] ^= 0xFF
    path.write_bytes(bytes(data))


def _logs(root: Path, count: int, prefix: str = "app") -> list[str]:
    out = root / "logs"
    out.mkdir(exist_ok=True)
    names = []
    for n in range(count):
        area = WORDS[n % len(WORDS)]
        name = f"{prefix}-{area}-{n:03d}.log"
        lines = [
            f"2026-03-02T09:{i // 60 % 60:02d}:{i % 60:02d}Z INFO {area} handled request {n}-{i}" for i in range(400)
        ]
        (out / name).write_text("\n".join(lines) + "\n")
        names.append(name)
    return names


@case(
    "xz_tv_two_hundred_logs_one_corrupt",
    "xz -tv (200 files)",
    clean=False,
    group=GROUP,
    decisive=["xz: app-refunds-124.log.xz: Compressed data is corrupt", "[exit status 1]"],
)
def _xz_bad(root: Path) -> bytes:
    _logs(root, 200)
    sh("xz logs/*.log", root)
    _flip(root / "logs" / "app-refunds-124.log.xz", 0.5)
    return scrub(sh("cd logs && xz -tv *.xz", root), root)


@case(
    "bzip2_tv_exports_one_crc_error",
    "bzip2 -tv (120 files)",
    clean=False,
    group=GROUP,
    decisive=["  tax-063.csv.bz2:        data integrity (CRC) error in data", "[exit status 2]"],
)
def _bzip2_bad(root: Path) -> bytes:
    ex = root / "exports"
    ex.mkdir()
    for n in range(120):
        area = WORDS[n % len(WORDS)]
        (ex / f"{area}-{n:03d}.csv").write_text(_export(area, n, 300))
    sh("bzip2 exports/*.csv", root)
    _flip(ex / "tax-063.csv.bz2", 0.6)
    return scrub(sh("cd exports && bzip2 -tv *.bz2", root), root)


@case(
    "zstd_tv_error_logs_and_failed_jobs_clean",
    "zstd -tv (80 files)",
    clean=True,
    group=GROUP,
    decisive=["80 files decompressed"],
)
def _zstd_clean(root: Path) -> bytes:
    _logs(root, 60, "error")
    for area in WORDS:
        (root / "logs" / f"failed_jobs-{area}.csv").write_text(
            "job_id,error\n" + "".join(f"{area}-{i:04d},RetryError: gave up after 5 attempts\n" for i in range(50))
        )
    sh("zstd -q --rm logs/*", root)
    return scrub(sh("cd logs && zstd -tv *.zst", root), root)


# ---------------------------------------------------------------- cpio, par2


@case(
    "cpio_itv_backup_truncated",
    "cpio -itv (truncated newc archive)",
    clean=False,
    group=GROUP,
    decisive=["cpio: premature end of file", "[exit status 2]"],
)
def _cpio_bad(root: Path) -> bytes:
    _tree(root, _shop_files(15, 25))
    sh("cd src && find . -depth -print | LC_ALL=C sort | cpio -o -H newc -R 0:0 > ../backup.cpio 2>/dev/null", root)
    data = (root / "backup.cpio").read_bytes()
    (root / "backup.cpio").write_bytes(data[: int(len(data) * 0.55)])
    return scrub(sh("cpio -itv < backup.cpio", root), root)


@case(
    "par2_verify_release_one_damaged_file",
    "par2 verify -t1 -T1 (recovery set of 40 files)",
    clean=False,
    group=GROUP,
    decisive=[
        'Target: "invoice-030.csv" - damaged. Found 5 of 6 data blocks.',
        "Repair is required.",
        "[exit status 1]",
    ],
)
def _par2_bad(root: Path) -> bytes:
    rel = root / "release"
    rel.mkdir()
    for n in range(40):
        area = WORDS[n % len(WORDS)]
        (rel / f"{area}-{n:03d}.csv").write_text(_export(area, n, 120))
    sh("cd release && par2 create -q -q -s1024 -r5 -n1 release.par2 *.csv", root)
    target = rel / "invoice-030.csv"
    data = bytearray(target.read_bytes())
    data[3000:3016] = b"0000000000000000"
    target.write_bytes(bytes(data))
    return scrub(sh("cd release && par2 verify -t1 -T1 release.par2", root), root)
