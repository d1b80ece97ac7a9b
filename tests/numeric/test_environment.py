"""numeric's JSON results record where they were computed (docs/changelog.md)."""

import json

import numpy
import scipy

from numeric.cli.main import main


def _printed(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_fit_ratio_and_recombination_json_carry_the_environment(capsys):
    for data in (
        _printed(capsys, ["fit", "--model", "mha", "--K", "3", "--n", "300", "--json"]),
        _printed(capsys, ["ratio", "--model", "mha", "--mc", "2000", "--json"])[0],
        _printed(capsys, ["ratio", "--model", "gated1", "--path", "recombination", "--mc", "2000", "--json"]),
    ):
        env = data["environment"]
        assert (env["numpy"], env["scipy"]) == (numpy.__version__, scipy.__version__)
        assert env["blas"] and all(b["num_threads"] == 1 for b in env["blas"])  # the CLI runs with one BLAS thread
