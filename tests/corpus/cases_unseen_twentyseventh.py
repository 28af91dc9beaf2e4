"""Held-out outputs (group ``unseen-27``): a twenty-seventh batch, image, audio and document file checkers run on
files made inside the scenario.

Failing runs: ``pngcheck -v`` over 80 product thumbnails where one has a flipped byte in the stored CRC of its
image data, ``jpeginfo -c`` over 60 upload photos where one was cut short, ``flac -t`` over 60 call recordings (WAVs
made with Python's ``wave`` module, encoded with ``flac``) where one frame is damaged, ``qpdf --check`` over 30
invoice PDFs where one has a cross-reference table that points to the wrong offsets, ``gifsicle --info`` over 20
spinner GIFs where one is an HTML error page, ``optipng -simulate`` over 40 PNG icons where one has a broken IHDR
and ImageMagick ``identify -regard-warnings`` over 40 catalog images where one JPEG was cut short. Clean runs whose
text talks about errors: ``pngcheck -v`` over banners such as ``error-banner.png`` and ``failed-payment.png``,
``jpeginfo -c`` over ``failed-upload.jpg`` and other ``error-*`` photos, ``pdfinfo`` and ``pdffonts`` of a PDF
titled "Error handling" among other manuals and ``exiftool -validate -warning -a`` over ``error-*`` and
``failed-*`` images. PNGs are written with ``zlib`` and ``struct``, JPEGs and GIFs with Pillow, PDFs by hand; every
file has a fixed mtime, so the outputs are the same on every run. Labels were written with each scenario, before
the engine saw the output. Needs Debian ``pngcheck``, ``jpeginfo``, ``flac``, ``qpdf``, ``poppler-utils``,
``gifsicle``, ``optipng``, ``imagemagick`` and ``libimage-exiftool-perl``.
"""

from __future__ import annotations

import io
import random
import struct
import wave
import zlib
from pathlib import Path

from _harness import WORDS, case, scrub, sh

GROUP = "unseen-27"

_MTIME = "2026-03-02 09:00:00"


def _touch(root: Path) -> None:
    sh(f"find . -exec touch -h -d '{_MTIME}' {{}} +", root)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _png(seed: int, width: int, height: int, *, text: str = "") -> bytes:
    """An RGB PNG of noisy stripes (fixed seed), optionally with a tEXt Title."""
    rng = random.Random(seed)
    rows = b""
    for y in range(height):
        base = (seed * 37 + y * 3) % 256
        rows += b"\x00" + bytes((base + rng.randrange(24)) % 256 for _ in range(width * 3))
    out = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    if text:
        out += _chunk(b"tEXt", b"Title\x00" + text.encode())
    out += _chunk(b"IDAT", zlib.compress(rows, 9)) + _chunk(b"IEND", b"")
    return out


def _jpeg(seed: int, width: int, height: int) -> bytes:
    from PIL import Image

    rng = random.Random(seed)
    img = Image.new("RGB", (width, height), ((seed * 53) % 256, (seed * 97) % 256, (seed * 31) % 256))
    px = img.load()
    for _ in range(width * height // 8):
        px[rng.randrange(width), rng.randrange(height)] = (rng.randrange(256), rng.randrange(256), rng.randrange(256))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=85)
    return buf.getvalue()


def _gif(seed: int, frames: int) -> bytes:
    from PIL import Image

    imgs = []
    for f in range(frames):
        img = Image.new("P", (48, 48), 0)
        img.putpalette([(i * 7 + seed) % 256 for i in range(768)])
        px = img.load()
        for i in range(48):
            px[(i + f * 5) % 48, i] = 1 + (seed + f) % 200
            px[i, (i * 3 + f) % 48] = 2 + (seed * 3 + f) % 200
        imgs.append(img)
    buf = io.BytesIO()
    imgs[0].save(buf, "GIF", save_all=True, append_images=imgs[1:], duration=80, loop=0)
    return buf.getvalue()


# ---------------------------------------------------------------- pngcheck


