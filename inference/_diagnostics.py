"""Fit diagnostics of an annotator model in one record: r_hat, ESS, divergences, predictive checks, caveats.

:func:`diagnostics` is what every place that shows a model (the HTML report's model section, the
``softirr model`` table and JSON) calls, so that they all show the same numbers and the same
caveat lines. :func:`model_caveats` turns a :class:`FitDiagnostics` (and the warnings caught
while fitting) into those lines of plain text.
"""

import math
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from softirr_stats.base._format import format_draw_p
from softirr_stats.base._validation import check_level
from softirr_stats.inference._config import DEFAULT_LEVEL

__all__ = ["SVI_NOTE", "FitDiagnostics", "diagnostics", "model_caveats"]

#: r_hat above this, or a bulk ESS below ``ESS_PER_CHAIN`` per chain, gives a caveat.
RHAT_MAX = 1.01
#: r_hat above this on an element of the model's nuisance sites gives a caveat (their ESS none).
NUISANCE_RHAT_MAX = 1.05
ESS_PER_CHAIN = 100
#: A predictive-check p-value outside [PPC_LOW, 1 - PPC_LOW] gives a caveat line (the
#: ``PredictiveCheckWarning`` itself is raised at 0.01 / 0.99).
PPC_LOW = 0.05
#: What to say beside an SVI fit (not a caveat: nothing failed).
SVI_NOTE = ("SVI is a variational approximation with no convergence diagnostic (no r_hat, no divergences); "
            "its intervals can be too narrow: refit with NUTS to check them.")


