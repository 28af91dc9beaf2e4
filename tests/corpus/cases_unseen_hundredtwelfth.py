"""Held-out outputs (group ``unseen-112``): a hundred-and-twelfth batch, device trees and firmware images as an
embedded agent builds them, offline, from Debian's ``device-tree-compiler`` (dtc, fdtdump, fdtget, fdtoverlay),
``u-boot-tools`` (mkimage) and gcc's preprocessor for the ``#include``s of the .dts files.

The boards, their nodes and labels are named after the business words (``failed-payments-terminal``,
``retry-kiosk``, ``error_led``, ``retry_button``, ``exception_log``), so clean runs are full of them, and dtc's
``Warning (...)`` lines (unit_address_vs_reg, avoid_unnecessary_addr_size, i2c_bus_reg, gpios_property, "Failed
prerequisite") are everywhere. Failing runs: a kbuild-style script compiling 40 boards where one board re-uses the
``error_led`` label (``ERROR (duplicate_label)``), ``make -k V=1`` over 48 boards where one .dts has a syntax error,
a loop of ``mkimage -f`` building 12 FIT images where one board's .dtb is missing, an ``fdtget`` audit of 40 blobs
where one board has no retry button (``FDT_ERR_NOTFOUND``), and ``fdtoverlay`` applying 20 overlays where one targets
a label the base tree does not have. Clean runs: ``make`` of 40 boards with warnings only, ``dtc -I dtb -O dts`` and
``fdtdump`` of large blobs, ``mkimage -f`` of one FIT image with 40 device trees, and 20 overlays compiled and applied
with ``fdtoverlay -v``. Labels were written with each scenario, before the engine saw the output. Needs Debian
``device-tree-compiler``, ``u-boot-tools``, ``cpp`` and ``make``.
"""

from __future__ import annotations

import random
from pathlib import Path

from _harness import WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-112"

_CPP = "cpp -nostdinc -I include -I dts -undef -D__DTS__ -x assembler-with-cpp"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder."""
    return substitute(
        scrub(out, root),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
    )


def _boards(kinds: tuple[str, ...], count: int) -> list[str]:
    names = [f"{w}-{k}" for k in kinds for w in WORDS]
    names[0] = "failed-payments-terminal"
    return names[:count]


_SOC = """
#include <dt-bindings/gpio.h>
#include <dt-bindings/input.h>

/ {
	#address-cells = <1>;
	#size-cells = <1>;

	cpus {
		#address-cells = <1>;
		#size-cells = <0>;
		cpu0: cpu@0 {
			device_type = "cpu";
			compatible = "arm,cortex-a7";
			reg = <0>;
		};
	};

	soc: soc {
		compatible = "simple-bus";
		#address-cells = <1>;
		#size-cells = <1>;
		ranges;

		gpio0: gpio@10000 {
			compatible = "acme,gpio";
			reg = <0x10000 0x100>;
			gpio-controller;
			#gpio-cells = <2>;
		};

		retry_i2c: i2c@4000 {
			compatible = "acme,i2c";
			#address-cells = <1>;
			#size-cells = <0>;
			reg = <0x4000 0x100>;
			error-led-controller {
				compatible = "nxp,pca9532";
			};
		};

		exception_uart: serial@20000 {
			compatible = "ns16550a";
			reg = <0x20000 0x100>;
			clock-frequency = <48000000>;
			status = "disabled";
		};

		failed_payments_wdt: watchdog@30000 {
			compatible = "acme,wdt";
			reg = <0x30000 0x100>;
			timeout-sec = <30>;
		};
	};

	error_leds: leds {
		compatible = "gpio-leds";
		error_led: error-led {
			label = "error";
			gpios = <&gpio0 3 GPIO_ACTIVE_LOW>;
		};
	};
};
"""


def _board_dts(name: str, i: int, *, defect: str = "") -> str:
    """A board of the family: its model, LEDs, a retry button, an exception log region and some sloppy nodes that
    make dtc warn; ``defect`` is "duplicate_label", "syntax" or "no_retry_button"."""
    title = name.replace("-", " ")
    leds = "".join(
        f"""
	{name.split("-")[0]}_led{k}: {name}-led{k} {{
		label = "{name}:{k}";
		gpios = <&gpio0 {8 + k} GPIO_ACTIVE_HIGH>;
	}};
