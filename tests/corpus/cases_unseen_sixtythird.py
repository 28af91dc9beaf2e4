"""Held-out outputs (group ``unseen-63``): a sixty-third batch, hardware description and embedded toolchains as an
agent runs them on a chip or firmware project: Icarus Verilog, Verilator, GHDL, Yosys and the GNU Arm embedded
toolchain, all from Debian.

Failing runs: ``iverilog`` and ``vvp`` of a ``tax_calc`` testbench printing 4,096 transactions where one coupon's
discount mismatches (``$error`` in the middle, ``TEST FAILED`` at the end), ``make -k sim`` of three FIFO and arbiter
testbenches where the middle one's ``refund_queue`` overflows into a ``$fatal``, ``verilator --lint-only -Wall`` of 18
modules with some fifty width and file-name warnings and one illegal bit select, a shell regression script running
three GHDL testbenches where a package of the middle one does not analyse (GHDL's message carries no ``error`` word),
a GHDL testbench whose ``assert ... severity failure`` ends 2,000 notes and ``numeric_std`` metavalue warnings,
``make -k synth`` of three Yosys blocks where the middle one instantiates a module missing from its file list, and
``make`` of Cortex-M4 firmware with 30 compile lines whose link fails with ``region `FLASH' overflowed``. Clean runs
named after errors and failures: ``make sim`` of ``retry_fsm``, ``error_counter`` and ``fault_flag`` testbenches whose
FSM has a ``FAILED`` state, ``verilator --binary`` of an ``error_counter`` testbench, a Yosys synthesis of an
``error_reporter`` design (modules ``error_counter``, ``fault_flag``, ``retry_fsm``, ``failed_txn_log``) with
``check`` and ``stat``, and firmware (``error_log.c``, ``fault_handler.c``, ``retry_queue.c``) built and listed with
``arm-none-eabi-size`` and ``objdump -h``. Labels were written with each scenario, before the engine saw the output.
Needs Debian ``iverilog``, ``verilator`` (with g++ and make), ``ghdl``, ``yosys``, ``gcc-arm-none-eabi`` and
``libnewlib-arm-none-eabi``.
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-63"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, times, hashes and memory figures."""
    return substitute(
        scrub(out, root),
        (r"Logfile hash: [0-9a-f]+, CPU: .*$", "Logfile hash: 0000000000, CPU: user 0.01s system 0.00s, MEM: 10 MB"),
        (r"^Time spent: .*$", "Time spent: 100% 1x read_verilog (0 sec)"),
        (r"Walltime [0-9.]+ s.*$", "Walltime 1.000 s"),
        (r"make\[(\d)\]: (Entering|Leaving) directory '/tmp/work", r"make[\1]: \2 directory '/tmp/work"),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
    )


# ---------------------------------------------------------------- Icarus Verilog

_TAX_CALC = """
    module tax_calc (
        input  wire        clk,
        input  wire        rst,
        input  wire        valid_in,
        input  wire [15:0] amount,
        input  wire [7:0]  rate,
        input  wire [7:0]  coupon,
        output reg         valid_out,
        output reg  [23:0] tax
    );
      wire [23:0] gross = amount * rate;
      // coupons with the top bit set take a quarter off; 0xA5 is the loyalty coupon
      wire [23:0] discount = (coupon == 8'hA5) ? (gross >> 3) : (coupon[7] ? (gross >> 2) : 24'd0);
      always @(posedge clk) begin
        if (rst) begin
          valid_out <= 1'b0;
          tax <= 24'd0;
        end else begin
          valid_out <= valid_in;
          tax <= (gross - discount + 24'd50) / 24'd100;
        end
      end
    endmodule
"""

_TB_TAX_CALC = """
    `timescale 1ns/1ps
    module tb_tax_calc;
      reg clk = 0;
      reg rst = 1;
      reg valid_in = 0;
      reg [15:0] amount;
      reg [7:0] rate;
      reg [7:0] coupon;
      wire valid_out;
      wire [23:0] tax;
      integer i;
      integer errors = 0;
      reg [23:0] gross, disc, expected;
      localparam N = 4096;

      tax_calc dut (.clk(clk), .rst(rst), .valid_in(valid_in), .amount(amount), .rate(rate), .coupon(coupon),
                    .valid_out(valid_out), .tax(tax));

      always #5 clk = ~clk;

      initial begin
        amount = 0; rate = 0; coupon = 0;
        repeat (2) @(posedge clk);
        rst = 0;
        for (i = 0; i < N; i = i + 1) begin
          amount = (i * 7919 + 13) % 50000;
          rate = 5 + (i % 20);
          coupon = (i == 2317) ? 8'hA5 : ((i % 7 == 0) ? 8'h80 : 8'h00);
          valid_in = 1;
          @(posedge clk);
          #1;
          gross = amount * rate;
          disc = coupon[7] ? (gross >> 2) : 24'd0;
          expected = (gross - disc + 24'd50) / 24'd100;
          if (tax !== expected) begin
            errors = errors + 1;
            $error("tax mismatch txn %0d: expected %0d got %0d (amount=%0d rate=%0d coupon=%h)",
                   i, expected, tax, amount, rate, coupon);
          end else
            $display("[%0t] txn %0d amount=%0d rate=%0d coupon=%h tax=%0d ok", $time, i, amount, rate, coupon, tax);
        end
        if (errors == 0) $display("TEST PASSED: %0d transactions", N);
        else $display("TEST FAILED: %0d of %0d transactions mismatched", errors, N);
        $finish;
      end
    endmodule
"""


@case(
    "u63_iverilog_tax_mismatch",
    "iverilog",
    clean=False,
    group=GROUP,
    decisive=["tax mismatch txn 2317: expected", "TEST FAILED: 1 of 4096 transactions mismatched"],
)
def _iverilog_tax_mismatch(root: Path) -> bytes:
    write(root, {"rtl/tax_calc.v": _TAX_CALC, "tb/tb_tax_calc.v": _TB_TAX_CALC})
    (root / "build").mkdir()
    cmd = (
        "iverilog -g2012 -Wall -o build/tb_tax_calc.vvp rtl/tax_calc.v tb/tb_tax_calc.v && vvp -n build/tb_tax_calc.vvp"
    )
    return _settle(sh(cmd, root), root)


