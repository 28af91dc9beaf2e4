"""Held-out outputs (group ``unseen-111``): a hundred-and-eleventh batch, schema and IDL compilers other than a lone
protoc as an agent runs them on a generated payments platform's schemas, offline: Cap'n Proto's ``capnp compile``,
FlatBuffers' ``flatc``, Apache Thrift's ``thrift -r --gen`` and protoc over many files, then gcc/g++ on the generated
C++. Every struct, enum, service and file is named after business words (``FailedPayment``, ``ErrorCode``,
``RetryQueue``, ``ExceptionReport``), so clean runs are full of them.

Failing runs: a shell loop of ``capnp compile -ocapnp`` dumping 41 schemas where one event schema names an undefined
type in the middle of the dump, ``make -k`` of the generated Cap'n Proto C++ plus hand-written handlers where one
handler calls an accessor that does not exist, ``make -k`` of per-schema ``flatc`` rules with snake_case warnings on
legacy schemas and one undefined type, ``bash -x`` of a codegen script running ``thrift -r -v`` per service where a
parse error sits three includes deep, and protoc over 60 files with unused-import warnings and one undefined type.
Clean runs: ``capnp compile -oc++`` with ``wc -l`` of the generated tree, ``flatc --cpp`` then g++ and a round-trip
program, ``flatc --python --ts`` with ``ls -R`` of the output, ``thrift -r --gen`` for three languages with ``ls -R``,
and protoc's descriptor set decoded as text. Labels were written with each scenario, before the engine saw the output.
Needs Cap'n Proto 0.9, flatc 2.0, thrift 0.17, protoc, g++ and make (Debian ``capnproto``, ``libcapnp-dev``,
``flatbuffers-compiler``, ``libflatbuffers-dev``, ``thrift-compiler``, ``protobuf-compiler``, ``libprotobuf-dev``,
``g++``, ``make``).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-111"

#: The entities of the payments platform, one schema file each (and one event schema each for Cap'n Proto).
_ENTITIES = [
    "FailedPayment", "RetryQueue", "ExceptionReport", "RefundRequest", "InvoiceLine", "LedgerEntry", "TaxRate",
    "ShippingLabel", "CouponRedemption", "WebhookDelivery", "AuditEvent", "SessionToken", "CartItem", "OrderSummary",
    "PricingRule", "CatalogItem", "SearchQuery", "ExportJob", "BillingAccount", "ErrorBudget",
]  # fmt: skip


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _camel(name: str) -> str:
    return name[0].lower() + name[1:]


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, temporary names, times."""
    return substitute(
        scrub(out, root),
        (r"/tmp/cc[A-Za-z0-9]{6}\.", "/tmp/ccabcdef."),
        (r"\d+\.\d+s elapsed", "0.01s elapsed"),
    )


# ---------------------------------------------------------------- Cap'n Proto


def _capnp_id(name: str) -> str:
    return "@0x%016x;" % (int(hashlib.sha256(name.encode()).hexdigest()[:16], 16) | (1 << 63))


def _capnp_schemas(root: Path, broken: str = "") -> None:
    files = {
        "schemas/error_code.capnp": _capnp_id("error_code")
        + "\n"
        + """
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("payments");

enum ErrorCode {
  none @0;
  cardDeclined @1;
  insufficientFunds @2;
  gatewayTimeout @3;
  retryExhausted @4;
  fraudSuspected @5;
  internalError @6;
}

struct ErrorDetail {
  code @0 :ErrorCode;
  message @1 :Text;
  retryable @2 :Bool;
  failedAt @3 :Int64;
}
"""
    }
    for name in _ENTITIES:
        snake = _snake(name)
        files[f"schemas/{snake}.capnp"] = (
            _capnp_id(snake)
            + f"""
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("payments");
using Err = import "error_code.capnp";

# {name}: a record of the payments platform.
struct {name} {{
  id @0 :UInt64;
  accountId @1 :UInt64;
  errorCode @2 :Err.ErrorCode;
  failedAt @3 :Int64;
  retryCount @4 :UInt32;
  exceptionMessage @5 :Text;
  amountCents @6 :Int64;
  currency @7 :Text;
  status @8 :Status;
  errors @9 :List(Err.ErrorDetail);
  labels @10 :List(Text);

  enum Status {{
    ok @0;
    failed @1;
    retrying @2;
    abandoned @3;
  }}
}}
"""
        )
        retry_type = "Duration" if name == broken else "UInt32"
        files[f"schemas/{snake}_event.capnp"] = (
            _capnp_id(snake + "_event")
            + f"""
using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("payments");
using E = import "{snake}.capnp";
using Err = import "error_code.capnp";

struct {name}Event {{
  entity @0 :E.{name};
  occurredAt @1 :Int64;
  kind @2 :Kind;
  retryAfter @3 :{retry_type};
  union {{
    none @4 :Void;
    error @5 :Err.ErrorDetail;
  }}

  enum Kind {{
    created @0;
    failed @1;
    retried @2;
    resolved @3;
  }}
}}
"""
        )
    write(root, files)