"""
        for k in range(3)
    )
    button = (
        ""
        if defect == "no_retry_button"
        else f"""
	gpio-keys {{
		compatible = "gpio-keys";
		retry_button: retry-button {{
			label = "retry";
			gpios = <&gpio0 {20 + i % 8} GPIO_ACTIVE_LOW>;
			linux,code = <KEY_RETRY>;
		}};
	}};
"""
    )
    dup = "error_led: " if defect == "duplicate_label" else ""
    broken = ";" if defect != "syntax" else ""
    return f"""/dts-v1/;

#include "acme-soc.dtsi"

/ {{
	model = "Acme {title} rev {chr(65 + i % 5)}";
	compatible = "acme,{name}", "acme,soc";

	chosen {{
		stdout-path = "serial0:115200n8";
		bootargs = "console=ttyS0 exceptions.log=1 retry.max={i % 7 + 1}";
	}};

	memory@80000000 {{
		device_type = "memory";
		reg = <0x80000000 0x{(i % 4 + 1) * 0x10000000:x}>;
	}};

	reserved-memory {{
		#address-cells = <1>;
		#size-cells = <1>;
		ranges;
		exception_log: exception-log@9f000000 {{
			reg = <0x9f000000 0x100000>;
			no-map;
		}};
	}};

	{name}-panel@{0x5000 + i:x} {{
		compatible = "acme,failed-payments-panel";
		status = "okay";
	}};
{button}}};

&error_leds {{
{leds}
	{dup}{name}-status-led {{
		label = "{name}:status";
		gpios = <&soc 30 GPIO_ACTIVE_LOW>;
	}};
}};

&retry_i2c {{
	retry-eeprom@50 {{
		compatible = "atmel,24c02";
		pagesize = <{8 + i % 3 * 8}>{broken}
	}};
}};

&exception_uart {{
	status = "okay";
}};
"""


def _soc_tree(root: Path) -> None:
    write(
        root,
        {
            "include/dt-bindings/gpio.h": "#define GPIO_ACTIVE_HIGH 0\n#define GPIO_ACTIVE_LOW 1\n",
            "include/dt-bindings/input.h": "#define KEY_RETRY 0x1b0\n#define KEY_ERROR 0x1b1\n",
        },
    )
    (root / "dts").mkdir(parents=True, exist_ok=True)
    (root / "dts/acme-soc.dtsi").write_text(_SOC.lstrip("\n"))


def _write_boards(root: Path, names: list[str], defects: dict[str, str]) -> None:
    _soc_tree(root)
    for i, name in enumerate(names):
        (root / f"dts/{name}.dts").write_text(_board_dts(name, i, defect=defects.get(name, "")))


_MAKEFILE = """
BOARDS := {boards}
DTBS := $(patsubst %,build/%.dtb,$(BOARDS))
CPP := {cpp}
DTC := dtc
DTC_FLAGS := -O dtb -b 0 -i dts -Wno-unit_address_format -@

ifeq ($(V),1)
Q :=
else
Q := @
endif

all: $(DTBS)
\t@echo "  OK      $(words $(DTBS)) device tree blobs in build/"

build/%.dtb: dts/%.dts dts/acme-soc.dtsi
\t@mkdir -p build
\t$(if $(Q),@echo "  DTC     $@")
\t$(Q)$(CPP) -Wp,-MD,build/$*.d.pre.tmp -o build/$*.dts.tmp $<
\t$(Q)$(DTC) $(DTC_FLAGS) -o $@ -d build/$*.d.dtc.tmp build/$*.dts.tmp

clean:
\trm -rf build

