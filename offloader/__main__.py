"""``python -m offloader``: the ``offload`` command line."""

from offloader.cli import main

main(prog_name="offload")