@case(
    "u111_capnp_dump_error",
    "capnp compile",
    clean=False,
    group=GROUP,
    decisive=["error: Not defined: Duration", "[exit status 1]"],
)
def _capnp_dump_error(root: Path) -> bytes:
    _capnp_schemas(root, broken="RetryQueue")
    loop = (
        'status=0; for f in schemas/*.capnp; do capnp compile --src-prefix=schemas -I schemas -ocapnp "$f"'
        " || status=1; done; exit $status"
    )
    return _settle(sh(loop, root), root)


@case(
    "u111_capnp_cxx_clean",
    "capnp compile",
    clean=True,
    group=GROUP,
    decisive=[" total"],
)
def _capnp_cxx_clean(root: Path) -> bytes:
    _capnp_schemas(root)
    (root / "gen").mkdir()
    cmd = (
        "capnp compile --verbose --src-prefix=schemas -I schemas -oc++:gen schemas/*.capnp"
        " && capnp compile --src-prefix=schemas -I schemas -ocapnp schemas/*.capnp && wc -l gen/*"
    )
    return _settle(sh(cmd, root), root)


def _handler(snake: str, broken: bool) -> str:
    name = "".join(p.capitalize() for p in snake.split("_"))
    getter = "getRetryCnt" if broken else "getRetryCount"
    return f"""#include <capnp/message.h>
#include <capnp/serialize.h>
#include <cstdio>
#include "{snake}.capnp.h"
#include "{snake}_event.capnp.h"

// Handles {name} records: counts failures and retries for the error dashboard.
int handle_{snake}(kj::ArrayPtr<const capnp::word> words) {{
  capnp::FlatArrayMessageReader message(words);
  auto event = message.getRoot<payments::{name}Event>();
  auto entity = event.getEntity();
  unsigned retries = entity.{getter}();
  if (entity.getErrorCode() != payments::ErrorCode::NONE) {{
    std::printf("{snake}: %llu failed with %u retries\\n", (unsigned long long)entity.getId(), retries);
  }}
  return event.isError() ? 1 : 0;
}}
"""


@case(
    "u111_capnp_gxx_error",
    "make (g++ on capnp C++)",
    clean=False,
    group=GROUP,
    decisive=["has no member named ‘getRetryCnt’", "src/retry_queue_handler.c++:12:29:", "Target 'all' not remade"],
)
def _capnp_gxx_error(root: Path) -> bytes:
    _capnp_schemas(root)
    handlers = [_snake(e) for e in _ENTITIES]
    write(root, {f"src/{h}_handler.c++": _handler(h, h == "retry_queue") for h in handlers})
    write(
        root,
        {
            "Makefile": """
            SCHEMAS := $(sort $(wildcard schemas/*.capnp))
            GEN_SRC := $(patsubst schemas/%,gen/%.c++,$(SCHEMAS))
            OBJS := $(patsubst gen/%.c++,build/%.o,$(GEN_SRC)) \\
                    $(patsubst src/%.c++,build/%.o,$(sort $(wildcard src/*.c++)))
            CXXFLAGS := -std=c++17 -O0 -Wall -Igen

            all: build/libpayments.a

            gen/.stamp: $(SCHEMAS)
            \tmkdir -p gen build
            \tcapnp compile --src-prefix=schemas -I schemas -oc++:gen $(SCHEMAS)
            \ttouch $@

            build/%.capnp.o: gen/.stamp
            \tg++ $(CXXFLAGS) -c gen/$*.capnp.c++ -o $@

            build/%.o: src/%.c++ gen/.stamp
            \tg++ $(CXXFLAGS) -c $< -o $@

            build/libpayments.a: $(OBJS)
            \tar rcs $@ $^
            """.replace("            ", "").replace("\\t", "\t")
        },
    )
    return _settle(sh("make -k -j1", root, timeout=900), root)


