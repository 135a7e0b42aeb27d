"""One seed check (base._validation.check_seed, the bootstrap's): every seeded option takes an integer in
[0, 2**63 - 1] and refuses the rest with the same message. Bootstrap refused 2**70 while MonteCarlo,
SampledPairs, Permutation, distance_agreement and judging_plan took it."""

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.base._validation import MAX_SEED, check_seed
from softirr_stats.uncertainty import Permutation

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.FewUnitsWarning")

ANN = sis.Annotations.from_wide([["a", "b", "a", "a"], ["b", "b", "c", "b"], ["c", "c", "c", "a"],
                                 ["a", "a", "b", "b"], ["b", "c", "c", "c"], ["a", "a", "a", "a"]])

ROUTES = {
    "Bootstrap": lambda s: sis.Bootstrap(n=10, seed=s),
    "MonteCarlo": lambda s: sis.MonteCarlo(permutations=3, seed=s),
    "SampledPairs": lambda s: sis.SampledPairs(n=10, seed=s),
    "resolve_chance": lambda s: sis.agreement.resolve_chance("mc:3", seed=s),
    "Permutation": lambda s: Permutation(n=10, seed=s),
    "distance_agreement": lambda s: sis.distance_agreement(ANN, method="sigma", expected_pairs=10, seed=s),
    "judging_plan": lambda s: sis.judging_plan(ANN, similarity="levenshtein", n=5, seed=s),
    "compare_groups": lambda s: sis.compare_groups(ANN, [0, 1], [2, 3], coefficient="percent_agreement",
                                                   ci=sis.Bootstrap(n=20), permutations=5, seed=s),
}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("seed", [2**63, 2**70, -1])
def test_every_route_refuses_a_seed_out_of_range_with_one_message(route, seed):
    with pytest.raises(ValueError, match=rf"^seed must be an integer in \[0, 2\*\*63 - 1\]; got {seed}$"):
        ROUTES[route](seed)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("seed", [1.5, True, "7"])
def test_every_route_refuses_a_seed_that_is_no_integer(route, seed):
    with pytest.raises(TypeError, match=r"seed must be an integer in \[0, 2\*\*63 - 1\]"):
        ROUTES[route](seed)


FITS = {
    "inference.fit": lambda s: sis.inference.fit("dawid_skene", ANN, method="svi", seed=s),
    "annotator_agreement": lambda s: sis.annotator_agreement(ANN, method="svi", seed=s),
    "simulate_dawid_skene": lambda s: sis.models.simulate_dawid_skene(5, 3, 2, seed=s),
}


@pytest.mark.parametrize("route", FITS)
def test_the_annotator_models_refuse_a_seed_out_of_range_before_fitting(route):
    with pytest.raises(ValueError, match=r"^seed must be an integer in \[0, 2\*\*63 - 1\]; got 2361183241434822606848$"):
        FITS[route](2**71)


@pytest.mark.parametrize("route", ROUTES)
def test_every_route_takes_the_largest_seed(route):
    ROUTES[route](MAX_SEED)


def test_check_seed_returns_a_python_int():
    assert check_seed(np.int64(5)) == 5 and type(check_seed(np.int64(5))) is int
    assert MAX_SEED == 2**63 - 1