_SYNC_FIFO = """
    module sync_fifo #(parameter W = 16, parameter DEPTH = 16, parameter AW = 4) (
        input  wire         clk,
        input  wire         rst,
        input  wire         push,
        input  wire         pop,
        input  wire [W-1:0] din,
        output wire [W-1:0] dout,
        output wire         full,
        output wire         empty,
        output reg  [AW:0]  count
    );
      reg [W-1:0] mem [0:DEPTH-1];
      reg [AW-1:0] wp, rp;
      assign full = (count == DEPTH);
      assign empty = (count == 0);
      assign dout = mem[rp];
      always @(posedge clk) begin
        if (rst) begin
          wp <= 0;
          rp <= 0;
          count <= 0;
        end else begin
          if (push && !full) begin
            mem[wp] <= din;
            wp <= wp + 1'b1;
          end
          if (pop && !empty) rp <= rp + 1'b1;
          count <= count + (push && !full) - (pop && !empty);
        end
      end
    endmodule
"""

_RR_ARBITER = """
    module rr_arbiter (
        input  wire       clk,
        input  wire       rst,
        input  wire [3:0] req,
        output reg  [3:0] grant
    );
      reg [1:0] last;
      integer k;
      reg found;
      always @(posedge clk) begin
        if (rst) begin
          grant <= 4'b0;
          last <= 2'd3;
        end else begin
          grant <= 4'b0;
          found = 1'b0;
          for (k = 1; k <= 4; k = k + 1) begin
            if (!found && req[(last + k) % 4]) begin
              grant[(last + k) % 4] <= 1'b1;
              last <= (last + k) % 4;
              found = 1'b1;
            end
          end
        end
      end
    endmodule
"""


def _tb_fifo(name: str, push_expr: str, pop_expr: str, cycles: int) -> str:
    return f"""
        `timescale 1ns/1ps
        module tb_{name};
          reg clk = 0;
          reg rst = 1;
          reg push = 0;
          reg pop = 0;
          reg [15:0] din = 0;
          wire [15:0] dout;
          wire full, empty;
          wire [4:0] count;
          integer cyc;
          integer pushes = 0;
          integer pops = 0;
          integer errors = 0;

          sync_fifo #(.W(16), .DEPTH(16), .AW(4)) dut (.clk(clk), .rst(rst), .push(push), .pop(pop), .din(din),
                                                      .dout(dout), .full(full), .empty(empty), .count(count));

          always #5 clk = ~clk;

          initial begin
            repeat (3) @(posedge clk);
            rst = 0;
            for (cyc = 0; cyc < {cycles}; cyc = cyc + 1) begin
              @(negedge clk);
              push = {push_expr};
              pop = ({pop_expr}) && !empty;
              din = pushes[15:0];
              if (push && full)
                $fatal(1, "{name} overflow: push while full at cycle %0d (count=%0d)", cyc, count);
              if (pop && dout !== pops[15:0]) begin
                errors = errors + 1;
                $display("{name}: data mismatch at cycle %0d: expected %h got %h", cyc, pops[15:0], dout);
              end
              $display("[%0t] {name} cyc=%0d push=%b pop=%b din=%h dout=%h count=%0d",
                       $time, cyc, push, pop, din, dout, count);
              if (push) pushes = pushes + 1;
              if (pop) pops = pops + 1;
            end
            $display("tb_{name}: %s (%0d cycles, %0d pushes, %0d pops, %0d errors)",
                     errors == 0 ? "PASS" : "FAIL", {cycles}, pushes, pops, errors);
            $finish;
          end
        endmodule
    """


_TB_ARBITER = """
    `timescale 1ns/1ps
    module tb_shipping_arbiter;
      reg clk = 0;
      reg rst = 1;
      reg [3:0] req = 0;
      wire [3:0] grant;
      integer cyc;
      integer grants [0:3];
      integer k;

      rr_arbiter dut (.clk(clk), .rst(rst), .req(req), .grant(grant));

      always #5 clk = ~clk;

      initial begin
        for (k = 0; k < 4; k = k + 1) grants[k] = 0;
        repeat (2) @(posedge clk);
        rst = 0;
        for (cyc = 0; cyc < 1800; cyc = cyc + 1) begin
          @(negedge clk);
          req = (cyc * 5 + 3) % 16;
          for (k = 0; k < 4; k = k + 1) if (grant[k]) grants[k] = grants[k] + 1;
          $display("[%0t] shipping_arbiter cyc=%0d req=%b grant=%b", $time, cyc, req, grant);
        end
        $display("tb_shipping_arbiter: PASS (grants dock0=%0d dock1=%0d dock2=%0d dock3=%0d)",
                 grants[0], grants[1], grants[2], grants[3]);
        $finish;
      end
    endmodule
"""

_SIM_MAKEFILE = """
    TBS = {tbs}

    sim: $(addprefix sim_,$(TBS))
    {extra}
    build:
    \tmkdir -p build

    build/%.vvp: tb/tb_%.v $(wildcard rtl/*.v) | build
    \tiverilog -g2012 -Wall -o $@ -s tb_$* $^

    sim_%: build/%.vvp
    \tvvp -n $<

    .SECONDARY:
    .PHONY: sim
"""


@case(
    "u63_make_iverilog_fifo_fatal",
    "make iverilog",
    clean=False,
    group=GROUP,
    decisive=[
        "refund_queue overflow: push while full at cycle",
        "sim_refund_queue] Error 1",
        "Target 'sim' not remade because of errors.",
    ],
)
def _make_iverilog_fatal(root: Path) -> bytes:
    write(
        root,
        {
            "Makefile": _SIM_MAKEFILE.format(tbs="orders_fifo refund_queue shipping_arbiter", extra=""),
            "rtl/sync_fifo.v": _SYNC_FIFO,
            "rtl/rr_arbiter.v": _RR_ARBITER,
            "tb/tb_orders_fifo.v": _tb_fifo("orders_fifo", "(cyc % 3 != 0)", "(cyc % 3 != 1)", 1500),
            # a refund burst from cycle 1300 on: pushes every cycle while pops stay at four in five
            "tb/tb_refund_queue.v": _tb_fifo("refund_queue", "(cyc >= 1300) || (cyc % 5 != 0)", "(cyc % 5 != 2)", 2500),
            "tb/tb_shipping_arbiter.v": _TB_ARBITER,
        },
    )
    return _settle(sh("make -k sim", root), root)


