"""Held-out outputs (group ``unseen-108``): a hundred-and-eighth batch, XML and document validation as an agent runs it
on generated invoices, feeds, ledgers and configs, all offline with every schema local (XML Schema, DTD, RelaxNG
compact syntax and XSLT stylesheets written next to the documents).

Failing runs: ``xmllint --noout --schema invoice.xsd`` over 320 invoices where two fail (a zero quantity and an unknown
status among hundreds of ``validates`` lines), an agent's shell loop of ``xmllint --valid --noout`` over 150 shipping
catalogs with a DTD where one product lacks its price, ``make -k`` of a Makefile that runs ``jing -c`` once per orders
feed (each run printing jing's own launcher warning) where one feed puts ``refund_amount`` in the wrong place,
``xsltproc`` of a ledger-to-CSV stylesheet over 260 ledgers where one entry without a currency hits
``xsl:message terminate="yes"`` among many non-fatal messages, ``make`` rendering HTML reports with ``xsltproc -o``
where the exception-report stylesheet calls a template that does not exist, ``xmlstarlet val -e -s`` over a config
tree with one invalid retry policy, and ``xmlstarlet sel`` extracting CSV rows from audit-ledger exports where one
large export has a mismatched tag deep inside. Clean runs full of failure words: ``xmllint --schema`` over
``failed_payments``, ``retry_queue`` and ``exception_report`` documents, an ``xsltproc`` text report of a catalog of
error codes, ``xmlstarlet val`` over the same config tree with every file valid, and the ``make`` of jing validations
over webhooks feeds. Labels were written with each scenario, before the engine saw the output. Needs xmllint,
xsltproc, xmlstarlet, jing, make and a Java runtime (Debian ``libxml2-utils``, ``xsltproc``,
``xmlstarlet``, ``jing``, ``make``).
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-108"


def _settle(out: bytes, root: Path) -> bytes:
    return substitute(scrub(out, root), (r"\d+\+\d+=\d+ milliseconds", "1+1=2 milliseconds"))


# ---------------------------------------------------------------- xmllint --schema: invoices

_INVOICE_XSD = """
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema" elementFormDefault="qualified">
  <xs:simpleType name="status">
    <xs:restriction base="xs:string">
      <xs:enumeration value="paid"/>
      <xs:enumeration value="pending"/>
      <xs:enumeration value="failed_payment"/>
      <xs:enumeration value="refunded"/>
      <xs:enumeration value="retry_queued"/>
    </xs:restriction>
  </xs:simpleType>
  <xs:element name="invoice">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="issued" type="xs:date"/>
        <xs:element name="customer" type="xs:string"/>
        <xs:element name="currency" type="xs:string"/>
        <xs:element name="lines">
          <xs:complexType>
            <xs:sequence>
              <xs:element name="line" maxOccurs="unbounded">
                <xs:complexType>
                  <xs:sequence>
                    <xs:element name="sku" type="xs:string"/>
                    <xs:element name="qty" type="xs:positiveInteger"/>
                    <xs:element name="unit_price" type="xs:decimal"/>
                  </xs:sequence>
                </xs:complexType>
              </xs:element>
            </xs:sequence>
          </xs:complexType>
        </xs:element>
        <xs:element name="total" type="xs:decimal"/>
        <xs:element name="status" type="status"/>
        <xs:element name="error_code" type="xs:string" minOccurs="0"/>
      </xs:sequence>
      <xs:attribute name="id" type="xs:string" use="required"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
