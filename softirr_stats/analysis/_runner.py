"""The one analysis runner: read -> resolve each similarity once -> the grid -> tidy results.

Every command of ``softirr`` that computes agreement (``agree``, ``sensitivity``, ``score``,
``model``) and the HTML report run their data through these steps, and only format what
comes back:

1. :func:`read_input` reads one file or several per-annotator exports with every reader
   option passed through to :func:`~softirr_stats.read_annotations` as keywords, and notes
   what a reader cannot say itself (items with no rating).
2. :func:`resolve_measures` turns each measure name (or estimator spec) into one estimator,
   checked on a label of the data before any work and optionally wrapped in a score cache;
   the sensitivity grid then resolves each into one similarity object
   (``equivalence.resolve_label_similarity``), so a label pair is scored once for every
   coefficient and chance setting.
3. :func:`run_analysis` runs coefficients x measures x chance settings, each with its
   interval (and the prediction-powered estimate when judged pairs are given), and returns
   an :class:`Analysis`: the tidy table of :func:`~softirr_stats.sensitivity` plus the
   warnings raised on the way, de-duplicated.
4. :func:`run_model` fits an annotator model (``softirr model`` and the report's model
   section) and returns a :class:`ModelFit`: the result, its diagnostics (r_hat, ESS,
   divergences, predictive checks, the per-rater one included, caveats) and the warnings of the fit.
"""

import logging
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from softirr_stats.base._validation import SimilarityMismatchError

__all__ = ["Analysis", "READER_OPTIONS", "ModelFit", "read_input", "resolve_measures", "run_analysis", "run_model"]

_log = logging.getLogger(__name__)  # under "softirr_stats": `softirr -v` shows its INFO lines

# keyword options of read_annotations that the export readers take (docs/readers.md)
READER_OPTIONS = ("field", "layer", "feature", "span_rule")