_RETRY_FSM = """
    `timescale 1ns/1ps
    module retry_fsm #(parameter MAX_RETRIES = 3) (
        input  wire       clk,
        input  wire       rst,
        input  wire       start,
        input  wire       ack,
        input  wire       nack,
        output reg  [2:0] state,
        output reg  [1:0] retries,
        output wire       failed,
        output wire       done
    );
      localparam IDLE = 3'd0, SEND = 3'd1, WAIT_ACK = 3'd2, RETRY_WAIT = 3'd3, FAILED = 3'd4, DONE = 3'd5;
      reg [3:0] backoff;
      assign failed = (state == FAILED);
      assign done = (state == DONE);
      always @(posedge clk) begin
        if (rst) begin
          state <= IDLE;
          retries <= 2'd0;
          backoff <= 4'd0;
        end else begin
          case (state)
            IDLE: if (start) begin state <= SEND; retries <= 2'd0; end
            SEND: state <= WAIT_ACK;
            WAIT_ACK:
              if (ack) state <= DONE;
              else if (nack) begin
                if (retries == MAX_RETRIES) state <= FAILED;
                else begin state <= RETRY_WAIT; backoff <= {retries, 2'b11}; end
              end
            RETRY_WAIT:
              if (backoff == 0) begin state <= SEND; retries <= retries + 1'b1; end
              else backoff <= backoff - 1'b1;
            FAILED: state <= IDLE;
            DONE: state <= IDLE;
            default: state <= IDLE;
          endcase
        end
      end
    endmodule
"""

_ERROR_COUNTER = """
    `timescale 1ns/1ps
    module error_counter #(parameter W = 8) (
        input  wire         clk,
        input  wire         rst,
        input  wire         error_in,
        input  wire         clear,
        output reg  [W-1:0] error_count,
        output wire         saturated
    );
      assign saturated = &error_count;
      always @(posedge clk) begin
        if (rst || clear) error_count <= {W{1'b0}};
        else if (error_in && !saturated) error_count <= error_count + 1'b1;
      end
    endmodule
"""

_FAULT_FLAG = """
    `timescale 1ns/1ps
    module fault_flag (
        input  wire clk,
        input  wire rst,
        input  wire fault,
        input  wire ack,
        output reg  fault_flag,
        output reg  fault_seen_while_set
    );
      always @(posedge clk) begin
        if (rst) begin
          fault_flag <= 1'b0;
          fault_seen_while_set <= 1'b0;
        end else begin
          if (fault && fault_flag) fault_seen_while_set <= 1'b1;
          if (fault) fault_flag <= 1'b1;
          else if (ack) fault_flag <= 1'b0;
          if (ack && !fault) fault_seen_while_set <= 1'b0;
        end
      end
    endmodule
"""

_TB_RETRY_FSM = """
    `timescale 1ns/1ps
    module tb_retry_fsm;
      reg clk = 0;
      reg rst = 1;
      reg start = 0, ack = 0, nack = 0;
      wire [2:0] state;
      wire [1:0] retries;
      wire failed, done;
      integer cyc, n_failed = 0, n_done = 0, checks = 0, errors = 0;
      reg [8*10:1] name;

      retry_fsm #(.MAX_RETRIES(3)) dut (.clk(clk), .rst(rst), .start(start), .ack(ack), .nack(nack),
                                       .state(state), .retries(retries), .failed(failed), .done(done));

      always #5 clk = ~clk;

      always @(*) begin
        case (state)
          3'd0: name = "IDLE";
          3'd1: name = "SEND";
          3'd2: name = "WAIT_ACK";
          3'd3: name = "RETRY_WAIT";
          3'd4: name = "FAILED";
          default: name = "DONE";
        endcase
      end

      initial begin
        repeat (2) @(posedge clk);
        rst = 0;
        for (cyc = 0; cyc < 1600; cyc = cyc + 1) begin
          @(negedge clk);
          start = (state == 3'd0);
          // every fifth request is refused until the retries run out
          ack = (state == 3'd2) && ((cyc / 40) % 5 != 4) && (cyc % 3 == 0);
          nack = (state == 3'd2) && !ack;
          if (failed) n_failed = n_failed + 1;
          if (done) n_done = n_done + 1;
          checks = checks + 1;
          if (failed && retries != 2'd3) begin
            errors = errors + 1;
            $display("tb_retry_fsm: FAILED reached after %0d retries", retries);
          end
          $display("[%0t] retry_fsm cyc=%0d state=%0s retries=%0d ack=%b nack=%b failed=%b done=%b",
                   $time, cyc, name, retries, ack, nack, failed, done);
        end
        $display("tb_retry_fsm: PASS (%0d checks, %0d errors, %0d requests done, %0d requests failed)",
                 checks, errors, n_done, n_failed);
        $finish;
      end
    endmodule
"""

_TB_ERROR_COUNTER = """
    `timescale 1ns/1ps
    module tb_error_counter;
      reg clk = 0;
      reg rst = 1;
      reg error_in = 0, clear = 0;
      wire [7:0] error_count;
      wire saturated;
      integer cyc, model = 0, checks = 0, errors = 0;

      error_counter #(.W(8)) dut (.clk(clk), .rst(rst), .error_in(error_in), .clear(clear),
                                  .error_count(error_count), .saturated(saturated));

      always #5 clk = ~clk;

      initial begin
        repeat (2) @(posedge clk);
        rst = 0;
        for (cyc = 0; cyc < 1400; cyc = cyc + 1) begin
          @(negedge clk);
          if (error_count !== model[7:0]) begin
            errors = errors + 1;
            $display("tb_error_counter: count mismatch at cycle %0d", cyc);
          end
          checks = checks + 1;
          $display("[%0t] error_counter cyc=%0d error_in=%b clear=%b error_count=%0d saturated=%b",
                   $time, cyc, error_in, clear, error_count, saturated);
          error_in = (cyc % 2 == 0) || (cyc > 600 && cyc < 1000);
          clear = (cyc % 500 == 499);
          if (clear) model = 0;
          else if (error_in && model < 255) model = model + 1;
        end
        $display("tb_error_counter: PASS (%0d checks, %0d errors)", checks, errors);
        $finish;
      end
    endmodule
"""