# ---------------------------------------------------------------- FlatBuffers


def _fbs(root: Path, broken: str = "", legacy: bool = True) -> list[str]:
    files = {
        "schemas/error_code.fbs": """
        namespace payments.errors;

        enum ErrorCode : short {
          None = 0,
          CardDeclined,
          InsufficientFunds,
          GatewayTimeout,
          RetryExhausted,
          FraudSuspected,
          InternalError,
        }

        table ErrorDetail {
          code: ErrorCode;
          message: string;
          retryable: bool;
          failed_at: long;
        }
        """
    }
    names = ["error_code"]
    for i, name in enumerate(_ENTITIES):
        snake = _snake(name)
        names.append(snake)
        old = legacy and i % 3 == 1  # the legacy schemas still carry camelCase field names
        retry, failed = ("retryCount", "failedAt") if old else ("retry_count", "failed_at")
        tax = "TaxRat" if name == broken else "TaxRate"
        extra = f"  tax: payments.billing.{tax};\n" if name in ("InvoiceLine", "OrderSummary") else ""
        include = 'include "tax_rate.fbs";\n' if extra else ""
        files[f"schemas/{snake}.fbs"] = (
            f'include "error_code.fbs";\n{include}\nnamespace payments.billing;\n\n'
            f"enum {name}Status : byte {{ Ok, Failed, Retrying, Abandoned }}\n\n"
            f"table {name} {{\n  id: ulong;\n  account_id: ulong;\n  error_code: payments.errors.ErrorCode;\n"
            f"  {failed}: long;\n  {retry}: uint;\n  exception_message: string;\n  amount_cents: long;\n"
            f"  currency: string;\n  status: {name}Status;\n  errors: [payments.errors.ErrorDetail];\n{extra}}}\n\n"
            f"root_type {name};\n"
        )
    write(root, files)
    return names


@case(
    "u111_flatc_make_error",
    "make (flatc)",
    clean=False,
    group=GROUP,
    decisive=[
        "error: type referenced but not defined (check namespace): payments.billing.TaxRat",
        "gen/cpp/invoice_line_generated.h] Error 1",
    ],
)
def _flatc_make_error(root: Path) -> bytes:
    _fbs(root, broken="InvoiceLine")
    write(
        root,
        {
            "Makefile": """
            SCHEMAS := $(sort $(wildcard schemas/*.fbs))
            HEADERS := $(patsubst schemas/%.fbs,gen/cpp/%_generated.h,$(SCHEMAS))

            all: $(HEADERS)

            gen/cpp/%_generated.h: schemas/%.fbs
            \t@mkdir -p gen/cpp gen/py gen/ts
            \tflatc --cpp --gen-object-api --gen-compare --scoped-enums -I schemas -o gen/cpp $<
            \tflatc --python -I schemas -o gen/py $<
            \tflatc --ts -I schemas -o gen/ts $<
            """.replace("            ", "").replace("\\t", "\t")
        },
    )
    return _settle(sh("make -k -j1", root), root)


_ROUNDTRIP = """#include <cstdio>
#include <cstring>
#include "flatbuffers/flatbuffers.h"
{includes}

using namespace payments::billing;
using payments::errors::ErrorCode;

template <typename T, typename F>
static int check(const char *name, const char *path, F build) {{
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(build(fbb));
  flatbuffers::Verifier verifier(fbb.GetBufferPointer(), fbb.GetSize());
  bool ok = verifier.VerifyBuffer<T>(nullptr);
  auto root = flatbuffers::GetRoot<T>(fbb.GetBufferPointer());
  FILE *out = std::fopen(path, "wb");
  std::fwrite(fbb.GetBufferPointer(), 1, fbb.GetSize(), out);
  std::fclose(out);
  std::printf("%-20s %4u bytes  verified=%s  error_code=%d  retry_count=%u\\n", name, (unsigned)fbb.GetSize(),
              ok ? "yes" : "no", (int)root->error_code(), (unsigned)root->retry_count());
  return ok ? 0 : 1;
}}

int main() {{
  int bad = 0;
{checks}
  std::printf("round-trip: %d tables checked, %d not verified\\n", {n}, bad);
  return bad;
}}
"""