@case(
    "pngcheck_v_eighty_thumbnails_one_bad_crc",
    "pngcheck -v (80 PNG files)",
    clean=False,
    group=GROUP,
    decisive=[
        "CRC error in chunk IDAT (computed 7369cd10, expected 7333cd10)",
        "ERRORS DETECTED in thumbs/pricing-thumb-2.png",
        "Errors were detected in 1 of the 80 files tested.",
    ],
)
def _pngcheck_bad(root: Path) -> bytes:
    (root / "thumbs").mkdir()
    for n, area in enumerate(WORDS):
        for k in range(4):
            data = _png(n * 4 + k, 24 + k * 4, 16 + k * 2)
            if area == "pricing" and k == 2:
                b = bytearray(data)
                at = b.find(b"IDAT")
                end = at + 4 + struct.unpack(">I", b[at - 4 : at])[0]
                b[end + 1] ^= 0x5A  # a flipped byte in the stored CRC of the image data
                data = bytes(b)
            (root / "thumbs" / f"{area}-thumb-{k}.png").write_bytes(data)
    _touch(root)
    return scrub(sh("pngcheck -v thumbs/*.png", root), root)


@case(
    "pngcheck_v_error_banners_clean",
    "pngcheck -v (banners named error-*, failed-*)",
    clean=True,
    group=GROUP,
    decisive=["No errors were detected in 30 of the 30 files tested."],
)
def _pngcheck_clean(root: Path) -> bytes:
    (root / "banners").mkdir()
    names = ["error-banner", "failed-payment", "retry-later", "session-expired", "auth-error", "exceptions-chart"]
    names += [f"{area}-error-state" for area in WORDS[:12]] + [f"{area}-failed" for area in WORDS[:12]]
    for n, name in enumerate(names):
        title = f"Error banner: {name.replace('-', ' ')} (failed request)"
        (root / "banners" / f"{name}.png").write_bytes(_png(200 + n, 40, 12, text=title))
    _touch(root)
    return scrub(sh("pngcheck -v -t banners/*.png", root), root)


# ---------------------------------------------------------------- jpeginfo