"""

_STATUSES = ["paid", "pending", "failed_payment", "refunded", "retry_queued"]


def _invoice(i: int, *, qty0: bool = False, status: str = "") -> str:
    lines = "".join(
        f"    <line>\n      <sku>SKU-{(i * 7 + k) % 900:04d}</sku>\n"
        f"      <qty>{0 if qty0 and k == 2 else 1 + (i + k) % 5}</qty>\n"
        f"      <unit_price>{(i * 13 + k * 7) % 300 + 0.5:.2f}</unit_price>\n    </line>\n"
        for k in range(3 + i % 3)
    )
    st = status or _STATUSES[i % 5]
    err = f"  <error_code>PAY-{i % 40:03d}</error_code>\n" if st in ("failed_payment", "retry_queued") else ""
    return (
        f'<?xml version="1.0"?>\n<invoice id="INV-2024-{i:04d}">\n  <issued>2024-{1 + i % 12:02d}-{1 + i % 28:02d}'
        f"</issued>\n  <customer>CUST-{i * 31 % 5000:05d}</customer>\n  <currency>EUR</currency>\n"
        f"  <lines>\n{lines}  </lines>\n  <total>{i * 17 % 9000 + 0.99:.2f}</total>\n  <status>{st}</status>\n"
        f"{err}</invoice>\n"
    )


@case(
    "u108_xmllint_schema_two_fail",
    "xmllint",
    clean=False,
    group=GROUP,
    decisive=[
        "Element 'qty': '0' is not a valid value of the atomic type 'xs:positiveInteger'",
        "invoices/inv-0137.xml fails to validate",
        "The value 'chargeback' is not an element of the set",
        "invoices/inv-0251.xml fails to validate",
    ],
)
def _xmllint_schema_two_fail(root: Path) -> bytes:
    files = {"schema/invoice.xsd": _INVOICE_XSD}
    for i in range(1, 321):
        files[f"invoices/inv-{i:04d}.xml"] = _invoice(i, qty0=i == 137, status="chargeback" if i == 251 else "")
    write(root, files)
    return _settle(sh("xmllint --noout --schema schema/invoice.xsd invoices/*.xml", root), root)


# ---------------------------------------------------------------- xmllint --schema: failed payments (clean)

_FP_XSD = """
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:complexType name="failure">
    <xs:sequence>
      <xs:element name="payment_id" type="xs:string"/>
      <xs:element name="error_code" type="xs:string"/>
      <xs:element name="error_message" type="xs:string"/>
      <xs:element name="attempts" type="xs:nonNegativeInteger"/>
      <xs:element name="next_retry" type="xs:dateTime" minOccurs="0"/>
    </xs:sequence>
  </xs:complexType>
  <xs:element name="failed_payments">
    <xs:complexType><xs:sequence>
      <xs:element name="failed_payment" type="failure" maxOccurs="unbounded"/>
    </xs:sequence></xs:complexType>
  </xs:element>
  <xs:element name="retry_queue">
    <xs:complexType><xs:sequence>
      <xs:element name="retry" type="failure" maxOccurs="unbounded"/>
    </xs:sequence><xs:attribute name="name" type="xs:string"/></xs:complexType>
  </xs:element>
  <xs:element name="exception_report">
    <xs:complexType><xs:sequence>
      <xs:element name="exception" maxOccurs="unbounded">
        <xs:complexType><xs:sequence>
          <xs:element name="class" type="xs:string"/>
          <xs:element name="error_message" type="xs:string"/>
          <xs:element name="count" type="xs:positiveInteger"/>
        </xs:sequence></xs:complexType>
      </xs:element>
    </xs:sequence></xs:complexType>
  </xs:element>
