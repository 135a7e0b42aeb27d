"""A NUTS fit is one exported program: kept beside the compile cache, read back by the next fit
instead of tracing numpyro's kernels, keyed by everything it depends on; the draws do not depend
on whether it was traced or read back."""

import numpy as np
import numpyro
import pytest
from jax import export

import softirr_stats.base._jax as J
from softirr_stats import models
from softirr_stats.inference import NutsConfig, fit
from softirr_stats.inference._fit import _fingerprint

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.inference.ConvergenceWarning")  # short chains

CODES = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 1], [2, 2, 2], [2, 1, 2]] * 3)
SMALL = NutsConfig(num_warmup=60, num_samples=40)


def _draws(post):
    return {k: np.asarray(v) for k, v in post.samples_by_chain.items()}


def test_the_program_is_kept_and_read_back_without_tracing(program_cache, monkeypatch):
    first = _draws(fit(models.dawid_skene, CODES, method="nuts", seed=1, config=SMALL, progress=False))
    kept = list((program_cache / "exported").glob("*.jaxexport"))
    assert len(kept) == 1 and kept[0].stat().st_size > 1000
    J._EXPORTED.clear()  # as in a new process: only the file is left

    def no_tracing(*a, **k):
        raise AssertionError("the kept program should have been read back, not traced again")

    monkeypatch.setattr(export, "export", no_tracing)
    again = _draws(fit(models.dawid_skene, CODES, method="nuts", seed=1, config=SMALL, progress=False))
    assert again.keys() == first.keys() and all(np.array_equal(again[k], first[k]) for k in first)
    other_seed = _draws(fit(models.dawid_skene, CODES, method="nuts", seed=2, config=SMALL, progress=False))
    assert not np.array_equal(other_seed["pi"], first["pi"])  # the seed is an argument of the one program
    assert len(list((program_cache / "exported").glob("*.jaxexport"))) == 1


@pytest.fixture(scope="module")
def kept_fit(tmp_path_factory):
    """The fit of CODES (seed 1) with its program kept, once for the module: its draws and the kept file's
    name and bytes. A test that damages or bypasses the file starts from a fresh cache (``program_cache``)
    and puts the file there itself, as the fit before it in the same cache would have left it."""
    import jax

    previous = jax.config.jax_compilation_cache_dir
    cache = tmp_path_factory.mktemp("kept") / "jax"
    J.compile_cache(cache)
    J._EXPORTED.clear()
    try:
        draws = _draws(fit(models.dawid_skene, CODES, method="nuts", seed=1, config=SMALL, progress=False))
        (kept,) = (cache / "exported").glob("*.jaxexport")
        return draws, kept.name, kept.read_bytes()
    finally:
        J._EXPORTED.clear()
        J.compile_cache(previous or False)


def test_a_damaged_file_is_traced_again_and_replaced(kept_fit, program_cache):
    first, name, _ = kept_fit
    kept = program_cache / "exported" / name  # where this fit keeps its program: the name is its fingerprint
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_bytes(b"not a program")
    again = _draws(fit(models.dawid_skene, CODES, method="nuts", seed=1, config=SMALL, progress=False))
    assert all(np.array_equal(again[k], first[k]) for k in first)
    assert kept.stat().st_size > 1000


def test_same_draws_with_the_cache_off(kept_fit, program_cache):
    kept = kept_fit[0]  # drawn by the kept (exported) program
    J.compile_cache(False)
    J._EXPORTED.clear()
    off = _draws(fit(models.dawid_skene, CODES, method="nuts", seed=1, config=SMALL, progress=False))
    assert all(np.array_equal(off[k], kept[k]) for k in kept)


def test_the_fingerprint_follows_data_settings_and_model():
    data = models.encode_annotations(CODES)
    ds, mace = models.dawid_skene, models.mace
    base = _fingerprint("categorical", ds, data, SMALL, {"priors": None})
    assert base == _fingerprint("categorical", ds, models.encode_annotations(CODES.copy()), SMALL, {"priors": None})
    changed = CODES.copy()
    changed[0, 0] = 2
    assert base != _fingerprint("categorical", ds, models.encode_annotations(changed), SMALL, {"priors": None})
    assert base != _fingerprint("categorical", ds, data, NutsConfig(num_warmup=61, num_samples=40), {"priors": None})
    assert base != _fingerprint("categorical", mace, data, SMALL, {"priors": None})
    assert base != _fingerprint("categorical", ds, data, SMALL, {"priors": models.DawidSkenePriors(accuracy=0.6)})
    assert _fingerprint("custom", ds, data, SMALL, {}) is None  # a user's model: never kept on disk
    assert _fingerprint("categorical", ds, data, SMALL, {"priors": object()}) is None  # unreadable: not kept


def _codes(seed, n=18):
    rng = np.random.default_rng(seed)
    return np.where(rng.random((n, 3)) < 0.3, rng.integers(0, 3, (n, 3)), rng.integers(0, 3, n)[:, None])