_TB_FAULT_FLAG = """
    `timescale 1ns/1ps
    module tb_fault_flag;
      reg clk = 0;
      reg rst = 1;
      reg fault = 0, ack = 0;
      wire fault_flag, fault_seen_while_set;
      integer cyc, raised = 0, checks = 0, errors = 0;

      fault_flag dut (.clk(clk), .rst(rst), .fault(fault), .ack(ack), .fault_flag(fault_flag),
                      .fault_seen_while_set(fault_seen_while_set));

      always #5 clk = ~clk;

      initial begin
        repeat (2) @(posedge clk);
        rst = 0;
        for (cyc = 0; cyc < 1200; cyc = cyc + 1) begin
          @(negedge clk);
          fault = (cyc % 37 == 5) || (cyc % 91 == 7);
          ack = (cyc % 37 == 20);
          @(posedge clk);
          #1;
          checks = checks + 1;
          if (fault && !fault_flag) begin
            errors = errors + 1;
            $display("tb_fault_flag: flag not raised at cycle %0d", cyc);
          end
          if (fault) raised = raised + 1;
          $display("[%0t] fault_flag cyc=%0d fault=%b ack=%b fault_flag=%b fault_seen_while_set=%b",
                   $time, cyc, fault, ack, fault_flag, fault_seen_while_set);
        end
        $display("tb_fault_flag: PASS (%0d checks, %0d errors, %0d faults raised)", checks, errors, raised);
        $finish;
      end
    endmodule
"""


@case(
    "u63_make_iverilog_retry_fsm_clean",
    "make iverilog",
    clean=True,
    group=GROUP,
    decisive=["ALL 3 TESTBENCHES PASSED", "tb_retry_fsm: PASS ("],
)
def _make_iverilog_clean(root: Path) -> bytes:
    write(
        root,
        {
            "Makefile": _SIM_MAKEFILE.format(
                tbs="retry_fsm error_counter fault_flag", extra="\t@echo ALL 3 TESTBENCHES PASSED"
            ),
            "rtl/retry_fsm.v": _RETRY_FSM,
            "rtl/error_counter.v": _ERROR_COUNTER,
            "rtl/fault_flag.v": _FAULT_FLAG,
            "tb/tb_retry_fsm.v": _TB_RETRY_FSM,
            "tb/tb_error_counter.v": _TB_ERROR_COUNTER,
            "tb/tb_fault_flag.v": _TB_FAULT_FLAG,
        },
    )
    return _settle(sh("make sim", root), root)


# ---------------------------------------------------------------- Verilator

_LINT_BLOCKS = [
    "orders_ingress", "cart_buffer", "tax_engine", "pricing_table", "coupons_match", "session_timer", "auth_check",
    "catalog_lookup", "search_hash", "refunds_engine", "invoice_builder", "ledger_post", "shipping_rate",
    "webhooks_queue", "audit_log", "export_dma", "retry_policy",
]  # fmt: skip


def _lint_block(name: str, k: int) -> str:
    """One datapath block with the width sloppiness of a first draft; ``refunds_engine`` selects a bit of a bit."""
    valid = "valid[2]" if name == "refunds_engine" else "valid"
    tag = "code" if k % 2 else "code[3:0]"
    acc = "acc + amount" if k % 3 else "acc + amount[7:0]"
    extra = f"  assign spare = amount[{k % 16}] ^ code;\n" if k % 4 == 1 else "  assign spare = 1'b0;\n"
    return (
        f"module {name} (\n"
        "    input  wire        clk,\n    input  wire        rst,\n    input  wire        valid,\n"
        "    input  wire [15:0] amount,\n    input  wire [7:0]  code,\n    output reg  [11:0] result,\n"
        "    output wire [3:0]  tag,\n    output wire        ok,\n    output wire        spare\n);\n"
        "  reg [7:0] acc;\n"
        "  wire [31:0] wide = amount * code;\n"
        f"  assign tag = {tag};\n"
        f"  assign ok = {valid} & (acc != 0);\n"
        f"{extra}"
        "  always @(posedge clk) begin\n"
        "    if (rst) begin\n      acc <= 0;\n      result <= 0;\n    end else if (valid) begin\n"
        f"      acc <= {acc};\n      result <= wide + {k * 3 + 1};\n    end\n  end\nendmodule\n"
    )


def _lint_top() -> str:
    decls, insts = [], []
    for k, name in enumerate(_LINT_BLOCKS):
        decls.append(f"  wire [11:0] {name}_result;\n  wire [3:0] {name}_tag;\n  wire {name}_ok, {name}_spare;\n")
        amount = "amount" if k % 5 else "amount[7:0]"
        insts.append(
            f"  {name} u_{name} (.clk(clk), .rst(rst), .valid(valid), .amount({amount}), .code(code),\n"
            f"      .result({name}_result), .tag({name}_tag), .ok({name}_ok), .spare({name}_spare));\n"
        )
    oks = " & ".join(f"{n}_ok" for n in _LINT_BLOCKS[:6])
    return (
        "module billing_top (\n    input  wire        clk,\n    input  wire        rst,\n"
        "    input  wire        valid,\n    input  wire [15:0] amount,\n    input  wire [7:0]  code,\n"
        "    output wire [7:0]  total,\n    output wire        all_ok\n);\n"
        + "".join(decls)
        + "".join(insts)
        + f"  assign total = {_LINT_BLOCKS[2]}_result + {_LINT_BLOCKS[11]}_result;\n"
        + f"  assign all_ok = {oks};\nendmodule\n"
    )


@case(
    "u63_verilator_lint_wall_error",
    "verilator",
    clean=False,
    group=GROUP,
    decisive=[
        "%Error: rtl/refunds_engine.v:15:20: Illegal bit or array select",
        "%Error: Exiting due to 1 error(s)",
    ],
)
def _verilator_lint(root: Path) -> bytes:
    files = {f"rtl/{n}.v": _lint_block(n, k) for k, n in enumerate(_LINT_BLOCKS)}
    # the shared CRC helper lives in the ledger's file: a DECLFILENAME warning
    files["rtl/ledger_post.v"] += (
        "\nmodule ledger_crc (input wire [15:0] data, output wire [7:0] crc);\n"
        "  assign crc = data[15:8] ^ data[7:0] ^ 8'h1d;\nendmodule\n"
    )
    files["rtl/billing_top.v"] = _lint_top()
    write(root, files)
    files_arg = " ".join(sorted(files))
    return _settle(sh(f"verilator --lint-only -Wall --top-module billing_top {files_arg}", root), root)


