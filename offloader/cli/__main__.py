"""``python -m offloader.cli``."""

from offloader.cli import main

main()