def test_data_sets_of_one_shape_share_one_program_with_the_same_draws(program_cache, monkeypatch):
    """The data's arrays are arguments of the program (issue 35): one program per shape, kept
    once; the draws are those of a program with the data as constants, bit for bit."""
    import jax

    import softirr_stats.inference._fit as F

    # two data sets show the sharing (each more costs a compile of the constants program below)
    posts = [fit(models.mace, _codes(s), method="nuts", seed=s, config=SMALL, progress=False) for s in range(2)]
    assert len(list((program_cache / "exported").glob("*.jaxexport"))) == 1
    for s, post in enumerate(posts):
        data = models.encode_annotations(_codes(s))
        k_run, _ = jax.random.split(jax.random.key(s))
        kwargs = {"priors": None}
        constants, _ = F._run_nuts(models.mace, data, k_run, SMALL, kwargs, False, None)  # not kept
        assert all(np.array_equal(constants[k], post.samples_by_chain[k]) for k in constants)
    assert not np.array_equal(posts[0].samples_by_chain["theta"], posts[1].samples_by_chain["theta"])
    fit(models.mace, _codes(0, n=19), method="nuts", seed=0, config=SMALL, progress=False)
    assert len(list((program_cache / "exported").glob("*.jaxexport"))) == 2  # another shape, another program


def test_a_model_that_reads_its_data_values_gets_a_program_of_its_own(program_cache):
    """soft_agreement(drop_gap_pieces=True) picks its pieces from the scores: the data stay constants."""
    sims = [models.simulate_soft_scores(12, 3, intercept=0.7, n_chance=40, seed=s)["data"] for s in range(2)]
    posts = [fit("soft", d, method="nuts", seed=0, config=SMALL, progress=False, emission="monotone",
                 drop_gap_pieces=True) for d in sims]
    assert all(np.isfinite(p.samples_by_chain["kappa"]).all() for p in posts)
    assert len(list((program_cache / "exported").glob("*.jaxexport"))) == 2
    # NUTS draws the emission's Dirichlet sites as normalised Gammas (models/_gamma_dirichlet.py):
    # the posterior keeps the model's sites (pieces and atoms, summing to 1), not the Gamma coordinates
    # (the pieces are "equiv_weights" or, where the scores leave a gap, "equiv_weights_kept")
    for p in posts:
        draws = p.samples_by_chain
        assert not [k for k in draws if k.endswith("_gamma")]
        for name in ("equiv_weights", "nonequiv_weights", "equiv_atoms", "nonequiv_atoms"):
            assert np.allclose(np.asarray(draws[name]).sum(-1), 1.0, atol=1e-5)


def test_soft_nuts_samples_the_gamma_parametrisation_at_its_target(program_cache, monkeypatch):
    """fit's NUTS kernel for the soft model gets the Gamma-parametrised model and target 0.9 by
    default, the user's target when given; a categorical model neither. (A fresh program cache:
    a program read back is not traced, so its kernel is not built.)"""
    import softirr_stats.inference._fit as F

    seen = []
    real = F.NUTS

    def spy(model, **options):
        seen.append((model, options["target_accept_prob"]))
        return real(model, **options)

    monkeypatch.setattr(F, "NUTS", spy)
    d = models.simulate_soft_scores(12, 3, intercept=0.7, n_chance=40, seed=0)["data"]
    tiny = NutsConfig(num_warmup=5, num_samples=5)
    fit("soft", d, method="nuts", config=tiny, progress=False)
    fit("soft", d, method="nuts", config=NutsConfig(num_warmup=5, num_samples=5, target_accept=0.85),
        progress=False)
    fit(models.mace, _codes(0), method="nuts", config=tiny, progress=False)
    (soft, t1), (_, t2), (cat, t3) = seen
    assert (t1, t2, t3) == (0.9, 0.85, 0.8)
    trace = numpyro.handlers.trace(numpyro.handlers.seed(soft, 0)).get_trace(d)
    assert trace["equiv_weights_gamma"]["type"] == "sample" and trace["equiv_weights"]["type"] == "deterministic"
    assert cat is models.mace


def test_progress_bar_is_a_host_callback_on_the_same_program(program_cache, monkeypatch):
    """With a bar, the same compiled MCMC runs with a ticking kernel (numpyro's own bar off), not exported.

    (Checked on the call, not on the bar's text: whether tqdm's output reaches a captured
    stderr depends on what the worker process ran before. tests/inference/test_fit_progress.py checks
    that the draws are those of the run without the bar, bit for bit.)"""
    import softirr_stats.inference._fit as F

    bars, kernels = [], []
    real = F.MCMC

    def spy(kernel, *args, **kwargs):
        bars.append(kwargs.get("progress_bar"))
        kernels.append(type(kernel).__name__)
        return real(kernel, *args, **kwargs)

    def no_export(*args, **kwargs):
        raise AssertionError("the run with a bar (a host callback) must not build the exported program")

    monkeypatch.setattr(F, "MCMC", spy)
    monkeypatch.setattr(F, "exported_program", no_export)
    post = fit(models.dawid_skene, CODES, method="nuts", seed=1, config=SMALL, progress=True)
    assert bars == [False] and kernels == ["_TickingNUTS"]  # one MCMC in one program; our bar, not numpyro's
    assert post.samples_by_chain["pi"].shape == (2, 40, 3)
    assert np.isfinite(post.samples_by_chain["pi"]).all()
    assert not (program_cache / "exported").exists()  # a program with a host callback is not exported