@case(
    "u63_verilator_binary_error_counter_clean",
    "verilator",
    clean=True,
    group=GROUP,
    decisive=["tb_error_counter: PASS (1400 checks, 0 errors)", "Verilog $finish"],
)
def _verilator_binary_clean(root: Path) -> bytes:
    write(root, {"rtl/error_counter.v": _ERROR_COUNTER, "tb/tb_error_counter.v": _TB_ERROR_COUNTER})
    cmd = (
        "verilator --binary -j 1 --top-module tb_error_counter rtl/error_counter.v tb/tb_error_counter.v"
        " && ./obj_dir/Vtb_error_counter"
    )
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- GHDL

_VHDL_HEAD = "library ieee;\nuse ieee.std_logic_1164.all;\nuse ieee.numeric_std.all;\n"


def _vhdl_tb(name: str, cycles: int, body: str, *, decls: str = "", uses: str = "") -> str:
    """A clocked testbench whose process runs ``body`` once a cycle (``i`` the cycle) and reports a note."""
    return (
        _VHDL_HEAD
        + uses
        + f"\nentity {name} is\nend entity;\n\narchitecture sim of {name} is\n"
        + "  signal clk : std_logic := '0';\n  signal done : boolean := false;\n"
        + decls
        + "begin\n  clk <= not clk after 5 ns when not done;\n\n"
        + "  stim : process\n    variable total : integer := 0;\n  begin\n"
        + f"    for i in 0 to {cycles - 1} loop\n      wait until rising_edge(clk);\n"
        + body
        + "    end loop;\n"
        + f'    report "{name}: PASS after " & integer\'image({cycles}) & " cycles, total=" & integer\'image(total);\n'
        + "    done <= true;\n    wait;\n  end process;\nend architecture;\n"
    )


_LEDGER_BODY = (
    "      total := (total + i * 7) mod 100000;\n"
    '      report "ledger post " & integer\'image(i) & " amount=" & integer\'image(i * 7 mod 1000)\n'
    '        & " running_total=" & integer\'image(total);\n'
)

_TAX_PKG = """
    library ieee;
    use ieee.std_logic_1164.all;
    use ieee.numeric_std.all;

    package tax_pkg is
      type rate_table_t is array (0 to 7) of natural;
      constant RATE_TABLE : rate_table_t := (0, 5, 7, 10, 13, 16, 19, 21);
      function tax_of(amount : unsigned(15 downto 0); region : natural) return natural;
    end package;

    package body tax_pkg is
      function tax_of(amount : unsigned(15 downto 0); region : natural) return natural is
      begin
        return (to_integer(amount) * RATE_TABEL(region) + 50) / 100;
      end function;
    end package body;
"""

_REGRESSION_SH = """
    #!/bin/sh
    # runs every testbench listed in tb/regression.list with GHDL; one line per testbench: name and its files
    pass=0
    fail=0
    mkdir -p work
    while read -r tb files; do
      echo "=== $tb ==="
      if ghdl -a --std=08 --workdir=work $files && ghdl -e --std=08 --workdir=work "$tb" \\
          && ghdl -r --std=08 --workdir=work "$tb"; then
        echo "--- $tb: PASS"
        pass=$((pass + 1))
      else
        echo "--- $tb: FAIL"
        fail=$((fail + 1))
      fi
    done < tb/regression.list
    echo "regression: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
"""


@case(
    "u63_ghdl_regression_analysis_error",
    "ghdl",
    clean=False,
    group=GROUP,
    decisive=[
        'rtl/tax_pkg.vhd:14:34: no declaration for "rate_tabel"',
        "--- tb_tax_rounding: FAIL",
        "regression: 2 passed, 1 failed",
    ],
)
def _ghdl_regression(root: Path) -> bytes:
    tax_body = (
        "      total := total + tax_of(to_unsigned(i * 13 mod 65536, 16), i mod 8);\n"
        '      report "tax line " & integer\'image(i) & " region=" & integer\'image(i mod 8)\n'
        '        & " tax=" & integer\'image(tax_of(to_unsigned(i * 13 mod 65536, 16), i mod 8));\n'
    )
    ship_body = (
        "      total := total + (i mod 9) * 250;\n"
        '      report "shipping quote " & integer\'image(i) & " zone=" & integer\'image(i mod 9)\n'
        '        & " cents=" & integer\'image((i mod 9) * 250);\n'
    )
    write(
        root,
        {
            "rtl/tax_pkg.vhd": _TAX_PKG,
            "tb/tb_orders_ledger.vhd": _vhdl_tb("tb_orders_ledger", 1400, _LEDGER_BODY),
            "tb/tb_tax_rounding.vhd": _vhdl_tb("tb_tax_rounding", 900, tax_body, uses="use work.tax_pkg.all;\n"),
            "tb/tb_shipping_quotes.vhd": _vhdl_tb("tb_shipping_quotes", 1300, ship_body),
            "tb/regression.list": (
                "tb_orders_ledger tb/tb_orders_ledger.vhd\n"
                "tb_tax_rounding rtl/tax_pkg.vhd tb/tb_tax_rounding.vhd\n"
                "tb_shipping_quotes tb/tb_shipping_quotes.vhd\n"
            ),
            "run_regression.sh": _REGRESSION_SH,
        },
    )
    return _settle(sh("sh run_regression.sh", root), root)


_REFUND_RECONCILER = """
    library ieee;
    use ieee.std_logic_1164.all;
    use ieee.numeric_std.all;

    entity refund_reconciler is
      port (
        clk        : in  std_logic;
        rst        : in  std_logic;
        valid      : in  std_logic;
        amount     : in  unsigned(15 downto 0);
        total      : out unsigned(15 downto 0);
        count      : out natural;
        last_cents : out natural
      );
    end entity;

    architecture rtl of refund_reconciler is
      signal acc : unsigned(15 downto 0) := (others => '0');
      signal n   : natural := 0;
    begin
      last_cents <= to_integer(amount);
      process (clk)
      begin
        if rising_edge(clk) then
          if rst = '1' then
            acc <= (others => '0');
            n <= 0;
          elsif valid = '1' then
            acc <= acc + amount;
            n <= n + 1;
          end if;
        end if;
      end process;
      total <= acc;
      count <= n;
    end architecture;
"""

