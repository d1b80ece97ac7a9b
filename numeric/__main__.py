import sys

from .cli.main import program

sys.exit(program())
