"""Every bootstrap design record (``uncertainty._bootstrap.BOOTSTRAP_DESIGNS``) does what its flags say.

A record declares what it resamples (``resamples_items``, ``resamples_raters``,
``resamples_clusters``, ``resamples_judged``), whether its weights are whole (``fractional``),
the ``Bootstrap`` fields it needs, whether ``strata=`` applies and whether it has a jackknife
(BCa). Each check below runs over every record, so a new design is held to all of them; the
statistics x designs grid is in ``tests/common/test_every_statistic.py``.
"""

import warnings

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.cli import _options
from softirr_stats.uncertainty import DESIGNS
from softirr_stats.uncertainty._bootstrap import BOOTSTRAP_DESIGNS, Bootstrap

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning",
                                        "ignore::softirr_stats.DegenerateWarning")

K = 5
LABELS = [f"term {i}" for i in range(K)]
RNG = np.random.default_rng(3)
WIDE = [[LABELS[c] for c in row] for row in RNG.integers(0, K, (24, 4))]
for i in range(0, 24, 2):  # agreement above chance
    WIDE[i][1] = WIDE[i][0]
F = RNG.uniform(0, 1, (K, K))
F = 0.5 * (F + F.T)
np.fill_diagonal(F, 1.0)
CLUSTER = np.arange(24) // 3  # 8 clusters of 3 items
STRATA = (np.arange(24) // 6) % 2  # constant within each cluster


def _config(name: str, **kw) -> Bootstrap:
    extra = {"cluster": CLUSTER} if "cluster" in BOOTSTRAP_DESIGNS[name].needs else {}
    return Bootstrap(n=30, seed=5, design=name, **extra, **kw)


def _judgments(ann: sis.Annotations):
    plan = sis.judging_plan(ann, similarity=F, n=40, coefficient="fleiss_kappa", seed=1)
    table = plan.pairs.copy()
    table["judgment"] = np.clip(F[plan.codes[0], plan.codes[1]] + 0.05, 0, 1)
    return table


def _fit(name: str, **kw):
    """Fleiss' kappa with the design's interval (with judgments for a design over judged pairs)."""
    ann = sis.Annotations.from_wide(WIDE, categories=LABELS)
    judged = {"judgments": _judgments(ann)} if BOOTSTRAP_DESIGNS[name].resamples_judged else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few-units notes are tested beside them
        return sis.fleiss_kappa(ann, similarity=F, ci=_config(name, **kw), **judged)


def test_the_public_list_and_the_command_line_read_the_records():
    assert DESIGNS == tuple(BOOTSTRAP_DESIGNS)
    assert set(_options.DESIGNS) | set(_options.CLI_LESS_DESIGNS) == set(BOOTSTRAP_DESIGNS)
    for name in _options.CLI_LESS_DESIGNS:  # left off the command line: they need data beside the file
        rec = BOOTSTRAP_DESIGNS[name]
        assert rec.needs or rec.resamples_judged, name


@pytest.mark.parametrize("name", list(BOOTSTRAP_DESIGNS))
def test_the_draw_resamples_what_the_record_says(name):
    rec = BOOTSTRAP_DESIGNS[name]
    assert rec.name == name and rec.unit and rec.description
    res = _fit(name)
    assert res.details["bootstrap_design"] == name
    assert res.ci_low <= res.value <= res.ci_high
    stat, cfg = res.details["statistic"], _config(name)
    C, V = rec.draw(stat, cfg, None, 0, 12)
    if rec.resamples_judged:  # the judged draws are re-weighted by the statistic itself
        assert C is None and V is None and stat.judged_pairs
        return
    assert (C is not None) == (rec.resamples_items or rec.resamples_clusters)
    assert (V is not None) == rec.resamples_raters
    if C is not None:
        assert C.shape == (12, stat.n_items)
        assert np.allclose(C.sum(axis=1), stat.n_items) or rec.resamples_clusters
        assert rec.fractional == bool((C != np.round(C)).any())
    if V is not None:
        assert V.shape == (12, stat.n_raters) and np.allclose(V.sum(axis=1), stat.n_raters)
    if rec.resamples_clusters:  # one weight per cluster, shared by its items
        assert all(np.ptp(C[:, CLUSTER == c], axis=1).max() == 0 for c in np.unique(CLUSTER))


@pytest.mark.parametrize("name", [n for n, r in BOOTSTRAP_DESIGNS.items() if not r.resamples_judged])
def test_a_replicate_depends_on_the_seed_and_its_index_only(name):
    rec, stat = BOOTSTRAP_DESIGNS[name], _fit(name).details["statistic"]
    whole = rec.draw(stat, _config(name), None, 0, 12)
    part = rec.draw(stat, _config(name), None, 4, 9)
    for w, p in zip(whole, part, strict=True):
        assert (w is None and p is None) or np.array_equal(w[4:9], p)


@pytest.mark.parametrize("name", list(BOOTSTRAP_DESIGNS))
def test_bca_runs_exactly_when_the_record_has_a_jackknife(name):
    if BOOTSTRAP_DESIGNS[name].jackknife is None:
        with pytest.raises(ValueError, match="jackknife"):
            _fit(name, method="bca")
    else:
        res = _fit(name, method="bca")
        assert res.ci_low <= res.value <= res.ci_high


@pytest.mark.parametrize("name", list(BOOTSTRAP_DESIGNS))
def test_needed_fields_and_strata_are_checked_when_the_request_is_made(name):
    rec = BOOTSTRAP_DESIGNS[name]
    for field in rec.needs:
        with pytest.raises(ValueError, match=field):
            Bootstrap(design=name)
    if rec.strata:
        res = _fit(name, strata=STRATA)
        assert res.ci_low <= res.value <= res.ci_high
    else:
        with pytest.raises(ValueError, match="strata= applies to"):
            _config(name, strata=STRATA)