_TB_REFUND = """
    library ieee;
    use ieee.std_logic_1164.all;
    use ieee.numeric_std.all;

    entity tb_refund_reconcile is
    end entity;

    architecture sim of tb_refund_reconcile is
      signal clk        : std_logic := '0';
      signal rst        : std_logic := '1';
      signal valid      : std_logic := '0';
      signal amount     : unsigned(15 downto 0);
      signal total      : unsigned(15 downto 0);
      signal count      : natural;
      signal last_cents : natural;
    begin
      clk <= not clk after 5 ns;

      dut : entity work.refund_reconciler
        port map (clk => clk, rst => rst, valid => valid, amount => amount, total => total, count => count,
                  last_cents => last_cents);

      stim : process
        variable model : natural := 0;
        variable cents : natural;
      begin
        wait until rising_edge(clk);
        wait until rising_edge(clk);
        rst <= '0';
        for i in 0 to 3999 loop
          cents := (i mod 50) + 10;
          amount <= to_unsigned(cents, 16);
          valid <= '1';
          wait until rising_edge(clk);
          wait for 1 ns;
          model := model + cents;
          report "refund " & integer'image(i) & " cents=" & integer'image(cents) & " dut_total="
            & integer'image(to_integer(total)) & " model_total=" & integer'image(model);
          if i mod 250 = 249 then
            report "retry budget low after refund " & integer'image(i) severity warning;
          end if;
          assert to_integer(total) = model
            report "refund total mismatch after refund " & integer'image(i) & ": dut_total="
              & integer'image(to_integer(total)) & " model_total=" & integer'image(model)
            severity failure;
        end loop;
        report "tb_refund_reconcile: PASS";
        wait;
      end process;
    end architecture;
"""


@case(
    "u63_ghdl_assert_failure",
    "ghdl",
    clean=False,
    group=GROUP,
    decisive=["(assertion failure): refund total mismatch after refund", "simulation failed"],
)
def _ghdl_assert(root: Path) -> bytes:
    write(root, {"rtl/refund_reconciler.vhd": _REFUND_RECONCILER, "tb/tb_refund_reconcile.vhd": _TB_REFUND})
    cmd = (
        "mkdir -p work && ghdl -a --std=08 --workdir=work rtl/refund_reconciler.vhd tb/tb_refund_reconcile.vhd"
        " && ghdl -e --std=08 --workdir=work tb_refund_reconcile && ghdl -r --std=08 --workdir=work tb_refund_reconcile"
    )
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- Yosys

_FAILED_TXN_LOG = """
    module failed_txn_log (
        input  wire        clk,
        input  wire        rst,
        input  wire        log_failed,
        input  wire [11:0] txn_id,
        input  wire [2:0]  rd_addr,
        output wire [11:0] rd_txn,
        output reg  [3:0]  failed_entries
    );
      reg [11:0] ring [0:7];
      reg [2:0] wp;
      assign rd_txn = ring[rd_addr];
      always @(posedge clk) begin
        if (rst) begin
          wp <= 3'd0;
          failed_entries <= 4'd0;
        end else if (log_failed) begin
          ring[wp] <= txn_id;
          wp <= wp + 1'b1;
          if (failed_entries != 4'd8) failed_entries <= failed_entries + 1'b1;
        end
      end
    endmodule
"""

_ERROR_REPORTER = """
    module error_reporter (
        input  wire        clk,
        input  wire        rst,
        input  wire        start,
        input  wire        ack,
        input  wire        nack,
        input  wire        fault,
        input  wire        fault_ack,
        input  wire [11:0] txn_id,
        input  wire [2:0]  rd_addr,
        output wire [7:0]  error_count,
        output wire        error_saturated,
        output wire        fault_flag,
        output wire        retry_failed,
        output wire        retry_done,
        output wire [11:0] failed_txn,
        output wire [3:0]  failed_entries
    );
      wire [2:0] state;
      wire [1:0] retries;
      wire fault_seen_while_set;
      retry_fsm #(.MAX_RETRIES(3)) u_retry_fsm (.clk(clk), .rst(rst), .start(start), .ack(ack), .nack(nack),
          .state(state), .retries(retries), .failed(retry_failed), .done(retry_done));
      error_counter #(.W(8)) u_error_counter (.clk(clk), .rst(rst), .error_in(retry_failed | fault),
          .clear(fault_ack), .error_count(error_count), .saturated(error_saturated));
      fault_flag u_fault_flag (.clk(clk), .rst(rst), .fault(fault | fault_seen_while_set & retries[1]),
          .ack(fault_ack), .fault_flag(fault_flag), .fault_seen_while_set(fault_seen_while_set));
      failed_txn_log u_failed_txn_log (.clk(clk), .rst(rst), .log_failed(retry_failed), .txn_id(txn_id),
          .rd_addr(rd_addr), .rd_txn(failed_txn), .failed_entries(failed_entries));
    endmodule
"""


@case(
    "u63_yosys_error_reporter_clean",
    "yosys",
    clean=True,
    group=GROUP,
    decisive=["Executing JSON backend.", "End of script."],
)
def _yosys_clean(root: Path) -> bytes:
    write(
        root,
        {
            "rtl/retry_fsm.v": _RETRY_FSM,
            "rtl/error_counter.v": _ERROR_COUNTER,
            "rtl/fault_flag.v": _FAULT_FLAG,
            "rtl/failed_txn_log.v": _FAILED_TXN_LOG,
            "rtl/error_reporter.v": _ERROR_REPORTER,
        },
    )
    script = (
        "read_verilog rtl/retry_fsm.v rtl/error_counter.v rtl/fault_flag.v rtl/failed_txn_log.v rtl/error_reporter.v;"
        " synth -top error_reporter; write_json build/error_reporter.json"
    )
    (root / "build").mkdir()
    return _settle(sh(f'yosys -p "{script}"', root), root)


_BILLING_CORE = """
    module billing_core (
        input  wire        clk,
        input  wire        rst,
        input  wire        valid_in,
        input  wire [15:0] amount,
        input  wire [7:0]  rate,
        input  wire [7:0]  coupon,
        input  wire        pop,
        output wire [15:0] tax_out,
        output wire        full,
        output wire        empty
    );
      wire valid_tax;
      wire [23:0] tax;
      wire [4:0] count;
      tax_calc u_tax (.clk(clk), .rst(rst), .valid_in(valid_in), .amount(amount), .rate(rate), .coupon(coupon),
          .valid_out(valid_tax), .tax(tax));
      sync_fifo #(.W(16), .DEPTH(16), .AW(4)) u_fifo (.clk(clk), .rst(rst), .push(valid_tax), .pop(pop),
          .din(tax[15:0]), .dout(tax_out), .full(full), .empty(empty), .count(count));
    endmodule
"""