@case(
    "u111_flatc_gxx_clean",
    "flatc + g++",
    clean=True,
    group=GROUP,
    decisive=["round-trip: 20 tables checked, 0 not verified"],
)
def _flatc_gxx_clean(root: Path) -> bytes:
    names = _fbs(root, legacy=False)
    checks = []
    for i, name in enumerate(_ENTITIES):
        code = "ErrorCode::RetryExhausted" if i % 2 else "ErrorCode::GatewayTimeout"
        path = f"build/{_snake(name)}.bin"
        checks.append(
            f'  bad += check<{name}>("{name}", "{path}", [](flatbuffers::FlatBufferBuilder &b) {{\n'
            f'    auto msg = b.CreateString("{name} failed: retry later");\n'
            f"    {name}Builder t(b);\n    t.add_id({1000 + i});\n    t.add_error_code({code});\n"
            f"    t.add_retry_count({i % 5});\n    t.add_exception_message(msg);\n    return t.Finish();\n  }});"
        )
    includes = "\n".join(f'#include "{n}_generated.h"' for n in names)
    write(root, {"src/roundtrip.cc": _ROUNDTRIP.format(includes=includes, checks="\n".join(checks), n=len(_ENTITIES))})
    cmd = (
        "set -x; mkdir -p gen build && flatc --cpp --gen-object-api --scoped-enums -I schemas -o gen schemas/*.fbs"
        " && ls -l gen | awk '{print $5, $9}'"
        " && g++ -std=c++17 -O0 -Wall -Wextra -Igen -o build/roundtrip src/roundtrip.cc && ./build/roundtrip"
        " && for f in build/*.bin; do flatc --json --strict-json --raw-binary -I schemas -o build/json"
        " schemas/$(basename $f .bin).fbs -- $f; done && cat build/json/*.json"
    )
    return _settle(sh(cmd, root), root)


@case(
    "u111_flatc_python_ts_clean",
    "flatc",
    clean=True,
    group=GROUP,
    decisive=["gen/python/payments/billing:", "gen/ts/payments/errors:"],
)
def _flatc_python_ts_clean(root: Path) -> bytes:
    _fbs(root, legacy=False)
    cmd = (
        "for lang in python ts go java kotlin csharp; do mkdir -p gen/$lang"
        " && flatc --$lang --gen-object-api -I schemas -o gen/$lang schemas/*.fbs || exit 1; done && ls -R gen"
    )
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- Thrift

_SERVICES = {
    "billing": ["FailedPayment", "InvoiceLine", "BillingAccount", "TaxRate"],
    "retry_queue": ["RetryQueue", "FailedPayment", "ErrorBudget"],
    "exception_reports": ["ExceptionReport", "AuditEvent", "ErrorBudget"],
    "refunds": ["RefundRequest", "LedgerEntry", "FailedPayment"],
    "ledger": ["LedgerEntry", "InvoiceLine", "TaxRate"],
    "shipping": ["ShippingLabel", "OrderSummary", "CartItem"],
    "coupons": ["CouponRedemption", "PricingRule", "CartItem"],
    "webhooks": ["WebhookDelivery", "AuditEvent", "FailedPayment"],
    "sessions": ["SessionToken", "AuditEvent"],
    "catalog": ["CatalogItem", "SearchQuery", "PricingRule"],
    "exports": ["ExportJob", "AuditEvent", "ExceptionReport"],
}


