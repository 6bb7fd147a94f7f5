"""`python -m rag …` runs the command-line interface."""

from rag.cli import main

main()