_RETRY_ENGINE = """
    module retry_engine (
        input  wire       clk,
        input  wire       rst,
        input  wire       start,
        input  wire       ack,
        input  wire       nack,
        output wire       failed,
        output wire       done,
        output wire [7:0] delay
    );
      wire [2:0] state;
      wire [1:0] retries;
      retry_fsm #(.MAX_RETRIES(3)) u_fsm (.clk(clk), .rst(rst), .start(start), .ack(ack), .nack(nack),
          .state(state), .retries(retries), .failed(failed), .done(done));
      retry_backoff u_backoff (.clk(clk), .rst(rst), .retries(retries), .delay(delay));
    endmodule
"""

_RETRY_BACKOFF = """
    module retry_backoff (
        input  wire       clk,
        input  wire       rst,
        input  wire [1:0] retries,
        output reg  [7:0] delay
    );
      always @(posedge clk) delay <= rst ? 8'd0 : (8'd4 << retries) + {6'd0, retries};
    endmodule
"""

_AUDIT_BUS = """
    module audit_bus (
        input  wire        clk,
        input  wire        rst,
        input  wire [3:0]  req,
        input  wire [15:0] event_word,
        input  wire        drain,
        output wire [3:0]  grant,
        output wire [15:0] event_out,
        output wire [7:0]  dropped,
        output wire        dropped_saturated
    );
      wire full, empty;
      wire [4:0] count;
      rr_arbiter u_arb (.clk(clk), .rst(rst), .req(req), .grant(grant));
      sync_fifo #(.W(16), .DEPTH(16), .AW(4)) u_events (.clk(clk), .rst(rst), .push(|grant), .pop(drain),
          .din(event_word), .dout(event_out), .full(full), .empty(empty), .count(count));
      error_counter #(.W(8)) u_dropped (.clk(clk), .rst(rst), .error_in(full & |grant), .clear(1'b0),
          .error_count(dropped), .saturated(dropped_saturated));
    endmodule
"""

_SYNTH_MAKEFILE = """
    BLOCKS = billing_core retry_engine audit_bus

    billing_core_SRC = rtl/tax_calc.v rtl/sync_fifo.v rtl/billing_core.v
    retry_engine_SRC = rtl/retry_fsm.v rtl/retry_engine.v
    audit_bus_SRC = rtl/rr_arbiter.v rtl/sync_fifo.v rtl/error_counter.v rtl/audit_bus.v

    synth: $(BLOCKS:%=build/%.json)

    build:
    \tmkdir -p build

    .SECONDEXPANSION:
    build/%.json: $$($$*_SRC) | build
    \tyosys -p "read_verilog $($*_SRC); synth -top $*; check; stat; write_json $@"

    .PHONY: synth
"""


@case(
    "u63_make_yosys_missing_module",
    "make yosys",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR: Module `\\retry_backoff' referenced in module `\\retry_engine' in cell `\\u_backoff'",
        "build/retry_engine.json] Error 1",
        "Target 'synth' not remade because of errors.",
    ],
)
def _make_yosys_missing(root: Path) -> bytes:
    write(
        root,
        {
            "Makefile": _SYNTH_MAKEFILE,
            "rtl/tax_calc.v": _TAX_CALC,
            "rtl/sync_fifo.v": _SYNC_FIFO,
            "rtl/billing_core.v": _BILLING_CORE,
            "rtl/retry_fsm.v": _RETRY_FSM,
            "rtl/retry_backoff.v": _RETRY_BACKOFF,
            "rtl/retry_engine.v": _RETRY_ENGINE,
            "rtl/rr_arbiter.v": _RR_ARBITER,
            "rtl/error_counter.v": _ERROR_COUNTER,
            "rtl/audit_bus.v": _AUDIT_BUS,
        },
    )
    return _settle(sh("make -k synth", root), root)


# ---------------------------------------------------------------- GNU Arm embedded toolchain

_FW_MAKEFILE = """
    CC = arm-none-eabi-gcc
    SIZE = arm-none-eabi-size
    MCU = -mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16
    CFLAGS = $(MCU) -std=c11 -Os -g3 -Wall -Wextra -Wshadow -ffunction-sections -fdata-sections -fno-common \\
    \t-DSTM32F401xE -DUSE_FULL_LL_DRIVER -DHSE_VALUE=8000000 -Iinc -Idrivers/inc
    LDFLAGS = $(MCU) -T link.ld --specs=nano.specs --specs=nosys.specs -nostartfiles -Wl,--gc-sections \\
    \t-Wl,-Map=build/firmware.map,--cref -Wl,--print-memory-usage

    SRCS = $(sort $(wildcard drivers/*.c)) $(sort $(wildcard src/*.c))
    OBJS = $(SRCS:%.c=build/%.o)

    all: build/firmware.elf

    build/%.o: %.c
    \t@mkdir -p $(@D)
    \t$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

    build/firmware.elf: $(OBJS) link.ld
    \t$(CC) $(OBJS) $(LDFLAGS) -o $@
    \t$(SIZE) $@

    -include $(OBJS:.o=.d)
    .PHONY: all
"""


_LINK_LD = """
    MEMORY
    {{
      FLASH (rx)  : ORIGIN = 0x08000000, LENGTH = {flash}
      RAM   (rwx) : ORIGIN = 0x20000000, LENGTH = 64K
    }}

    _estack = ORIGIN(RAM) + LENGTH(RAM);

    SECTIONS
    {{
      .isr_vector : {{ KEEP(*(.isr_vector)) }} > FLASH
      .text : {{ *(.text*) *(.rodata*) . = ALIGN(4); _etext = .; }} > FLASH
      .data : {{ _sdata = .; *(.data*) . = ALIGN(4); _edata = .; }} > RAM AT > FLASH
      _sidata = LOADADDR(.data);
      .bss : {{ _sbss = .; *(.bss*) *(COMMON) . = ALIGN(4); _ebss = .; }} > RAM
    }}
"""