def _thrift(root: Path, broken: bool = False) -> None:
    files = {
        "idl/common/errors.thrift": """
        namespace py payments.common.errors
        namespace java com.example.payments.errors
        namespace cpp payments.errors

        enum ErrorCode {
          NONE = 0,
          CARD_DECLINED = 1,
          INSUFFICIENT_FUNDS = 2,
          GATEWAY_TIMEOUT = 3,
          RETRY_EXHAUSTED = 4,
          FRAUD_SUSPECTED = 5,
          INTERNAL_ERROR = 6,
        }

        exception FailedPaymentException {
          1: ErrorCode code,
          2: string message,
          3: bool retryable,
        }

        exception RetryExhaustedException {
          1: i32 attempts,
          2: string lastError,
        }
        """,
        "idl/common/retry_policy.thrift": """
        include "errors.thrift"

        namespace py payments.common.retry_policy
        namespace java com.example.payments.retrypolicy
        namespace cpp payments.retrypolicy

        struct RetryPolicy {
          1: i32 maxAttempts = 5,
          2: i64 backoffMs = 250,
          3: list<errors.ErrorCode> retryOn,
          4: optional string deadLetterQueue,
        }

        const RetryPolicy DEFAULT_RETRY = {"maxAttempts": 5, "backoffMs": 250}
        """,
    }
    if broken:  # a field list missing its closing brace before the next definition
        files["idl/common/retry_policy.thrift"] = files["idl/common/retry_policy.thrift"].replace(
            "4: optional string deadLetterQueue,\n        }", "4: optional string deadLetterQueue,\n"
        )
    for name in _ENTITIES:
        snake = _snake(name)
        uses_policy = name == "RefundRequest"
        inc = 'include "../common/retry_policy.thrift"\n' if uses_policy else ""
        policy = "  12: optional retry_policy.RetryPolicy retryPolicy,\n" if uses_policy else ""
        legacy = "  string legacyReference,\n" if name in ("LedgerEntry", "ExportJob") else ""
        files[f"idl/domain/{snake}.thrift"] = (
            f'include "../common/errors.thrift"\n{inc}\n'
            f"namespace py payments.domain.{snake}\nnamespace java com.example.payments.domain\n"
            f"namespace cpp payments.domain\n\n"
            f"enum {name}Status {{ OK = 0, FAILED = 1, RETRYING = 2, ABANDONED = 3 }}\n\n"
            f"struct {name} {{\n  1: required i64 id,\n  2: i64 accountId,\n  3: errors.ErrorCode errorCode,\n"
            f"  4: i64 failedAt,\n  5: i32 retryCount,\n  6: optional string exceptionMessage,\n"
            f"  7: i64 amountCents,\n  8: string currency,\n  9: {name}Status status,\n"
            f"  10: list<string> labels,\n  11: map<string, string> attributes,\n{policy}{legacy}}}\n"
        )
    for svc, ents in _SERVICES.items():
        svc_name = "".join(p.capitalize() for p in svc.split("_")) + "Service"
        incs = "".join(f'include "../domain/{_snake(e)}.thrift"\n' for e in ents)
        methods = ""
        for e in ents:
            m, s = _camel(e), _snake(e)
            methods += (
                f"  {s}.{e} get{e}(1: i64 id) throws (1: errors.FailedPaymentException failed),\n"
                f"  list<{s}.{e}> listFailed{e}s(1: i64 accountId, 2: i32 limit),\n"
                f"  void retry{e}(1: i64 id) throws (1: errors.RetryExhaustedException exhausted),\n"
                f"  oneway void report{e}Exception(1: {s}.{e} {m}, 2: string stackTrace),\n"
            )
        files[f"idl/services/{svc}.thrift"] = (
            f'include "../common/errors.thrift"\n{incs}\nnamespace py payments.services.{svc}\n'
            f"namespace java com.example.payments.services\nnamespace cpp payments.services\n\n"
            f"service {svc_name} {{\n{methods}}}\n"
        )
    write(root, files)


_CODEGEN = """#!/bin/bash
# Regenerates the Thrift stubs of every service for Python, Java and C++.
for idl in idl/services/*.thrift; do
  svc=$(basename "$idl" .thrift)
  mkdir -p "gen/$svc"
  thrift -r -v --gen py --gen java --gen cpp -o "gen/$svc" "$idl"
done
find gen -type f | wc -l
"""


@case(
    "u111_thrift_include_parse_error",
    "thrift",
    clean=False,
    group=GROUP,
    decisive=["[ERROR:/tmp/work/idl/common/retry_policy.thrift:", "Parser error during include pass"],
)
def _thrift_parse_error(root: Path) -> bytes:
    _thrift(root, broken=True)
    write(root, {"scripts/codegen.sh": _CODEGEN})
    return _settle(sh("bash -x scripts/codegen.sh 2>&1", root), root)


@case(
    "u111_thrift_gen_ls_clean",
    "thrift",
    clean=True,
    group=GROUP,
    decisive=["gen/exception_reports/gen-java/com/example/payments/services:", "ExceptionReportsService.java"],
)
def _thrift_clean(root: Path) -> bytes:
    _thrift(root)
    cmd = (
        "for idl in idl/services/*.thrift; do svc=$(basename $idl .thrift); mkdir -p gen/$svc;"
        " thrift -r --gen py --gen java --gen cpp -o gen/$svc $idl || exit 1; done && ls -R gen"
    )
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- protoc


