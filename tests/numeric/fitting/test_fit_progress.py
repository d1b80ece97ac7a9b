"""A fit shows its progress and, when long, its estimated time before it starts."""

import importlib

import pytest

from numeric.fitting.attention_fit import estimate_seconds, fit

#: the module (numeric.fit is the function it re-exports)
fit_module = importlib.import_module("numeric.fitting.attention_fit")


@pytest.mark.parametrize("optimizer", ["lm", "gd", "trf"])
def test_every_iteration_is_reported_with_its_mse(optimizer):
    texts = []
    result = fit("gated1", 2, 300, optimizer=optimizer, max_epochs=5, progress=texts.append)
    assert texts[0].endswith("generating the data")
    iterations = texts[1:]
    assert iterations and all(f" {optimizer}: iteration " in t for t in iterations)
    numbers = [int(t.split("iteration ")[1].split(",")[0]) for t in iterations]
    assert numbers == list(range(1, len(numbers) + 1))
    if optimizer != "trf":  # trf reports residual evaluations, not its (hidden) iterations
        assert numbers[-1] == result.iterations
    mses = [float(t.split("MSE ")[1].split(",")[0]) for t in iterations]
    if optimizer == "lm":  # lm accepts only steps that lower the MSE
        assert mses == sorted(mses, reverse=True)
        assert mses[-1] == pytest.approx(result.mse, rel=1e-5)


def test_a_long_fit_is_announced_once_and_a_short_one_not(monkeypatch):
    notices = []
    fit("gated1", 2, 300, notice=notices.append)
    assert notices == []
    monkeypatch.setattr(fit_module, "LONG_FIT_SECONDS", 0.0)
    fit("gated1", 2, 300, notice=notices.append)
    assert (
        len(notices) == 1 and notices[0].startswith("this fit may take ") and "lm takes 9–150 iterations" in notices[0]
    )


def test_the_estimate_scales_with_the_data_and_brackets_the_typical_iterations():
    from numeric.experiments.data import sample
    from numeric.model.attention_truth import load_truth

    truth = load_truth()
    m = truth.model("gated1")
    P = truth.params
    X, _ = sample(truth, m, 8000, 0)
    theta = P.to_vector()
    shape = (P.H, P.N, P.K, P.dim)
    low, high, per = estimate_seconds(m, X, theta, shape, "lm")
    assert per > 0 and low == pytest.approx(9 * per) and high == pytest.approx(150 * per)
    low_gd, high_gd, _ = estimate_seconds(m, X, theta, shape, "gd", max_epochs=1000)
    assert low_gd == high_gd > 0


def test_the_cli_shows_progress_on_a_pipe_only_when_asked(capsys, monkeypatch):
    import identcheck.util.progress
    from numeric.cli.main import main

    # every line (this fit lasts well under a second)
    monkeypatch.setattr(identcheck.util.progress, "PIPE_INTERVAL", 0.0)
    assert main(["fit", "--model", "gated1", "--K", "2", "--n", "300", "--json"]) == 0
    assert "iteration" not in capsys.readouterr().err  # a pipe, not asked: quiet
    assert main(["fit", "--model", "gated1", "--K", "2", "--n", "300", "--json", "--progress"]) == 0
    captured = capsys.readouterr()
    assert "lm: iteration 1, MSE" in captured.err and "\033" not in captured.err  # plain lines on a pipe
    assert captured.out.lstrip().startswith("{")  # stdout stays the JSON