def read_input(paths: "str | Path | Sequence[str | Path]", *, item: str = "item", rater: str = "rater",
               label: str = "label", format: str | None = None, na_values: Sequence[str] | None = None,
               **options: Any) -> tuple[Any, list[str]]:
    """Read annotations with every reader option passed through; returns ``(ann, notes)``.

    Parameters
    ----------
    paths : path or sequence of paths
        One file (or folder / zip of per-annotator exports), or several per-annotator exports,
        which are passed to :func:`~softirr_stats.read_annotations` as a list to be merged.
    item, rater, label, format, na_values
        As for :func:`~softirr_stats.read_annotations` (``item``/``rater``/``label`` are passed
        only when they differ from the defaults, ``na_values`` only when given).
    **options
        The export readers' options (``field=``, ``layer=``, ``feature=``, ``span_rule=``, ...),
        passed as keywords.

    Returns
    -------
    (Annotations, list of str)
        The data, and notes on it (the export format when it was guessed, warnings raised while
        reading, unrated items).

    Examples
    --------
    >>> from softirr_stats.data import demo_path
    >>> ann, notes = read_input(demo_path())
    >>> ann.n_raters
    3
    """
    import numpy as np

    from softirr_stats.data import read_annotations

    kwargs: dict[str, Any] = {k: v for k, v in (("item", item), ("rater", rater), ("label", label))
                              if v != k}
    if format is not None:
        kwargs["format"] = format
    if na_values:
        kwargs["na_values"] = list(na_values)
    kwargs.update(options)
    if isinstance(paths, str | Path):
        source: Any = Path(paths)
    else:
        source = [Path(p) for p in paths]
        if len(source) == 1:
            source = source[0]
    t0 = time.perf_counter()
    _log.info("reading %s", source if isinstance(source, Path) else ", ".join(map(str, source)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ann = read_annotations(source, **kwargs)
    from softirr_stats.data import case_note, guessed_formats, layout_note

    _log.info("read %d items, %d raters, %d distinct labels, %.2f s", ann.n_items, ann.n_raters,
              len(ann.vocabulary), time.perf_counter() - t0)
    notes = [*guessed_formats(ann), *layout_note(ann), *dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught),
             *case_note(ann)]
    codes = np.asarray(ann.codes)
    if codes.ndim == 2 and codes.size:
        unrated = int(((codes >= 0).sum(axis=1) == 0).sum())
        if unrated:
            notes.append(f"{unrated} of {ann.n_items} items have no rating (every label cell empty or missing); "
                         "no coefficient uses them")
    return ann, notes


def _describe_ci(ci: Any) -> str:
    """The interval setting in a log line: ``bootstrap B = 1000, design = items, method = auto``."""
    if all(hasattr(ci, a) for a in ("n", "design", "method")):
        return f"bootstrap B = {ci.n}, design = {getattr(ci, 'design_label', ci.design)}, method = {ci.method}"
    return "none" if ci is None else str(ci)


def _probe(ann: Any) -> Any:
    return ann.vocabulary[0] if len(ann.vocabulary) else ""


def resolve_measures(names: Sequence[str], ann: Any, *, cache: "str | Path | None" = None,
                     model: str | None = None, weights: Sequence[str] = (),
                     probe: bool = True) -> list[tuple[str, Any]]:
    """``[(name, estimator, None for exact, or a weight name), ...]``, each checked on the data.

    Each name is read by the one table of estimator names
    (:func:`~softirr_stats.equivalence.estimator_from_name`: a short name, ``"<name>:<model>"``,
    a JSON spec or ``@spec.json``); ``model`` is the model of the model-backed names that carry none.

    Each estimator is tried on one label of the data (the label with itself), so a measure
    that cannot score these labels (Levenshtein on numbers) fails before any work. With
    ``cache``, each is wrapped in :class:`~softirr_stats.equivalence.Cached`. Names in
    ``weights`` (categorical weights, for the sensitivity grid) pass through unchanged. A
    ``cache`` file that is not a score cache raises here, before any work.
    ``probe=False`` skips the trial (``softirr score``: a large model is loaded only where it
    scores, e.g. on the Ray workers).

    Examples
    --------
    >>> import softirr_stats as sis
    >>> ann = sis.Annotations.from_wide([["fever", "fevers"], ["cough", "cough"]])
    >>> [(n, getattr(e, "name", e)) for n, e in resolve_measures(["exact", "indel"], ann)]
    [('exact', None), ('indel', 'indel')]
    """
    from softirr_stats.equivalence import estimator_from_name, split_measure_name

    out: list[tuple[str, Any]] = []
    for name in names:
        if name in weights:
            out.append((name, name))
            continue
        if split_measure_name(name) == ("exact", None):  # exact matching: no estimator (none imported)
            out.append((name, None))
            continue
        est = estimator_from_name(name, model, progress=False if model else None)
        label = name if not name.lstrip().startswith(("{", "@")) else est.name
        if probe:
            one = _probe(ann)
            try:
                est([one], [one])
            except (TypeError, ValueError) as err:
                raise SimilarityMismatchError(f"similarity {label} cannot score these labels ({ann.kind} labels such as {one!r}): "
                                 f"{err}") from None
        if cache is not None:
            from softirr_stats.equivalence import Cached

            est = Cached(est, cache)
            est.n_cached()  # opens the file now: one that is not a score cache fails before any work
        out.append((label, est))
    return out


@dataclass
class Analysis:
    """What :func:`run_analysis` returns: the tidy table and what was said on the way.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per (coefficient, similarity, chance), unrounded (``sensitivity``'s columns).
    warnings : list of str
        Every warning raised while computing, once each (``Category: message``).
    seconds : float
        Wall-clock time of the grid.
    """

    table: Any
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def errors(self) -> Any:
        """Rows whose coefficient raised (``warnings`` starting with ``error:``)."""
        w = self.table["warnings"].astype(str)
        return self.table[w.str.startswith("error:")]


def run_analysis(ann: Any, *, coefficients: Sequence[str] | None = None,
                 measures: Sequence[tuple[str, Any]] = (("exact", None),), chance: Sequence[Any] = ("exact",),
                 ci: Any = None, judgments: Any = None, categories: Any = None,
                 registry: Any = None) -> Analysis:
    """Coefficients x measures x chance settings with intervals: the grid under every command.

    Parameters
    ----------
    ann : Annotations
    coefficients : sequence of str, optional
        Names (the registry's and the multi-label baselines); default: the usual set.
    measures : sequence of (label, similarity)
        As from :func:`resolve_measures`; each similarity is resolved once for the whole grid.
    chance : sequence
        ``"exact"``, ``"auto"``, ``"mc:D"``, ``"sampled:N"`` or the chance objects.
    ci : None, "analytic", Analytic or Bootstrap
    judgments : DataFrame, optional
        Judged pairs (:func:`~softirr_stats.read_judgments`): prediction-powered rows.
    categories : sequence, optional
    registry : dict, optional
        Name -> view (:func:`~softirr_stats.analysis.coefficient_registry`, e.g. with the distance measures'
        options); default: the registry as it is.

    Returns
    -------
    Analysis

    Examples
    --------
    >>> import softirr_stats as sis
    >>> ann = sis.Annotations.from_wide([["a", "a"], ["b", "b"], ["a", "b"], ["c", "c"]])
    >>> res = run_analysis(ann, coefficients=["cohen_kappa"], chance=["exact", "mc:20"])
    >>> res.table[["coefficient", "chance"]].values.tolist()
    [['cohen_kappa', 'exact'], ['cohen_kappa', 'monte_carlo(D=20)']]
    """
    from softirr_stats.analysis._sensitivity import sensitivity

    sims = [(name, None if sim is None else sim) for name, sim in measures]
    t0 = time.perf_counter()
    _log.info("computing %s x measures %s x chance %s; interval: %s",
              ", ".join(coefficients) if coefficients else "the usual coefficients",
              ", ".join(name for name, _ in sims), ", ".join(map(str, chance)), _describe_ci(ci))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = sensitivity(ann, coefficients=coefficients, similarities=sims, chance=list(chance), ci=ci,
                            categories=categories, judgments=judgments, registry=registry)
    said = list(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))
    _log.info("computed %d rows, %.2f s", len(table), time.perf_counter() - t0)
    return Analysis(table=table, warnings=said, seconds=time.perf_counter() - t0)