@dataclass(frozen=True)
class FitDiagnostics:
    """Diagnostics of one fitted annotator model (see :func:`diagnostics`).

    Attributes
    ----------
    model, method : str
    n_chains, n_draws : int
        Chains and draws per chain (SVI: one "chain" of independent draws).
    max_r_hat : float
        Largest rank-normalised split r_hat (Vehtari et al. 2021; ArviZ's ``method="rank"``)
        over every sampled and derived element but those of the
        model's nuisance sites (nan for SVI or one short chain).
    min_ess : float
        Smallest bulk effective sample size over the same elements (SVI: the draws).
    worst_r_hat, worst_ess : str
        The elements holding them, read by rater, true class and given label where the fit
        knows them (``beta: rater r1, true A, given B`` for ``beta[0,0,1]``, as the ``label``
        column of ``Posterior.summary()``), else by index (``beta[0,0,1]``).
    max_r_hat_nuisance, min_ess_nuisance : float
        The same over the elements of the nuisance sites (``Posterior.model_kind.nuisance_sites``:
        the soft model's emission pieces, intercept and rater z, identified jointly, not one by
        one); nan when the model has none. Their r_hat is held to 1.05, their ESS to nothing.
    worst_r_hat_nuisance, worst_ess_nuisance : str
    n_divergent, n_transitions : int
        Divergent post-warmup transitions (NUTS; 0 for SVI) and how many there were.
    ppc_statistic : str
        ``"fleiss_kappa"`` (categorical models), ``"score_chi2"`` (soft) or ``""`` (none run).
    ppc_observed, ppc_replicated_mean, ppc_p_value : float
        The statistic on the data, its mean over replicated data sets, ``P(T_rep >= T_obs)`` (both
        over the replicates where the statistic is defined; p nan where the observed one is not:
        the check was not run). The p-value is the share of ``ppc_n_draws`` draws (for the score
        check too: a share of replicated chi-square discrepancies, not a chi-square tail).
    rater_statistic : str
        The per-rater predictive check's statistic (:func:`~softirr_stats.inference.rater_predictive_check`,
        categorical models: ``"pairwise"``), ``""`` where none was run.
    rater_alpha : float
        Its family-wise level (a rater fails at ``p < rater_alpha / n_raters``); nan where none was run.
    rater_check : tuple of dict
        Its table, one record per rater (``rater``, ``n_ratings``, ``observed``, ``replicated_mean``,
        ``lower``, ``upper``, ``p_value``, ``n_draws``, ``failed``): the numbers of
        ``annotator_agreement(...).details["rater_check"]``.
    n_labels, labels_per_item : int, float
        Categorical models: labels used and distinct labels per rated item.
    open_vocabulary : bool
        Categorical model on what looks like free text (:func:`~softirr_stats.inference.open_vocabulary`).
    level : float
        The interval level the diagnostics were shown with.
    caveats : tuple of str
        One line per problem (:func:`model_caveats`); empty when every check passes.
    ppc_n_draws : int
        The replicated draws ``ppc_p_value`` is a share of (those where the statistic is defined); 0 where
        it is not known (no check, or a record built without it). A share of 0 is shown as
        ``p < 1/ppc_n_draws`` (:func:`~softirr_stats.base._format.format_draw_p`), not ``p = 0.000``.

    Examples
    --------
    >>> d = FitDiagnostics("dawid_skene", "nuts", 2, 500, max_r_hat=1.002, min_ess=820.0, n_transitions=1000)
    >>> d.ok, d.to_frame()["status"].tolist()
    (True, ['ok', 'ok', 'ok'])
    """

    model: str
    method: str
    n_chains: int
    n_draws: int
    max_r_hat: float = math.nan
    worst_r_hat: str = ""
    min_ess: float = math.nan
    worst_ess: str = ""
    max_r_hat_nuisance: float = math.nan
    worst_r_hat_nuisance: str = ""
    min_ess_nuisance: float = math.nan
    worst_ess_nuisance: str = ""
    n_divergent: int = 0
    n_transitions: int = 0
    ppc_statistic: str = ""
    ppc_observed: float = math.nan
    ppc_replicated_mean: float = math.nan
    ppc_p_value: float = math.nan
    rater_statistic: str = ""
    rater_alpha: float = math.nan
    rater_check: tuple[dict[str, Any], ...] = field(default=(), repr=False, hash=False)
    n_labels: int = 0
    labels_per_item: float = math.nan
    open_vocabulary: bool = False
    level: float = DEFAULT_LEVEL
    caveats: tuple[str, ...] = ()
    sampler_warnings: tuple[str, ...] = field(default=(), repr=False)
    ppc_n_draws: int = 0

    @property
    def ok(self) -> bool:
        """True when there is no caveat."""
        return not self.caveats

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict (caveats a list); ``nan`` stays ``nan``, which ``json.dumps`` writes as
        ``NaN`` (not JSON): :meth:`to_json` writes ``null``."""
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["caveats"] = list(self.caveats)
        out["rater_check"] = [dict(r) for r in self.rater_check]
        out["sampler_warnings"] = list(self.sampler_warnings)
        return out

    def to_json(self, *, indent: int | None = None) -> str:
        """:meth:`to_dict` as strict JSON (``nan`` and infinities as ``null``)."""

        from softirr_stats.base._format import json_text

        return json_text(self.to_dict(), indent=indent)

    def _repr_html_(self) -> str:
        """The diagnostics table and the caveat lines, for notebooks.

        Examples
        --------
        >>> d = FitDiagnostics("dawid_skene", "nuts", 2, 500, max_r_hat=1.0012345, min_ess=900.0,
        ...                    n_transitions=1000)
        >>> "1.001" in d._repr_html_() and "1.0012345" not in d._repr_html_()
        True
        """
        from softirr_stats.base._html_repr import frame_html

        caption = (f"Fit diagnostics: {self.model} by {self.method.upper()}"
                   + (f", {self.n_chains} chains x {self.n_draws} draws" if self.method == "nuts" else "")
                   + (" (all checks pass)" if self.ok else " (see the caveats)"))
        frame = self.to_frame()
        texts = self.p_value_texts()
        frame["value"] = [texts.get(d, v) for d, v in zip(frame["diagnostic"], frame["value"], strict=True)]
        return frame_html(frame, caption, [f"caveat: {c}" for c in self.caveats])

    def p_value_texts(self, digits: int = 4) -> dict[str, str]:
        """The Monte Carlo p-values of :meth:`to_frame` as text for reading, by ``diagnostic``: the predictive
        check's and the per-rater check's (the lowest), by :func:`~softirr_stats.base._format.format_draw_p`
        (a share of 0 of N draws as ``< 1/N (none of N draws)``, not ``0.0000``).

        Tables meant for reading (``softirr model``, the report's model section) show these in the ``value``
        column; :meth:`to_frame` keeps the numbers.

        Examples
        --------
        >>> d = FitDiagnostics("dawid_skene", "svi", 1, 400, ppc_statistic="fleiss_kappa", ppc_observed=0.1,
        ...                    ppc_replicated_mean=0.5, ppc_p_value=1.0, ppc_n_draws=400)
        >>> d.p_value_texts()
        {'predictive check p (fleiss_kappa)': '> 0.9975 (all 400 draws)'}
        """
        out = {}
        if self.ppc_statistic:
            out[f"predictive check p ({self.ppc_statistic})"] = format_draw_p(
                self.ppc_p_value, self.ppc_n_draws or None, digits, name="", na="nan")
        if self.rater_statistic:
            label, p, _, _ = self._rater_row()
            i = self._lowest_rater()
            n = None if i is None else self.rater_check[i].get("n_draws")
            out[label] = format_draw_p(p, n or None, digits, two_sided=True, name="", na="nan")
        return out

    def _lowest_rater(self) -> int | None:
        """Index of the rater record with the smallest p-value (None where no p-value is defined)."""
        ps = np.array([r["p_value"] for r in self.rater_check], dtype=np.float64)
        return int(np.nanargmin(ps)) if np.isfinite(ps).any() else None

    def to_frame(self) -> pd.DataFrame:
        """Tidy table: ``diagnostic, value, target, status`` (one row per check).

        ``status`` is ``"ok"``, ``"check"`` (a caveat line says why) or ``"n/a"``.
        """
        rows: list[tuple[str, Any, str, str]] = []

        def status(bad: bool, known: bool = True) -> str:
            return "n/a" if not known else ("check" if bad else "ok")

        rhat_known = np.isfinite(self.max_r_hat)
        rows.append(("max r_hat" + (f" ({self.worst_r_hat})" if self.worst_r_hat else ""),
                     self.max_r_hat, f"<= {RHAT_MAX}", status(self.max_r_hat > RHAT_MAX, rhat_known)))
        ess_target = ESS_PER_CHAIN * max(self.n_chains, 1)
        rows.append(("min bulk ESS" + (f" ({self.worst_ess})" if self.worst_ess else ""), self.min_ess,
                     f">= {ess_target}", status(self.min_ess < ess_target, bool(np.isfinite(self.min_ess))
                                                and self.method == "nuts")))
        if np.isfinite(self.max_r_hat_nuisance):
            rows.append(("max r_hat, nuisance" + (f" ({self.worst_r_hat_nuisance})"
                                                  if self.worst_r_hat_nuisance else ""),
                         self.max_r_hat_nuisance, f"<= {NUISANCE_RHAT_MAX}",
                         status(self.max_r_hat_nuisance > NUISANCE_RHAT_MAX)))
        if np.isfinite(self.min_ess_nuisance) and self.method == "nuts":
            rows.append(("min bulk ESS, nuisance" + (f" ({self.worst_ess_nuisance})"
                                                     if self.worst_ess_nuisance else ""),
                         self.min_ess_nuisance, "", ""))
        rows.append(("divergent transitions", float(self.n_divergent),
                     f"0 of {self.n_transitions}", status(self.n_divergent > 0, self.method == "nuts")))
        if self.ppc_statistic == "score_chi2":  # one-sided (see notes())
            from softirr_stats.inference._kinds import SCORE_CHECK_P

            rows.append((f"predictive check p ({self.ppc_statistic})", self.ppc_p_value,
                         f"> {SCORE_CHECK_P}", status(self.ppc_p_value <= SCORE_CHECK_P,
                                                      bool(np.isfinite(self.ppc_p_value)))))
        elif self.ppc_statistic:
            rows.append((f"predictive check p ({self.ppc_statistic})", self.ppc_p_value,
                         f"in [{PPC_LOW}, {1 - PPC_LOW}]",
                         status(not (PPC_LOW <= self.ppc_p_value <= 1 - PPC_LOW),
                                bool(np.isfinite(self.ppc_p_value)))))
        if self.ppc_statistic:
            rows.append((f"observed {self.ppc_statistic}", self.ppc_observed, "", ""))
            rows.append((f"replicated {self.ppc_statistic} (mean)", self.ppc_replicated_mean, "", ""))
        if self.rater_statistic:
            rows.append(self._rater_row())
        if self.n_labels:
            rows.append(("distinct labels per item", self.labels_per_item, f"{self.n_labels} labels",
                         "check" if self.open_vocabulary else "ok"))
        return pd.DataFrame(rows, columns=["diagnostic", "value", "target", "status"])

    def _rater_row(self) -> tuple[str, Any, str, str]:
        """The per-rater check in one row: the smallest p-value (and whose), against ``alpha / n_raters``."""
        n = len(self.rater_check)
        target = f">= {self.rater_alpha:g}/{n}"  # Bonferroni over the raters
        i = self._lowest_rater()
        if i is None:
            return ("per-rater check p", math.nan, target, "n/a")
        failed = any(r["failed"] for r in self.rater_check)
        return (f"per-rater check p (lowest: rater {self.rater_check[i]['rater']})",
                float(self.rater_check[i]["p_value"]), target, "check" if failed else "ok")


def _rater_check(posterior: Any, details: Any, predictive_check: Any) -> Any:
    """The per-rater predictive check of a categorical fit: the result's own (``details["rater_check"]``),
    else run once per posterior (no warning: its failure is a caveat line); None where it does not apply."""
    if predictive_check is False or not callable(getattr(posterior.model_kind, "replicated", None)):
        return None
    table = details.get("rater_check") if isinstance(details, dict) else None
    if isinstance(table, pd.DataFrame):
        return table
    table = posterior._cache.get("diagnostics_rater_check")
    if table is None:
        from softirr_stats.inference._rater_check import rater_predictive_check

        table = rater_predictive_check(posterior, warn=False)
        posterior._cache["diagnostics_rater_check"] = table
    return table


def _worst(posterior: Any, nuisance: bool = False) -> tuple[float, str, float, str]:
    """Largest r_hat and smallest ESS, and their elements, over the sites outside the model
    kind's nuisance sites (``nuisance=True``: over those sites alone)."""
    from softirr_stats.inference._posterior import _element_names, readable_elements

    sites = set(posterior.model_kind.nuisance_sites)
    max_r, worst_r, min_e, worst_e = -math.inf, "", math.inf, ""
    for name, arr in posterior.samples_by_chain.items():
        if (name in sites) != nuisance:
            continue
        rhat, ess = posterior._diagnostics(arr)
        names = _element_names(name, arr.shape[2:])
        rhat, ess = np.ravel(rhat), np.ravel(ess)
        if np.isfinite(rhat).any():
            i = int(np.nanargmax(rhat))
            if rhat[i] > max_r:
                max_r, worst_r = float(rhat[i]), names[i]
        if np.isfinite(ess).any():
            i = int(np.nanargmin(ess))
            if ess[i] < min_e:
                min_e, worst_e = float(ess[i]), names[i]
    worst_r, worst_e = readable_elements([worst_r, worst_e], posterior)
    return (max_r if np.isfinite(max_r) else math.nan, worst_r,
            min_e if np.isfinite(min_e) else math.nan, worst_e)


def diagnostics(posterior: Any, *, predictive_check: Any = True, level: float = DEFAULT_LEVEL,
                caught: Iterable[Any] = ()) -> FitDiagnostics:
    """r_hat, ESS, divergences, the posterior predictive check and caveat lines of a fit.

    Parameters
    ----------
    posterior : Posterior or AgreementResult
        A fit (:func:`softirr_stats.inference.fit`), or the result of
        :func:`~softirr_stats.inference.annotator_agreement` (its posterior and the
        predictive check it already ran are used: nothing is refitted or re-run).
    predictive_check : bool or PredictiveCheck
        ``True`` runs the model's check (categorical: observed Fleiss kappa; soft model:
        score distributions) unless the result carries one; ``False`` skips it; a
        :class:`PredictiveCheck` is used as it is. Unless ``False``, a categorical model also
        gets the per-rater check (:func:`~softirr_stats.inference.rater_predictive_check`, the
        result's ``details["rater_check"]`` where it carries one, as ``annotator_agreement``
        runs it).
    level : float
        The interval level shown beside the diagnostics (recorded only).
    caught : iterable of warnings.WarningMessage or str
        Warnings caught while fitting; sampler and fit warnings among them become caveats.

    Returns
    -------
    FitDiagnostics
        ``.to_frame()`` for a table, ``.to_dict()`` for JSON, ``.caveats`` for the lines.

    Examples
    --------
    >>> import numpy as np
    >>> from softirr_stats import inference, models
    >>> codes = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 1]] * 10)
    >>> post = inference.fit(models.dawid_skene, codes, method="svi", progress=False,
    ...                      config=inference.SviConfig(steps=300, num_draws=200))
    >>> d = inference.diagnostics(post)
    >>> d.method, d.n_divergent, d.ppc_statistic, 0 <= d.ppc_p_value <= 1
    ('svi', 0, 'fleiss_kappa', True)
    >>> list(d.to_frame().columns)
    ['diagnostic', 'value', 'target', 'status']
    """
    from softirr_stats.inference._posterior import Posterior, PredictiveCheck

    level = check_level(level)
    check = details = None
    if not isinstance(posterior, Posterior):
        details = getattr(posterior, "details", None)
        post = details.get("posterior") if isinstance(details, dict) else None
        if not isinstance(post, Posterior):
            raise TypeError("diagnostics needs a Posterior (inference.fit) or the result of "
                            f"annotator_agreement; got {type(posterior).__name__}")
        if predictive_check is True:
            check = details.get("predictive_check") or details.get("score_check")
        posterior = post
    if isinstance(predictive_check, PredictiveCheck):
        check = predictive_check
    elif check is None and predictive_check is True and posterior.model_kind.check:
        cached = posterior._cache.get("diagnostics_check")
        if cached is None:  # the kind's own check (categorical: Fleiss kappa; soft: score distribution)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cached = getattr(posterior, posterior.model_kind.check)(warn=False)
            posterior._cache["diagnostics_check"] = cached
        check = cached
    elif not isinstance(predictive_check, bool):
        raise TypeError(f"predictive_check must be True, False or a PredictiveCheck; got {predictive_check!r}")
    max_r, worst_r, min_e, worst_e = _worst(posterior)
    max_rn, worst_rn, min_en, worst_en = _worst(posterior, nuisance=True)
    if posterior.method == "svi":  # independent draws of the guide: every element has ESS = draws
        worst_e = worst_en = ""
    div = np.asarray(posterior.extra.get("diverging", np.zeros(0, bool)))
    kw: dict[str, Any] = {}
    if check is not None:
        kw.update(ppc_statistic=check.statistic, ppc_observed=float(check.observed),
                  ppc_replicated_mean=check.replicated_mean,  # over the replicates where it is defined
                  ppc_p_value=float(check.p_value), ppc_n_draws=check.n_draws)
    raters = _rater_check(posterior, details, predictive_check)
    if raters is not None:
        from softirr_stats.inference._rater_check import rater_check_records

        kw.update(rater_statistic=str(raters.attrs.get("statistic", "pairwise")),
                  rater_alpha=float(raters.attrs.get("alpha", 0.05)), rater_check=rater_check_records(raters))
    kw.update(posterior.model_kind.diagnostic_fields())  # categorical: the open-vocabulary check
    texts = []
    for w in caught:
        msg = str(getattr(w, "message", w))
        cat = getattr(w, "category", None)
        name = getattr(cat, "__name__", "")
        if name in ("ConvergenceWarning", "PredictiveCheckWarning", "PriorDominatedWarning", "FitWarning") \
                or (cat is None and msg):
            texts.append(msg)
    if posterior.method == "svi":  # the loss trace tells whether the optimisation had finished
        from softirr_stats.inference._fit import svi_still_falling

        late = svi_still_falling(posterior.extra.get("losses", ()))
        if late:
            texts.append(late)
    diag = FitDiagnostics(model=posterior.model_name, method=posterior.method, n_chains=posterior.num_chains,
                          n_draws=posterior.num_draws_per_chain, max_r_hat=max_r, worst_r_hat=worst_r,
                          min_ess=min_e, worst_ess=worst_e, max_r_hat_nuisance=max_rn,
                          worst_r_hat_nuisance=worst_rn, min_ess_nuisance=min_en,
                          worst_ess_nuisance=worst_en, n_divergent=int(div.sum()),
                          n_transitions=int(div.size), level=level,
                          sampler_warnings=tuple(dict.fromkeys(texts)), **kw)
    return FitDiagnostics(**{**{k: getattr(diag, k) for k in diag.__dataclass_fields__},
                             "caveats": tuple(model_caveats(diag))})


def model_caveats(diag: FitDiagnostics) -> list[str]:
    """The caveat lines of a fit: one sentence per failed check or sampler warning.

    Lines, in this order: divergences; r_hat; ESS (NUTS only: SVI has no convergence
    diagnostic, which :data:`SVI_NOTE` says where a fit is shown); the predictive check (p outside [0.05, 0.95], or
    not run: the observed statistic undefined); the per-rater check (a rater's p below ``rater_alpha / n_raters``:
    the text of its ``PredictiveCheckWarning``); an open vocabulary fitted by a categorical
    model; then each distinct warning the fit raised that the lines above do not already say.

    Parameters
    ----------
    diag : FitDiagnostics
        The numbers of a fit (:func:`diagnostics` builds it; its ``caveats`` are these lines).

    Returns
    -------
    list of str
        One sentence per problem; empty when every check passes.

    Examples
    --------
    >>> d = FitDiagnostics("dawid_skene", "nuts", 2, 500, max_r_hat=1.002, min_ess=800.0,
    ...                    n_transitions=1000, ppc_statistic="fleiss_kappa", ppc_observed=0.145,
    ...                    ppc_replicated_mean=0.276, ppc_p_value=0.953)
    >>> print(model_caveats(d)[0])
    Predictive check: the model's replicated fleiss_kappa (mean 0.276) is above the observed 0.145 in 95% of draws (p = 0.953): the model over-states agreement on these data.
    """
    out = []
    if diag.n_divergent:
        out.append(f"Sampler: {diag.n_divergent} of {diag.n_transitions} post-warmup transitions diverged; "
                   "the posterior may be biased (raise target_accept or reparametrise).")
    if np.isfinite(diag.max_r_hat) and diag.max_r_hat > RHAT_MAX:
        out.append(f"Convergence: r_hat {diag.max_r_hat:.3f} for {diag.worst_r_hat} (above {RHAT_MAX}); the "
                   "chains disagree, run longer or more chains.")
    if np.isfinite(diag.max_r_hat_nuisance) and diag.max_r_hat_nuisance > NUISANCE_RHAT_MAX:
        out.append(f"Convergence: r_hat {diag.max_r_hat_nuisance:.3f} for {diag.worst_r_hat_nuisance} (above "
                   f"{NUISANCE_RHAT_MAX}, the bound for a weakly identified element); the chains disagree, "
                   "run longer or more chains.")
    ess_target = ESS_PER_CHAIN * max(diag.n_chains, 1)
    if diag.method == "nuts" and np.isfinite(diag.min_ess) and diag.min_ess < ess_target:
        out.append(f"Convergence: bulk ESS {diag.min_ess:.0f} for {diag.worst_ess} (below {ess_target}); "
                   "interval ends are imprecise, draw more samples.")
    if diag.ppc_statistic == "score_chi2":  # one-sided: a large p is a good fit, not a misfit
        from softirr_stats.inference._kinds import SCORE_CHECK_P

        if np.isfinite(diag.ppc_p_value) and diag.ppc_p_value <= SCORE_CHECK_P:
            p = format_draw_p(diag.ppc_p_value, diag.ppc_n_draws or None, 3)  # a share of draws, not a chi2 tail
            out.append(f"Predictive check: the score distribution does not fit, chi-square discrepancy {p}; "
                       "the soft kappa may be biased (the emission's shape does not hold). Judged pairs help "
                       "through the prediction-powered estimate (softirr agree --judgments SHEET) or as gold "
                       "pairs with emission='histogram' (annotator_agreement(..., gold=..., "
                       "emission='histogram')); gold pairs with the monotone shape (softirr model --gold "
                       "SHEET) do not repair a shape that does not hold.")
    elif diag.ppc_statistic and not np.isfinite(diag.ppc_observed):
        out.append(f"Predictive check: not run, the observed {diag.ppc_statistic} is undefined on these data "
                   "(every rating has the same label): they carry no information about agreement, and the "
                   "model's kappa is its prior's.")
    elif diag.ppc_statistic and np.isfinite(diag.ppc_p_value) and not (PPC_LOW <= diag.ppc_p_value <= 1 - PPC_LOW):
        above = diag.ppc_p_value > 0.5
        share = diag.ppc_p_value if above else 1 - diag.ppc_p_value
        n = diag.ppc_n_draws
        where = f"{round(share * n)} of {n} draws" if n else f"{share:.0%} of draws"  # 100% of draws only if all
        p = format_draw_p(diag.ppc_p_value, n or None, 3, count=False)
        out.append(f"Predictive check: the model's replicated {diag.ppc_statistic} (mean "
                   f"{diag.ppc_replicated_mean:.3f}) is {'above' if above else 'below'} the observed "
                   f"{diag.ppc_observed:.3f} in {where} ({p}): the model "
                   f"{'over' if above else 'under'}-states agreement on these data.")
    rater_line = ""
    if any(r["failed"] for r in diag.rater_check):
        from softirr_stats.inference._rater_check import rater_check_message

        rater_line = rater_check_message(diag.rater_check, diag.rater_statistic, diag.model, diag.rater_alpha)
        out.append(f"{rater_line[0].upper()}{rater_line[1:]}.")  # the warning's own text, as a sentence
    if diag.open_vocabulary:
        out.append(f"Open vocabulary: {diag.n_labels} distinct labels, {diag.labels_per_item:.1f} per item; a "
                   "categorical model treats every distinct string as a class, which free text is not. Use a soft "
                   "measure (e.g. --model soft with -m embedding) instead.")
    said = " ".join(out).lower()
    global_said = any(line.startswith("Predictive check:") for line in out)
    for msg in diag.sampler_warnings:
        low = msg.lower()
        per_rater = low.startswith("per-rater predictive check")
        if ("divergent" in low and diag.n_divergent) or ("r_hat" in low and "convergence: r_hat" in said) \
                or (per_rater and bool(rater_line)) or ("predictive check" in low and not per_rater and global_said) \
                or ("undefined on these data" in low and "undefined on these data" in said):
            continue
        out.append(f"Fit warning: {msg}")
    return out