</xs:schema>
"""

_ERRORS = ["card_declined", "insufficient_funds", "gateway_timeout", "expired_card", "fraud_suspected"]


def _failures(tag: str, i: int, n: int) -> str:
    return "".join(
        f"  <{tag}>\n    <payment_id>PAY-{i:03d}-{k:02d}</payment_id>\n"
        f"    <error_code>{_ERRORS[(i + k) % 5]}</error_code>\n"
        f"    <error_message>payment failed: {_ERRORS[(i + k) % 5].replace('_', ' ')}</error_message>\n"
        f"    <attempts>{(i + k) % 4}</attempts>\n"
        + (f"    <next_retry>2024-10-{1 + k % 28:02d}T0{k % 10}:00:00Z</next_retry>\n" if k % 2 else "")
        + f"  </{tag}>\n"
        for k in range(n)
    )


@case(
    "u108_xmllint_schema_clean_failed_payments",
    "xmllint",
    clean=True,
    group=GROUP,
    decisive=["exception_report/exception-report-060.xml validates"],
)
def _xmllint_schema_clean(root: Path) -> bytes:
    files = {"schema/failed_payments.xsd": _FP_XSD}
    for i in range(1, 101):
        body = _failures("failed_payment", i, 4 + i % 5)
        files[f"failed_payments/failed-payment-{i:03d}.xml"] = f"<failed_payments>\n{body}</failed_payments>\n"
    for i in range(1, 81):
        body = _failures("retry", i, 3 + i % 4)
        files[f"retry_queue/retry-queue-{i:03d}.xml"] = f'<retry_queue name="billing-{i}">\n{body}</retry_queue>\n'
    for i in range(1, 61):
        body = "".join(
            f"  <exception>\n    <class>{c}Exception</class>\n    <error_message>failed to settle invoice "
            f"INV-{i:04d}</error_message>\n    <count>{1 + i % 9}</count>\n  </exception>\n"
            for c in ("Payment", "Ledger", "Retry")
        )
        files[f"exception_report/exception-report-{i:03d}.xml"] = f"<exception_report>\n{body}</exception_report>\n"
    write(root, files)
    cmd = (
        "xmllint --noout --schema schema/failed_payments.xsd failed_payments/*.xml retry_queue/*.xml"
        " exception_report/*.xml"
    )
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- xmllint --valid (DTD) loop

_CATALOG_DTD = """
<!ELEMENT catalog (product+)>
<!ATTLIST catalog region CDATA #REQUIRED>
<!ELEMENT product (sku, name, price, stock?)>
<!ATTLIST product shipping (standard|express|freight) "standard">
<!ELEMENT sku (#PCDATA)>
<!ELEMENT name (#PCDATA)>
<!ELEMENT price (#PCDATA)>
<!ELEMENT stock (#PCDATA)>
"""


@case(
    "u108_xmllint_valid_dtd_loop",
    "xmllint",
    clean=False,
    group=GROUP,
    decisive=[
        "shipping-catalog-093.xml:56: element product: validity error : Element product content does not follow",
    ],
)
def _xmllint_dtd(root: Path) -> bytes:
    files = {"catalog/catalog.dtd": _CATALOG_DTD}
    for i in range(1, 151):
        prods = []
        for k in range(12):
            price = "" if (i, k) == (93, 8) else f"    <price>{(i * k) % 400 + 9.99:.2f}</price>\n"
            ship = ["standard", "express", "freight"][(i + k) % 3]
            prods.append(
                f'  <product shipping="{ship}">\n    <sku>SHP-{i:03d}-{k:02d}</sku>\n'
                f"    <name>Parcel box size {k}</name>\n{price}    <stock>{(i + k) * 3 % 70}</stock>\n  </product>\n"
            )
        files[f"catalog/shipping-catalog-{i:03d}.xml"] = (
            f'<?xml version="1.0"?>\n<!DOCTYPE catalog SYSTEM "catalog.dtd">\n<catalog region="eu-{i % 4}">\n'
            + "".join(prods)
            + "</catalog>\n"
        )
    write(root, files)
    loop = 'for f in catalog/*.xml; do xmllint --valid --noout "$f" && echo "$f: valid against catalog.dtd"; done'
    return _settle(sh(loop, root), root)


# ---------------------------------------------------------------- jing via make

_FEED_RNC = """
default namespace = ""
start = element orders_feed {
  attribute source { text },
  element order {
    attribute id { xsd:ID },
    element customer { text },
    element status { "paid" | "failed" | "retry" | "refunded" },
    element item { element sku { text }, element qty { xsd:positiveInteger } }+,
    element total { xsd:decimal },
    element refund_amount { xsd:decimal }?
  }+
}
"""

_JING_MAKEFILE = """
FEEDS := $(sort $(wildcard feeds/*.xml))
STAMPS := $(FEEDS:feeds/%.xml=stamps/%.ok)

validate: $(STAMPS)
\t@echo "validated $(words $(FEEDS)) feeds against schema/feed.rnc"

stamps/%.ok: feeds/%.xml schema/feed.rnc
\t@mkdir -p stamps
\tjing -c schema/feed.rnc $<
\t@touch $@
"""


def _feeds(root: Path, prefix: str, n: int, broken: int = 0) -> None:
    files = {"schema/feed.rnc": _FEED_RNC, "Makefile": _JING_MAKEFILE.replace("\\t", "\t")}
    for i in range(1, n + 1):
        orders = []
        for k in range(6):
            status = ["paid", "failed", "retry", "refunded"][(i + k) % 4]
            refund = f"    <refund_amount>{k * 3 + 0.5:.2f}</refund_amount>\n" if status == "refunded" else ""
            items = "".join(
                f"    <item><sku>SKU-{(i + k + j) % 500:03d}</sku><qty>{1 + j}</qty></item>\n" for j in range(2)
            )
            total = f"    <total>{(i * 11 + k) % 700 + 0.25:.2f}</total>\n"
            body = refund + items + total if i == broken and k == (3 - i) % 4 else items + total + refund
            orders.append(
                f'  <order id="o-{i:04d}-{k}">\n    <customer>c{i * 7 + k}</customer>\n'
                f"    <status>{status}</status>\n{body}  </order>\n"
            )
        files[f"feeds/{prefix}-{i:04d}.xml"] = (
            f'<orders_feed source="{prefix}">\n' + "".join(orders) + "</orders_feed>\n"
        )
    write(root, files)


@case(
    "u108_jing_make_keep_going",
    "jing (make)",
    clean=False,
    group=GROUP,
    decisive=[
        'orders-feed-0047.xml:5:20: error: element "refund_amount" not allowed yet',
        "make: *** [Makefile:",
        "Target 'validate' not remade because of errors",
    ],
)
def _jing_fail(root: Path) -> bytes:
    _feeds(root, "orders-feed", 70, broken=47)
    return _settle(sh("make -k validate", root), root)


@case(
    "u108_jing_make_clean_webhooks",
    "jing (make)",
    clean=True,
    group=GROUP,
    decisive=["validated 60 feeds against schema/feed.rnc"],
)
def _jing_clean(root: Path) -> bytes:
    _feeds(root, "webhooks-retry-feed", 60)
    return _settle(sh("make validate", root), root)


# ---------------------------------------------------------------- xsltproc: ledger to CSV, one terminating message

_LEDGER_XSL = """
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="text"/>
  <xsl:param name="period" select="'2024-09'"/>
  <xsl:template match="/ledger">
    <xsl:apply-templates select="entry"/>
  </xsl:template>
  <xsl:template match="entry">
    <xsl:if test="not(currency)">
      <xsl:message terminate="yes">ledger entry <xsl:value-of select="@id"/> has no currency; cannot convert<!--
      --></xsl:message>
    </xsl:if>
    <xsl:if test="status = 'retry'">
      <xsl:message>note: entry <xsl:value-of select="@id"/> is still in the retry_queue</xsl:message>
    </xsl:if>
    <xsl:value-of select="concat($period, ',', @id, ',', account, ',', currency, ',', amount, ',', status)"/>
    <xsl:text>&#10;</xsl:text>
  </xsl:template>
</xsl:stylesheet>
"""


@case(
    "u108_xsltproc_ledger_terminate",
    "xsltproc",
    clean=False,
    group=GROUP,
    decisive=["ledger entry LE-0171-05 has no currency; cannot convert", "no result for ledger/ledger-0171.xml"],
)
def _xsltproc_terminate(root: Path) -> bytes:
    files = {"stylesheets/ledger-csv.xsl": _LEDGER_XSL}
    for i in range(1, 261):
        entries = []
        for k in range(8):
            cur = "" if (i, k) == (171, 5) else f"<currency>{['EUR', 'USD', 'GBP'][(i + k) % 3]}</currency>"
            status = "retry" if (i * 8 + k) % 97 == 0 else ["posted", "failed", "reversed"][(i + k) % 3]
            entries.append(
                f'  <entry id="LE-{i:04d}-{k:02d}"><account>{4000 + (i * k) % 300}</account>{cur}'
                f"<amount>{(i * 37 + k * 11) % 5000 + 0.1:.2f}</amount><status>{status}</status></entry>\n"
            )
        files[f"ledger/ledger-{i:04d}.xml"] = "<ledger>\n" + "".join(entries) + "</ledger>\n"
    write(root, files)
    cmd = "xsltproc --stringparam period 2024-09 stylesheets/ledger-csv.xsl ledger/*.xml"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- xsltproc: error codes report (clean)

_CODES_XSL = """
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="text"/>
  <xsl:template match="/error_codes">
    <xsl:text>ERROR CODE CATALOG&#10;==================&#10;</xsl:text>
    <xsl:for-each select="area">
      <xsl:text>&#10;[</xsl:text><xsl:value-of select="@name"/><xsl:text>]&#10;</xsl:text>
      <xsl:for-each select="error_code">
        <xsl:value-of select="concat('  ', @id, '  ', @symbol, '  retryable=', @retryable, '  ', .)"/>
        <xsl:text>&#10;</xsl:text>
      </xsl:for-each>
    </xsl:for-each>
    <xsl:value-of select="concat('&#10;error codes catalogued: ', count(area/error_code), ' (retryable: ',
      count(area/error_code[@retryable='yes']), ', fatal: ', count(area/error_code[@retryable='no']), ')')"/>
    <xsl:text>&#10;</xsl:text>
  </xsl:template>
</xsl:stylesheet>
"""

_AREAS = ["billing", "orders", "refunds", "tax", "auth", "session", "shipping", "webhooks", "ledger", "export"]
_FAILS = ["FAILED", "TIMEOUT", "DECLINED", "REJECTED", "EXCEPTION", "RETRY_EXHAUSTED"]


@case(
    "u108_xsltproc_error_codes_report_clean",
    "xsltproc",
    clean=True,
    group=GROUP,
    decisive=["error codes catalogued: 600 (retryable: 200, fatal: 400)"],
)
def _xsltproc_report(root: Path) -> bytes:
    areas = []
    for a, area in enumerate(_AREAS):
        codes = "".join(
            f'    <error_code id="E{a + 1}{k:03d}" symbol="{area.upper()}_{_FAILS[k % 6]}_{k}" '
            f'retryable="{"yes" if k % 3 == 0 else "no"}">{area} request failed: {_FAILS[k % 6].lower()} '
            f"(raised by {area}.{['client', 'worker', 'gateway'][k % 3]})</error_code>\n"
            for k in range(60)
        )
        areas.append(f'  <area name="{area}">\n{codes}  </area>\n')
    write(
        root,
        {
            "stylesheets/error-codes.xsl": _CODES_XSL,
            "catalog/error_codes.xml": "<error_codes>\n" + "".join(areas) + "</error_codes>\n",
        },
    )
    return _settle(sh("xsltproc stylesheets/error-codes.xsl catalog/error_codes.xml", root), root)


# ---------------------------------------------------------------- xsltproc via make: a missing template

_REPORT_XSL = """
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="html"/>
  <xsl:template match="/">
    <html><body><h1><xsl:value-of select="name(*)"/></h1><table>
      <caption>CALL</caption>
      <xsl:for-each select="*/*"><tr><td><xsl:value-of select="."/></td></tr></xsl:for-each>
    </table></body></html>
  </xsl:template>
  <xsl:template name="render-row"><td><xsl:value-of select="."/></td></xsl:template>
</xsl:stylesheet>
"""

_REPORTS_MAKEFILE = """
KINDS := billing-summary exception-report retry-queue audit-trail
all: $(foreach k,$(KINDS),$(patsubst data/$(k)/%.xml,html/$(k)/%.html,$(sort $(wildcard data/$(k)/*.xml))))

html/%.html: data/%.xml
\t@mkdir -p $(dir $@)
\txsltproc -o $@ xsl/$(word 1,$(subst /, ,$*)).xsl $<
"""


@case(
    "u108_xsltproc_make_missing_template",
    "xsltproc (make)",
    clean=False,
    group=GROUP,
    decisive=[
        "The called template 'render-exception-row' was not found.",
        "error: file data/exception-report/exception-report-001.xml",
        "make: *** [Makefile:",
    ],
)
def _xsltproc_make(root: Path) -> bytes:
    files = {"Makefile": _REPORTS_MAKEFILE.replace("\\t", "\t")}
    for kind in ("billing-summary", "exception-report", "retry-queue", "audit-trail"):
        call = "render-exception-row" if kind == "exception-report" else "render-row"
        files[f"xsl/{kind}.xsl"] = _REPORT_XSL.replace("CALL", f'<xsl:call-template name="{call}"/>')
        for i in range(1, 71):
            rows = "".join(f"  <row>{kind} item {i}-{k}: failed attempts {k % 3}</row>\n" for k in range(5))
            files[f"data/{kind}/{kind}-{i:03d}.xml"] = (
                f"<{kind.replace('-', '_')}>\n{rows}</{kind.replace('-', '_')}>\n"
            )
    write(root, files)
    return _settle(sh("make", root), root)


# ---------------------------------------------------------------- xmlstarlet val over a config tree

_CONFIG_XSD = """
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:element name="service">
    <xs:complexType>
      <xs:sequence>
        <xs:element name="endpoint" type="xs:anyURI"/>
        <xs:element name="retry_policy">
          <xs:complexType>
            <xs:sequence>
              <xs:element name="max_attempts" type="xs:positiveInteger"/>
              <xs:element name="backoff_ms" type="xs:nonNegativeInteger"/>
              <xs:element name="on_exhausted" type="xs:string"/>
            </xs:sequence>
          </xs:complexType>
        </xs:element>
        <xs:element name="error_topic" type="xs:string"/>
      </xs:sequence>
      <xs:attribute name="name" type="xs:string" use="required"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
"""

_CONFIG_DIRS = ["errors", "exception_report", "failed_payments", "retry_queue", "webhooks", "billing"]


def _config_tree(root: Path, broken: bool) -> None:
    files = {"schema/service.xsd": _CONFIG_XSD}
    for d, folder in enumerate(_CONFIG_DIRS):
        for i in range(1, 36):
            name = f"{folder.replace('_', '-')}-{i:02d}"
            attempts = "-1" if broken and (folder, i) == ("retry_queue", 19) else str(1 + (d + i) % 6)
            files[f"config/{folder}/{name}.xml"] = (
                f'<service name="{name}">\n  <endpoint>http://{folder.replace("_", "-")}.internal/{i}</endpoint>\n'
                f"  <retry_policy>\n    <max_attempts>{attempts}</max_attempts>\n"
                f"    <backoff_ms>{250 * (1 + i % 4)}</backoff_ms>\n    <on_exhausted>dead_letter</on_exhausted>\n"
                f"  </retry_policy>\n  <error_topic>{folder}.failed</error_topic>\n</service>\n"
            )
    write(root, files)


@case(
    "u108_xmlstarlet_val_tree_fail",
    "xmlstarlet",
    clean=False,
    group=GROUP,
    decisive=["Element 'max_attempts': '-1' is not a valid value", "config/retry_queue/retry-queue-19.xml - invalid"],
)
def _xmlstarlet_fail(root: Path) -> bytes:
    _config_tree(root, broken=True)
    return _settle(sh("xmlstarlet val -e -s schema/service.xsd $(find config -name '*.xml' | sort)", root), root)


@case(
    "u108_xmlstarlet_val_tree_clean",
    "xmlstarlet",
    clean=True,
    group=GROUP,
    decisive=["config/webhooks/webhooks-35.xml - valid"],
)
def _xmlstarlet_clean(root: Path) -> bytes:
    _config_tree(root, broken=False)
    return _settle(sh("xmlstarlet val -e -s schema/service.xsd $(find config -name '*.xml' | sort)", root), root)


# ---------------------------------------------------------------- xmlstarlet sel over exports, one malformed


@case(
    "u108_xmlstarlet_sel_malformed_export",
    "xmlstarlet",
    clean=False,
    group=GROUP,
    decisive=["audit-ledger-07.xml:", "Opening and ending tag mismatch: amount line"],
)
def _xmlstarlet_sel(root: Path) -> bytes:
    files = {}
    for f in range(1, 11):
        entries = []
        for k in range(500):
            close = "amnt" if (f, k) == (7, 412) else "amount"
            entries.append(
                f'  <entry id="AL-{f:02d}-{k:04d}">\n    <actor>svc-{["billing", "refunds", "retry"][k % 3]}</actor>\n'
                f"    <action>{['charge', 'refund', 'retry_failed_payment', 'void'][k % 4]}</action>\n"
                f"    <amount>{(f * 53 + k * 7) % 3000 + 0.5:.2f}</{close}>\n  </entry>\n"
            )
        files[f"exports/audit-ledger-{f:02d}.xml"] = "<audit_ledger>\n" + "".join(entries) + "</audit_ledger>\n"
    write(root, files)
    cmd = "xmlstarlet sel -t -m //entry -v @id -o , -v actor -o , -v action -o , -v amount -n exports/*.xml"
    return _settle(sh(cmd, root), root)