def _protos(root: Path, broken: str = "") -> None:
    files = {
        "proto/payments/common/errors.proto": """
        syntax = "proto3";
        package payments.common;

        enum ErrorCode {
          ERROR_CODE_UNSPECIFIED = 0;
          ERROR_CODE_CARD_DECLINED = 1;
          ERROR_CODE_GATEWAY_TIMEOUT = 2;
          ERROR_CODE_RETRY_EXHAUSTED = 3;
        }

        message ErrorDetail {
          ErrorCode code = 1;
          string message = 2;
          bool retryable = 3;
        }
        """,
        "proto/payments/common/money.proto": """
        syntax = "proto3";
        package payments.common;

        message Money {
          int64 cents = 1;
          string currency = 2;
        }
        """,
    }
    for i, name in enumerate(_ENTITIES):
        snake = _snake(name)
        area = ["billing", "retry", "errors", "refunds", "ledger"][i % 5]
        money = "payments.common.Money" if name != broken else "payments.common.Mony"
        for kind in ("", "_event", "_service"):
            path = f"proto/payments/{area}/{snake}{kind}.proto"
            imports = 'import "payments/common/errors.proto";\nimport "payments/common/money.proto";\n'
            if kind == "":
                body = (
                    f"message {name} {{\n  uint64 id = 1;\n  payments.common.ErrorCode error_code = 2;\n"
                    f"  int64 failed_at = 3;\n  uint32 retry_count = 4;\n  string exception_message = 5;\n"
                    f"  {money} amount = 6;\n  repeated payments.common.ErrorDetail errors = 7;\n}}\n"
                )
                if i % 4 == 3:  # money.proto imported but not used in these
                    body = body.replace(f"  {money} amount = 6;\n", "  int64 amount_cents = 6;\n")
            elif kind == "_event":
                imports += f'import "payments/{area}/{snake}.proto";\n'
                body = (
                    f"message {name}Event {{\n  {name} entity = 1;\n  int64 occurred_at = 2;\n"
                    f"  bool failed = 3;\n  uint32 retry_after_ms = 4;\n}}\n"
                )
            else:
                imports += f'import "payments/{area}/{snake}.proto";\nimport "payments/{area}/{snake}_event.proto";\n'
                body = (
                    f"message Get{name}Request {{ uint64 id = 1; }}\n"
                    f"message Retry{name}Request {{ uint64 id = 1; bool force = 2; }}\n\n"
                    f"service {name}Service {{\n  rpc Get{name}(Get{name}Request) returns ({name});\n"
                    f"  rpc Retry{name}(Retry{name}Request) returns ({name}Event);\n}}\n"
                )
            files[path] = f'syntax = "proto3";\npackage payments.{area};\n\n{imports}\n{body}'
    write(root, files)


@case(
    "u111_protoc_many_error",
    "protoc",
    clean=False,
    group=GROUP,
    decisive=['"payments.common.Mony" is not defined.', "payments/errors/exception_report.proto:"],
)
def _protoc_error(root: Path) -> bytes:
    _protos(root, broken="ExceptionReport")
    cmd = (
        'mkdir -p gen/cpp gen/py; status=0; for d in proto/payments/*/; do pkg=${d#proto/}; echo "== $pkg";'
        " (cd proto && protoc -I . --cpp_out=../gen/cpp --python_out=../gen/py --pyi_out=../gen/py $pkg*.proto)"
        " || status=1; done; exit $status"
    )
    return _settle(sh(cmd, root), root)


@case(
    "u111_protoc_decode_clean",
    "protoc",
    clean=True,
    group=GROUP,
    decisive=["out/payments.pb"],
)
def _protoc_decode_clean(root: Path) -> bytes:
    _protos(root)
    cmd = (
        "mkdir -p out && protoc -I proto --include_imports --descriptor_set_out=out/payments.pb"
        " $(cd proto && find . -name '*.proto' | sed 's|^./||' | sort)"
        " && protoc -I /usr/include --decode=google.protobuf.FileDescriptorSet google/protobuf/descriptor.proto"
        " < out/payments.pb && wc -c out/payments.pb"
    )
    return _settle(sh(cmd, root), root)