_STARTUP = """
    #include <stdint.h>

    extern uint32_t _estack, _sidata, _sdata, _edata, _sbss, _ebss;
    extern int main(void);

    void Reset_Handler(void)
    {
        uint32_t *src = &_sidata;
        for (uint32_t *dst = &_sdata; dst < &_edata;) {
            *dst++ = *src++;
        }
        for (uint32_t *dst = &_sbss; dst < &_ebss;) {
            *dst++ = 0;
        }
        main();
        for (;;) {
        }
    }

    void Default_Handler(void)
    {
        for (;;) {
        }
    }

    void HardFault_Handler(void) __attribute__((weak, alias("Default_Handler")));
    void SysTick_Handler(void) __attribute__((weak, alias("Default_Handler")));

    __attribute__((section(".isr_vector"), used)) static void (*const vectors[])(void) = {
        (void (*)(void))&_estack, Reset_Handler, Default_Handler, HardFault_Handler, Default_Handler,
        Default_Handler, Default_Handler, 0, 0, 0, 0, Default_Handler, Default_Handler, 0, Default_Handler,
        SysTick_Handler,
    };
"""


def _fw_module(name: str, k: int, words: int) -> str:
    """One firmware module: a constant table (calibration, rates, messages) and the functions that read it."""
    values = [(k * 2654435761 + i * 40503) & 0xFFFFFFFF for i in range(words)]
    rows = ",\n".join("    " + ", ".join(f"0x{v:08x}u" for v in values[r : r + 6]) for r in range(0, words, 6))
    # every third module's init ignores its mode: -Wextra's unused parameter warning
    mode_use = "    (void)mode;\n" if k % 3 else ""
    return (
        f'#include <stdint.h>\n#include "board.h"\n\n'
        f"static const uint32_t {name}_table[{words}] = {{\n{rows}\n}};\n\n"
        f"static uint32_t {name}_state;\n\n"
        f"void {name}_init(uint32_t mode)\n{{\n{mode_use}    {name}_state = BOARD_SEED ^ {k}u;\n}}\n\n"
        f"uint32_t {name}_lookup(uint32_t key)\n{{\n    uint32_t acc = {name}_state;\n"
        f"    for (uint32_t i = 0; i < 8u; i++) {{\n        acc ^= {name}_table[(key + i * 31u) % {words}u];\n"
        f"    }}\n    return acc;\n}}\n"
    )


def _firmware(root: Path, modules: list[str], words: int, flash: str, drivers: int) -> None:
    files = {
        "Makefile": _FW_MAKEFILE,
        "link.ld": _LINK_LD.format(flash=flash),
        "inc/board.h": "#pragma once\n#include <stdint.h>\n\n#define BOARD_SEED 0x5eed1234u\n",
        "src/startup_stm32f401.c": _STARTUP,
    }
    protos, calls = [], []
    for k, name in enumerate(modules):
        files[f"src/{name}.c"] = _fw_module(name, k, words)
        protos.append(f"void {name}_init(uint32_t mode);\nuint32_t {name}_lookup(uint32_t key);\n")
        calls.append(f"        sink ^= {name}_lookup(tick + {k}u);\n")
    for k, name in enumerate(_LL_DRIVERS[:drivers]):
        files[f"drivers/stm32f4xx_ll_{name}.c"] = _fw_module(f"ll_{name}", k + 1, 24)
        protos.append(f"void ll_{name}_init(uint32_t mode);\nuint32_t ll_{name}_lookup(uint32_t key);\n")
        calls.append(f"        sink ^= ll_{name}_lookup(tick);\n")
    inits = "".join(f"    {n}_init({k}u);\n" for k, n in enumerate(modules))
    inits += "".join(f"    ll_{n}_init(0u);\n" for n in _LL_DRIVERS[:drivers])
    files["src/main.c"] = (
        "#include <stdint.h>\n\n"
        + "".join(protos)
        + "\nvolatile uint32_t sink;\n\nint main(void)\n{\n"
        + inits
        + "    for (uint32_t tick = 0;; tick++) {\n"
        + "".join(calls)
        + "    }\n}\n"
    )
    write(root, files)


_LL_DRIVERS = [
    "adc", "bus", "comp", "cortex", "crc", "dac", "dma", "dma2d", "exti", "fmc", "fsmc", "gpio", "i2c", "iwdg",
    "lptim", "pwr", "rcc", "rng", "rtc", "sdmmc", "spi", "system", "tim", "usart", "usb", "utils", "wwdg", "fmpi2c",
]  # fmt: skip

_FW_MODULES = [
    "adc_calib", "billing_meter", "tariff_table", "tax_rates", "pricing_curve", "coupons_store", "orders_queue",
    "cart_cache", "refunds_log", "invoice_format", "ledger_flash", "shipping_zones", "catalog_index", "search_trie",
    "session_keys", "auth_tokens", "webhooks_tx", "audit_ring", "export_uart", "display_font", "keypad_map",
    "rtc_alarm", "modem_at", "gps_nmea", "crc_tables", "lcd_glyphs", "sensor_filter", "motor_pwm", "usb_desc",
]  # fmt: skip


@case(
    "u63_arm_gcc_flash_overflow",
    "make arm-none-eabi-gcc",
    clean=False,
    group=GROUP,
    decisive=[
        "region `FLASH' overflowed by",
        "collect2: error: ld returned 1 exit status",
        "make: *** [Makefile:19: build/firmware.elf] Error 1",
    ],
)
def _arm_overflow(root: Path) -> bytes:
    _firmware(root, _FW_MODULES, 540, "64K", 28)
    return _settle(sh("make", root), root)


_FW_CLEAN_MODULES = [
    "error_log", "fault_handler", "retry_queue", "failed_boot_counter", "exception_trace", "watchdog_errors",
    "billing_meter", "ledger_flash", "audit_ring", "session_keys", "webhooks_tx", "export_uart",
]  # fmt: skip


@case(
    "u63_arm_size_objdump_clean",
    "arm-none-eabi-size objdump",
    clean=True,
    group=GROUP,
    decisive=["(TOTALS)", "build/firmware.elf:     file format elf32-littlearm"],
)
def _arm_clean(root: Path) -> bytes:
    _firmware(root, _FW_CLEAN_MODULES, 120, "256K", 12)
    cmd = (
        "make && arm-none-eabi-size -t build/drivers/*.o build/src/*.o && arm-none-eabi-size -A build/firmware.elf"
        " && arm-none-eabi-objdump -h build/drivers/*.o build/src/*.o build/firmware.elf"
    )
    return _settle(sh(cmd, root), root)