@case(
    "jpeginfo_c_sixty_uploads_one_truncated",
    "jpeginfo -c (60 JPEG files)",
    clean=False,
    group=GROUP,
    decisive=[
        "uploads/shipping-photo-1.jpg       80 x   48 24bit N JFIF",
        "1820 WARNING Premature end of JPEG file",
        "[exit status 1]",
    ],
)
def _jpeginfo_bad(root: Path) -> bytes:
    (root / "uploads").mkdir()
    for n, area in enumerate(WORDS):
        for k in range(3):
            data = _jpeg(n * 3 + k, 64 + k * 16, 48)
            if area == "shipping" and k == 1:
                data = data[: len(data) * 2 // 3]  # the upload was cut short
            (root / "uploads" / f"{area}-photo-{k}.jpg").write_bytes(data)
    _touch(root)
    return scrub(sh("jpeginfo -c uploads/*.jpg", root), root)


@case(
    "jpeginfo_c_failed_upload_photos_clean",
    "jpeginfo -c (photos named failed-*, error-*)",
    clean=True,
    group=GROUP,
    decisive=["failed-upload.jpg                  80 x   60 24bit N JFIF                        3008 OK"],
)
def _jpeginfo_clean(root: Path) -> bytes:
    names = ["failed-upload", "error-screen", "error-404", "failed-checkout", "exceptions-dashboard"]
    names += [f"{area}-failed" for area in WORDS[:15]]
    for n, name in enumerate(names):
        (root / f"{name}.jpg").write_bytes(_jpeg(300 + n, 80, 60))
    _touch(root)
    return scrub(sh("jpeginfo -c *.jpg", root), root)


# ---------------------------------------------------------------- flac


def _wav(path: Path, seed: int, seconds: float) -> None:
    rng = random.Random(seed)
    rate = 8000
    frames = bytearray()
    level = 0
    for _ in range(int(rate * seconds)):
        level = max(-12000, min(12000, level + rng.randrange(-900, 901)))
        frames += struct.pack("<h", level)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(bytes(frames))


@case(
    "flac_t_sixty_recordings_one_damaged_frame",
    "flac -t (60 files)",
    clean=False,
    group=GROUP,
    decisive=[
        "refunds-call-2.flac: *** Got error code 2:FLAC__STREAM_DECODER_ERROR_STATUS_FRAME_CRC_MISMATCH",
        "refunds-call-2.flac: ERROR while decoding data",
    ],
)
def _flac_bad(root: Path) -> bytes:
    (root / "calls").mkdir()
    for n, area in enumerate(WORDS):
        for k in range(3):
            _wav(root / "calls" / f"{area}-call-{k}.wav", n * 3 + k, 1.0 + k * 0.25)
    sh("flac -s -8 --no-seektable calls/*.wav && rm calls/*.wav", root)
    bad = root / "calls" / "refunds-call-2.flac"
    b = bytearray(bad.read_bytes())
    for i in range(len(b) // 2, len(b) // 2 + 24):
        b[i] ^= 0xA5
    bad.write_bytes(bytes(b))
    _touch(root)
    return scrub(sh("flac -t calls/*.flac", root), root)


# ---------------------------------------------------------------- PDFs


def _pdf(title: str, lines: list[str], *, break_xref: bool = False) -> bytes:
    """A one-page PDF with a Helvetica text stream and an Info title, written object by object."""
    content = "BT /F1 11 Tf 50 780 Td 14 TL\n" + "".join(f"({t}) Tj T*\n" for t in lines) + "ET\n"
    objs = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> "
        "/Contents 5 0 R >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Length {len(content)} >>\nstream\n{content}endstream",
        f"<< /Title ({title}) /Author (Shop docs team) /Producer (handwritten) "
        "/CreationDate (D:20260302090000Z) /ModDate (D:20260302090000Z) >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n{body}\nendobj\n".encode()
    xref_at = len(out)
    if break_xref:
        offsets = [o + 7 for o in offsets]
        xref_at += 11
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n{xref_at}\n%%EOF\n".encode()
    return out


@case(
    "qpdf_check_thirty_invoices_one_broken_xref",
    "qpdf --check (loop over 30 PDFs)",
    clean=False,
    group=GROUP,
    decisive=[
        "WARNING: invoices/invoice-2026-0217.pdf: file is damaged",
        "WARNING: invoices/invoice-2026-0217.pdf (offset 850): xref not found",
        "qpdf: operation succeeded with warnings",
    ],
)
def _qpdf_bad(root: Path) -> bytes:
    (root / "invoices").mkdir()
    for k in range(30):
        name = f"invoice-2026-02{k + 1:02d}"
        lines = [f"Invoice {name}", f"Customer acct-{(k * 7919) % 100000:05d}"]
        lines += [f"{area}: {(k * 37 + i) % 1000}.{i:02d} EUR" for i, area in enumerate(WORDS[:8])]
        data = _pdf(f"Invoice {name}", lines, break_xref=(k == 16))
        (root / "invoices" / f"{name}.pdf").write_bytes(data)
    _touch(root)
    script = 'for f in invoices/*.pdf; do echo "== $f"; qpdf --check "$f" || echo "qpdf exit $? for $f"; done'
    return scrub(sh(script, root), root)


@case(
    "pdfinfo_manuals_error_handling_title_clean",
    "pdfinfo (loop over 12 PDFs)",
    clean=True,
    group=GROUP,
    decisive=["Title:           Error handling"],
)
def _pdfinfo_clean(root: Path) -> bytes:
    titles = ["Error handling", "Failed payments runbook", "Retry and backoff", "Exceptions reference"]
    titles += [f"{area.capitalize()} service guide" for area in WORDS[:8]]
    for n, title in enumerate(titles):
        lines = [title, "Errors are logged with their request id.", "A failed job is retried three times."]
        (root / f"manual-{n:02d}.pdf").write_bytes(_pdf(title, lines))
    _touch(root)
    script = 'for f in manual-*.pdf; do echo "== $f"; pdfinfo "$f"; pdffonts "$f"; done'
    return scrub(sh(script, root, env={"TZ": "UTC"}), root)


# ---------------------------------------------------------------- gifsicle


@case(
    "gifsicle_info_spinners_one_html_error_page",
    "gifsicle --info (20 GIF files, one an HTML error page)",
    clean=False,
    group=GROUP,
    decisive=["gifsicle:spinners/coupons-spinner.gif: file not in GIF format", "[exit status 1]"],
)
def _gifsicle_bad(root: Path) -> bytes:
    (root / "spinners").mkdir()
    for n, area in enumerate(WORDS):
        data = _gif(n, 6)
        if area == "coupons":  # the CDN answered the download with an error page
            data = b"<html><head><title>502 Bad Gateway</title></head><body>upstream failed</body></html>\n"
        (root / "spinners" / f"{area}-spinner.gif").write_bytes(data)
    _touch(root)
    return scrub(sh("gifsicle --info spinners/*.gif", root), root)


# ---------------------------------------------------------------- optipng


@case(
    "optipng_simulate_forty_icons_one_bad_ihdr",
    "optipng -simulate (40 PNG files)",
    clean=False,
    group=GROUP,
    decisive=[
        "** Processing: icons/ledger-icon-1.png",
        "Error: IHDR: CRC error",
        "1 error(s) have been encountered.",
    ],
)
def _optipng_bad(root: Path) -> bytes:
    (root / "icons").mkdir()
    for n, area in enumerate(WORDS):
        for k in range(2):
            data = _png(500 + n * 2 + k, 16, 16)
            if area == "ledger" and k == 1:
                b = bytearray(data)
                b[16:20] = struct.pack(">I", 0)  # width 0 in IHDR (CRC left as is)
                data = bytes(b)
            (root / "icons" / f"{area}-icon-{k}.png").write_bytes(data)
    _touch(root)
    return scrub(sh("optipng -simulate -o2 icons/*.png", root), root)


# ---------------------------------------------------------------- exiftool


@case(
    "exiftool_validate_error_images_clean",
    "exiftool -validate -warning -a (images named error-*, failed-*)",
    clean=True,
    group=GROUP,
    decisive=["17 image files read"],
)
def _exiftool_clean(root: Path) -> bytes:
    for n, name in enumerate(
        ["failed-upload", "error-screen", "failed-refund", "exceptions-chart"] + [f"{a}-error" for a in WORDS[:10]]
    ):
        (root / f"{name}.jpg").write_bytes(_jpeg(700 + n, 64, 48))
    for n, name in enumerate(["error-banner", "failed-login", "retry-error"]):
        (root / f"{name}.png").write_bytes(_png(800 + n, 32, 12, text=f"Error banner {name}"))
    _touch(root)
    cmd = "exiftool -validate -warning -a -G1 --System:FileAccessDate --System:FileInodeChangeDate *.jpg *.png"
    return scrub(sh(cmd, root, env={"TZ": "UTC"}), root)


# ---------------------------------------------------------------- ImageMagick


@case(
    "identify_regard_warnings_catalog_one_truncated_jpeg",
    "identify -regard-warnings (loop over 40 images, ImageMagick)",
    clean=False,
    group=GROUP,
    decisive=[
        "identify-im6.q16: Premature end of JPEG file `catalog/search-hero.jpg'",
        "identify failed on catalog/search-hero.jpg",
    ],
)
def _identify_bad(root: Path) -> bytes:
    (root / "catalog").mkdir()
    for n, area in enumerate(WORDS):
        data = _jpeg(900 + n, 72, 40)
        if area == "search":
            data = data[: len(data) * 2 // 3]  # the upload stopped two thirds in
        (root / "catalog" / f"{area}-hero.jpg").write_bytes(data)
        (root / "catalog" / f"{area}-swatch.png").write_bytes(_png(950 + n, 28, 18))
    _touch(root)
    script = (
        'for f in catalog/*; do identify -regard-warnings -format "%f %m %wx%h %[colorspace] %z-bit %k colors\\n" "$f" '
        '|| echo "identify failed on $f"; done'
    )
    return scrub(sh(script, root), root)