@dataclass
class ModelFit:
    """What :func:`run_model` returns: the model-based result, its diagnostics and the warnings.

    Attributes
    ----------
    result : AgreementResult
        :func:`~softirr_stats.inference.annotator_agreement`'s result (its ``posterior`` in
        ``details``).
    diagnostics : FitDiagnostics
        :func:`~softirr_stats.inference.diagnostics` of the fit, with the warnings raised while
        fitting among its caveats.
    warnings : list of str
        Every warning raised while fitting and checking, once each (``Category: message``).
    seconds : float
        Wall-clock time of the fit and the checks.
    """

    result: Any
    diagnostics: Any
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0


def run_model(ann: Any, model: str = "dawid_skene", *, method: str = "nuts", level: float = 0.95, seed: int = 0,
              similarity: Any = None, config: Any = None, predictive_check: bool = True,
              progress: bool | None = False, gold: Any = None, profile_interval: str = "widen",
              **model_kwargs: Any) -> ModelFit:
    """Fit an annotator model and check it: the model step under ``softirr model`` and the report.

    Parameters
    ----------
    ann : Annotations
    model : str
        A model name of :func:`~softirr_stats.inference.annotator_agreement` (``dawid_skene``,
        ``mace``, ``soft``, ...).
    method : {"nuts", "svi"}
    level : float
        Posterior interval level (also of the diagnostics' predictive check).
    seed : int
    similarity : optional
        The equivalence measure of a soft (weighted) model kappa.
    config : NutsConfig or SviConfig, optional
        Default: the method's defaults.
    predictive_check : bool
        Whether :func:`~softirr_stats.inference.annotator_agreement` also runs its predictive
        checks (the diagnostics always run theirs, or take the result's: the model's check and, for a
        categorical model, the per-rater check, ``diagnostics.rater_check``).
    progress : bool, optional
        The sampler's progress bar (default: none).
    gold : optional
        The soft model's gold pairs (``annotator_agreement(..., gold=...)``: a judged sheet as
        :func:`read_judging_sheet` reads it, or ``(scores, labels)``).
    profile_interval : {"widen", "report", "off"}
        The soft model's profile-likelihood check of its interval
        (:func:`~softirr_stats.inference.annotator_agreement`'s ``profile_interval``).
    **model_kwargs
        Passed to the model as :func:`~softirr_stats.inference.annotator_agreement` passes them (e.g. the soft
        model's ``emission="histogram"``, with ``gold``).

    Returns
    -------
    ModelFit

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats.inference import SviConfig
    >>> ann = sis.Annotations.from_wide([["a", "a", "a"], ["b", "b", "a"], ["b", "b", "b"], ["a", "a", "b"]] * 5)
    >>> fit = run_model(ann, method="svi", config=SviConfig(steps=50, num_draws=50))
    >>> fit.diagnostics.method, bool(-1.0 <= fit.result.value <= 1.0)
    ('svi', True)
    """
    from softirr_stats.inference import annotator_agreement, diagnostics

    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = annotator_agreement(ann, similarity=similarity, model=model, method=method, level=level, seed=seed,
                                  config=config, predictive_check=predictive_check, progress=progress,
                                  profile_interval=profile_interval, **({} if gold is None else {"gold": gold}),
                                  **model_kwargs)
        diag = diagnostics(res, level=level, caught=list(caught))
    said = list(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))
    return ModelFit(result=res, diagnostics=diag, warnings=said, seconds=time.perf_counter() - t0)