.PHONY: all clean
"""


def _makefile(root: Path, names: list[str]) -> None:
    (root / "Makefile").write_text(_MAKEFILE.lstrip("\n").format(boards=" ".join(names), cpp=_CPP))


def _build_clean(root: Path, names: list[str]) -> None:
    """Every board of ``names`` compiled (quietly) into build/, for the scenarios that start from blobs."""
    _write_boards(root, names, {})
    _makefile(root, names)
    sh("make -s -j2 all >/dev/null 2>&1", root)


# ---------------------------------------------------------------- dtc over boards


_BUILD_SCRIPT = """
#!/bin/sh
# Build every board's blob the way kbuild does: preprocess, then dtc; keep going and report at the end.
status=0
mkdir -p build
for src in dts/*.dts; do
	b=$(basename "$src" .dts)
	echo "  CPP     build/$b.dts.tmp"
	{cpp} -o "build/$b.dts.tmp" "$src" || {{ status=1; continue; }}
	echo "  DTC     build/$b.dtb"
	dtc -O dtb -b 0 -i dts -@ -o "build/$b.dtb" "build/$b.dts.tmp" || status=1
done
exit $status
"""


@case(
    "u112_dtc_boards_duplicate_label",
    "dtc",
    clean=False,
    group=GROUP,
    decisive=["ERROR (duplicate_label)", "ERROR: Input tree has errors, aborting"],
)
def _dtc_duplicate_label(root: Path) -> bytes:
    names = _boards(("terminal", "gateway"), 40)
    _write_boards(root, names, {"refunds-gateway": "duplicate_label"})
    (root / "build-dtbs.sh").write_text(_BUILD_SCRIPT.lstrip("\n").format(cpp=_CPP))
    return _settle(sh("sh build-dtbs.sh", root), root)


@case(
    "u112_make_boards_syntax_error",
    "make",
    clean=False,
    group=GROUP,
    decisive=["syntax error", "make: *** [Makefile:", "Target 'all' not remade because of errors"],
)
def _make_syntax_error(root: Path) -> bytes:
    names = _boards(("terminal", "gateway", "kiosk"), 48)
    _write_boards(root, names, {"shipping-gateway": "syntax"})
    _makefile(root, names)
    return _settle(sh("make -k -j1 V=1 all", root), root)


@case(
    "u112_make_boards_clean_warnings",
    "make",
    clean=True,
    group=GROUP,
    decisive=["OK      40 device tree blobs in build/"],
)
def _make_clean(root: Path) -> bytes:
    names = _boards(("terminal", "kiosk"), 40)
    _write_boards(root, names, {})
    _makefile(root, names)
    return _settle(sh("make -j1 all", root), root)


# ---------------------------------------------------------------- large blobs


def _big_dts(channels: int) -> str:
    """A payments terminal with many channels, each with its error LED, retry button and exception log."""
    nodes = []
    for c in range(channels):
        area = WORDS[c % len(WORDS)]
        nodes.append(
            f"""
		channel@{c:x} {{
			compatible = "acme,{area}-channel";
			reg = <0x{c:x}>;
			label = "{area}-{c}";
			failed-payments-counter = <0x{c * 7919 % 65536:x}>;
			retry-limit = <{c % 9 + 1}>;
			exception-log = "/var/log/exceptions/{area}-{c}.log";
			error-led {{
				gpios = <&gpio0 {c % 32} 1>;
				default-state = "{("off", "on", "keep")[c % 3]}";
			}};
			retry-button {{
				linux,code = <{0x1B0 + c % 16}>;
				debounce-interval = <{5 + c % 20}>;
			}};
		}};
"""
        )
    return f"""/dts-v1/;

/ {{
	model = "Acme failed-payments terminal, {channels} channels";
	compatible = "acme,failed-payments-terminal";
	#address-cells = <1>;
	#size-cells = <1>;

	gpio0: gpio@10000 {{
		compatible = "acme,gpio";
		reg = <0x10000 0x100>;
		gpio-controller;
		#gpio-cells = <2>;
	}};

	channels {{
		compatible = "acme,payment-channels";
		#address-cells = <1>;
		#size-cells = <0>;
{"".join(nodes)}
	}};
}};
"""


@case(
    "u112_dtc_decompile_large_clean",
    "dtc",
    clean=True,
    group=GROUP,
    decisive=['model = "Acme failed-payments terminal, 1200 channels";'],
)
def _dtc_decompile(root: Path) -> bytes:
    (root / "failed-payments-terminal.dts").write_text(_big_dts(1200))
    sh("dtc -O dtb -o failed-payments-terminal.dtb failed-payments-terminal.dts", root)
    return _settle(sh("dtc -I dtb -O dts failed-payments-terminal.dtb", root), root)


@case(
    "u112_fdtdump_large_clean",
    "fdtdump",
    clean=True,
    group=GROUP,
    decisive=["// totalsize:"],
)
def _fdtdump(root: Path) -> bytes:
    (root / "exceptions-log-gateway.dts").write_text(
        _big_dts(700).replace("failed-payments terminal", "exceptions-log gateway")
    )
    sh("dtc -O dtb -o exceptions-log-gateway.dtb exceptions-log-gateway.dts", root)
    return _settle(sh("fdtdump exceptions-log-gateway.dtb", root), root)


# ---------------------------------------------------------------- FIT images


def _payloads(root: Path) -> None:
    rnd = random.Random(112)
    (root / "build/zImage").write_bytes(rnd.randbytes(200_000))
    (root / "build/rootfs.cpio.gz").write_bytes(rnd.randbytes(120_000))


def _its(boards: list[str], title: str) -> str:
    fdts = "".join(
        f"""
		fdt-{b} {{
			description = "Acme {b.replace("-", " ")} device tree";
			data = /incbin/("build/{b}.dtb");
			type = "flat_dt";
			arch = "arm";
			compression = "none";
			hash-1 {{
				algo = "sha256";
			}};
		}};
"""
        for b in boards
    )
    confs = "".join(
        f"""
		conf-{b} {{
			description = "Boot {b} with the retry-button recovery ramdisk";
			kernel = "kernel";
			ramdisk = "ramdisk";
			fdt = "fdt-{b}";
		}};
"""
        for b in boards
    )
    return f"""/dts-v1/;

/ {{
	description = "{title}";
	#address-cells = <1>;

	images {{
		kernel {{
			description = "Linux kernel with exceptions tracing";
			data = /incbin/("build/zImage");
			type = "kernel";
			arch = "arm";
			os = "linux";
			compression = "none";
			load = <0x80008000>;
			entry = <0x80008000>;
			hash-1 {{
				algo = "crc32";
			}};
			hash-2 {{
				algo = "sha1";
			}};
		}};

		ramdisk {{
			description = "failed-payments recovery ramdisk";
			data = /incbin/("build/rootfs.cpio.gz");
			type = "ramdisk";
			arch = "arm";
			os = "linux";
			compression = "gzip";
			hash-1 {{
				algo = "sha256";
			}};
		}};
{fdts}
	}};

	configurations {{
		default = "conf-{boards[0]}";
{confs}
	}};
}};
"""


@case(
    "u112_mkimage_fit_missing_dtb",
    "mkimage",
    clean=False,
    group=GROUP,
    decisive=['FATAL ERROR: Couldn\'t open "build/tax-gateway.dtb"', "Error: Bad parameters for FIT image type"],
)
def _mkimage_missing(root: Path) -> bytes:
    names = _boards(("terminal", "gateway"), 40)
    _build_clean(root, [n for n in names if n != "tax-gateway"])
    _payloads(root)
    families = [names[k : k + 3] for k in range(0, 36, 3)]
    lines = ["#!/bin/sh", "status=0", "mkdir -p fit"]
    for fam in families:
        its = f"{fam[0]}.its"
        write(root, {its: _its(fam, f"Acme {fam[0]} family FIT image")})
        lines.append(f'echo "  ITB     fit/{fam[0]}.itb"')
        lines.append(f"mkimage -f {its} fit/{fam[0]}.itb || status=1")
    lines.append("exit $status")
    (root / "make-fit.sh").write_text("\n".join(lines) + "\n")
    return _settle(sh("SOURCE_DATE_EPOCH=1700000000 sh make-fit.sh", root), root)


@case(
    "u112_mkimage_fit_clean",
    "mkimage",
    clean=True,
    group=GROUP,
    decisive=["Default Configuration: 'conf-failed-payments-terminal'"],
)
def _mkimage_clean(root: Path) -> bytes:
    names = _boards(("terminal", "kiosk"), 40)
    _build_clean(root, names)
    _payloads(root)
    write(root, {"retry-fleet.its": _its(names, "Acme failed-payments and retry fleet, 40 boards")})
    return _settle(sh("SOURCE_DATE_EPOCH=1700000000 mkimage -f retry-fleet.its retry-fleet.itb", root), root)


# ---------------------------------------------------------------- fdtget audit and overlays


_AUDIT = """
#!/bin/sh
# Check every blob for the nodes the payments firmware relies on.
rc=0
for dtb in build/*.dtb; do
	echo "== $dtb: $(fdtget -t s "$dtb" / model)"
	for prop in "/ compatible" "/chosen bootargs" "/leds/error-led label" "/soc/serial@20000 status"; do
		printf '   %-34s ' "$prop"
		fdtget -t s "$dtb" $prop || rc=1
	done
	printf '   %-34s ' "/gpio-keys/retry-button linux,code"
	fdtget -t x "$dtb" /gpio-keys/retry-button linux,code || rc=1
	printf '   %-34s ' "/reserved-memory exception-log"
	fdtget -l "$dtb" /reserved-memory | tr '\\n' ' '
	echo
	printf '   %-34s ' "/__symbols__"
	fdtget -p "$dtb" /__symbols__ | tr '\\n' ' '
	echo
done
exit $rc
"""


@case(
    "u112_fdtget_audit_missing_node",
    "fdtget",
    clean=False,
    group=GROUP,
    decisive=["Error at '/gpio-keys/retry-button': FDT_ERR_NOTFOUND", "== build/coupons-kiosk.dtb:"],
)
def _fdtget_audit(root: Path) -> bytes:
    names = _boards(("terminal", "kiosk"), 40)
    _write_boards(root, names, {"coupons-kiosk": "no_retry_button"})
    _makefile(root, names)
    sh("make -s -j2 all >/dev/null 2>&1", root)
    (root / "audit-dtbs.sh").write_text(_AUDIT.lstrip("\n"))
    return _settle(sh("sh audit-dtbs.sh", root), root)


def _overlays(root: Path, bad: str = "") -> list[str]:
    names = [f"{w}-addon" for w in WORDS]
    for i, name in enumerate(names):
        target = "&retry_i2c_missing" if name == bad else "&retry_i2c"
        body = f"""/dts-v1/;
/plugin/;

&error_leds {{
	{name}-led {{
		label = "{name}";
		gpios = <&gpio0 {i} 0>;
	}};
}};

{target} {{
	status = "okay";
	{name}-eeprom@{0x50 + i:x} {{
		compatible = "atmel,24c02";
		reg = <0x{0x50 + i:x}>;
	}};
}};

&exception_uart {{
	retry-count = <{i + 1}>;
}};
"""
        write(root, {f"overlays/{name}.dtso": body})
    return names


def _overlay_run(root: Path, bad: str) -> bytes:
    _build_clean(root, ["failed-payments-terminal"])
    names = _overlays(root, bad)
    compile_ = "".join(
        f'echo "  DTCO    build/{n}.dtbo"; dtc -@ -I dts -O dtb -o build/{n}.dtbo overlays/{n}.dtso; ' for n in names
    )
    dtbos = " ".join(f"build/{n}.dtbo" for n in names)
    script = (
        f"{compile_}fdtoverlay -v -i build/failed-payments-terminal.dtb -o build/merged.dtb {dtbos} && "
        "fdtget -l build/merged.dtb /leds && fdtget -l build/merged.dtb /soc/i2c@4000 && "
        "fdtget -t s build/merged.dtb / model"
    )
    return _settle(sh(script, root), root)


@case(
    "u112_fdtoverlay_missing_label",
    "fdtoverlay",
    clean=False,
    group=GROUP,
    decisive=["Failed to apply 'build/refunds-addon.dtbo': FDT_ERR_NOTFOUND"],
)
def _overlay_fail(root: Path) -> bytes:
    return _overlay_run(root, "refunds-addon")


@case(
    "u112_fdtoverlay_apply_clean",
    "fdtoverlay",
    clean=True,
    group=GROUP,
    decisive=["overlay[19] = build/export-addon.dtbo", "Acme failed payments terminal rev A"],
)
def _overlay_clean(root: Path) -> bytes:
    return _overlay_run(root, "")
