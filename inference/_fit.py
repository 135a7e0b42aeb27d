"""``fit``: run NUTS or SVI on an annotator model and return a :class:`Posterior`."""


import logging
import math
import sys
import time
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
from numpyro import handlers
from numpyro.infer import MCMC, NUTS, SVI, Predictive, init_to_mean
from numpyro.infer.autoguide import AutoMultivariateNormal, AutoNormal

from softirr_stats.base._device import device_scoped
from softirr_stats.base._env import PROGRESS_ENV, env_flag
from softirr_stats.base._jax import _ensure_initialised, compiling, exported_program
from softirr_stats.base._validation import check_choice, check_seed, user_stacklevel
from softirr_stats.inference._config import (
    AUTO_BATCH_MIN_ITEMS,
    AUTO_BATCH_SIZE,
    ConvergenceWarning,
    NutsConfig,
    SviConfig,
    SviDivergedError,
)
from softirr_stats.inference._elbo import OrderedTraceELBO
from softirr_stats.inference._kinds import MODEL_KINDS
from softirr_stats.inference._posterior import Posterior, readable_elements
from softirr_stats.inference._programs import after_fit, data_arguments, needs_values
from softirr_stats.inference._size import check_fit_size, fit_size
from softirr_stats.models import (
    ANNOTATOR_MODELS,
    MODEL_NAMES,
    MODEL_SPECS,
    AnnotationData,
    find_model,
    gamma_dirichlet_sites,
    item_table,
)

__all__ = ["fit", "resolve_batch_size", "resolve_model", "resolve_progress", "warn_divergences",
           "warn_rhat"]


def fit_key(seed: int) -> jax.Array:
    """The PRNG key of a fit with ``seed`` (an integer in [0, 2**63 - 1], checked by ``check_seed``).

    Without 64-bit JAX, ``jax.random.key`` keeps only a seed's low 32 bits, so seeds 0 and 2**32
    would fit the same draws. A seed below 2**32 keeps its plain key; the high half of a larger one
    is folded in.

    Examples
    --------
    >>> bool((jax.random.key_data(fit_key(3)) == jax.random.key_data(jax.random.key(3))).all())
    True
    """
    key = jax.random.key(seed & 0xFFFFFFFF)
    return key if seed < 2**32 else jax.random.fold_in(key, seed >> 32)


def resolve_model(model: Any) -> tuple[str, str, Callable[..., None]]:
    """Return ``(name, kind, function)``; kind is "categorical", "soft" or "custom".

    Examples
    --------
    >>> resolve_model("dawid_skene")[:2]
    ('dawid_skene', 'categorical')
    """
    if isinstance(model, str):  # one table of models (models/_table.py): its names and aliases
        if model not in MODEL_NAMES:
            raise ValueError(f"model must be one of {sorted(MODEL_NAMES)} or a NumPyro model function; "
                             f"got {model!r}")
        rec = find_model(model)
        return rec.name, rec.kind, rec.model
    if not callable(model):
        raise TypeError(f"model must be a model name or a NumPyro model function; got "
                        f"{type(model).__name__}")
    for rec in ANNOTATOR_MODELS.values():
        if rec.model is model:
            return rec.name, rec.kind, model
    return getattr(model, "__name__", "model"), "custom", model


def _prepare_data(kind: str, data: Any) -> Any:
    return MODEL_KINDS[kind].encode(data)  # each kind owns its encoding (inference/_kinds.py)


def _schedule(cfg: SviConfig, steps: int | None = None) -> "optax.Schedule | float":  # noqa: F821 - optax is imported for SVI only
    import optax

    steps = cfg.steps if steps is None else steps
    if cfg.schedule == "cosine":
        return optax.cosine_decay_schedule(cfg.learning_rate, steps, alpha=cfg.final_fraction)
    if cfg.schedule == "exponential":
        return optax.exponential_decay(cfg.learning_rate, steps, cfg.final_fraction)
    return cfg.learning_rate




_log = logging.getLogger(__name__)  # under "softirr_stats": `softirr -v` shows its INFO lines


def resolve_progress(progress: bool | None) -> bool:
    """``None`` (the default) means: show progress bars when stderr is a terminal.

    The environment variable ``SOFTIRR_PROGRESS=0`` (``softirr --quiet``) silences the bars of
    ``None``; ``SOFTIRR_PROGRESS=1`` draws them on stderr whatever it is (a log file, a
    notebook's captured stream), for every fit whose ``progress`` is ``None``.

    Examples
    --------
    >>> resolve_progress(False), resolve_progress(True)
    (False, True)
    """
    if progress is None:  # SOFTIRR_PROGRESS=0 (softirr --quiet) silences the bars, as elsewhere
        env = env_flag(PROGRESS_ENV)
        return env if env is not None else bool(getattr(sys.stderr, "isatty", lambda: False)())
    if not isinstance(progress, bool):
        raise TypeError(f"progress must be True, False or None; got {progress!r}")
    return progress


def warn_rhat(post: Any, config: NutsConfig, stacklevel: int | None = None) -> list[tuple[str, float]]:
    """Warn (:class:`ConvergenceWarning`) when an element's rank-normalised split r_hat is above its bound.

    The bound is ``config.rhat_threshold`` (1.01), and ``config.nuisance_rhat_threshold``
    (1.05) for the elements of the model kind's nuisance sites (the soft model's emission
    pieces, intercept and rater z), which the data identify jointly, not one by one. Returns
    the offending elements, largest r_hat first (the first ten are named).

    Examples
    --------
    >>> import jax
    >>> from softirr_stats.inference import Posterior
    >>> rng = np.random.default_rng(0)
    >>> drift = np.stack([rng.normal(0, 1, 200), rng.normal(0.5, 1, 200)])  # r_hat 1.024
    >>> post = Posterior(model_name="soft_agreement", kind="soft", data=None, method="nuts",
    ...                  samples_by_chain={"intercept": drift, "kappa": rng.normal(size=(2, 200))},
    ...                  priors=None, model_kwargs={}, extra={}, key=jax.random.key(0))
    >>> warn_rhat(post, NutsConfig())  # the intercept is a nuisance element: held to 1.05
    []
    """
    threshold, loose = config.rhat_threshold, config.nuisance_rhat_threshold
    bad = post._rhat_offenders(threshold, loose)
    if bad:
        named = readable_elements([p for p, _ in bad[:10]], post)
        shown = ", ".join(f"{p} ({r:.3f})" for p, (_, r) in zip(named, bad[:10], strict=True))
        more = "" if len(bad) <= 10 else f" and {len(bad) - 10} more"
        nuisance = [s for s in post.model_kind.nuisance_sites if s in post.samples_by_chain]
        rule = (f"r_hat > {threshold} (> {loose} for the elements of {', '.join(nuisance)}, "
                "identified jointly)" if nuisance and loose != threshold else f"r_hat > {threshold}")
        warnings.warn(f"{rule} for {len(bad)} parameter(s): {shown}{more}; "
                      "run longer chains or more of them", ConvergenceWarning,
                      stacklevel=user_stacklevel() if stacklevel is None else stacklevel)
    return bad


def warn_divergences(diverging: np.ndarray, stacklevel: int | None = None) -> int:
    """Warn (:class:`ConvergenceWarning`) when any post-warmup transition diverged.

    Returns the number of divergent transitions.

    Examples
    --------
    >>> warn_divergences(np.zeros((2, 10), bool))
    0
    """
    n_div = int(np.asarray(diverging).sum())
    if n_div:
        warnings.warn(f"{n_div} divergent transitions out of {np.asarray(diverging).size} "
                      "post-warmup draws: the posterior may be biased; raise target_accept "
                      "or reparametrise", ConvergenceWarning,
                      stacklevel=user_stacklevel() if stacklevel is None else stacklevel)
    return n_div


def nuts_model(kind: str, model: Callable, cfg: NutsConfig) -> tuple[Callable, float]:
    """The model NUTS samples for a model of ``kind``, and its target acceptance.

    The kind's ``nuts_gamma_sites`` (the soft model's emission pieces and atoms) are drawn as
    normalised Gamma variables (:class:`~softirr_stats.models._gamma_dirichlet.GammaDirichlet`:
    the same posterior, fewer divergent transitions), and ``cfg.target_accept`` None is the
    kind's ``nuts_target_accept``.

    Examples
    --------
    >>> from softirr_stats import models
    >>> nuts_model("soft", models.soft_agreement, NutsConfig())[1]
    0.9
    >>> m, target = nuts_model("categorical", models.dawid_skene, NutsConfig(target_accept=0.95))
    >>> m is models.dawid_skene, target
    (True, 0.95)
    """
    spec = MODEL_KINDS[kind]
    target = spec.nuts_target_accept if cfg.target_accept is None else cfg.target_accept
    return (gamma_dirichlet_sites(model, spec.nuts_gamma_sites) if spec.nuts_gamma_sites else model), target


def model_sites(kind: str, samples: dict) -> dict:
    """``samples`` without the Gamma coordinates of :func:`nuts_model`'s parametrisation: they are
    the sampler's, not the model's; the posterior keeps the model's sites (the pieces and atoms,
    normalised), as an SVI fit's does.

    Examples
    --------
    >>> sorted(model_sites("soft", {"kappa": 0, "equiv_weights": 0, "equiv_weights_gamma": 0}))
    ['equiv_weights', 'kappa']
    """
    drawn = {f"{site}_gamma" for site in MODEL_KINDS[kind].nuts_gamma_sites}
    return {k: v for k, v in samples.items() if k not in drawn}


def _run_nuts(model: Callable, data: Any, key: jax.Array, cfg: NutsConfig,
              kwargs: dict, progress: bool, fingerprint: bytes | None = None,
              arguments: tuple | None = None, kind: str = "custom") -> tuple[dict, dict]:
    """The chains of ``cfg``: one compiled program, with or without the progress bar.

    Without a bar, the whole run (initialisation, warm-up, sampling, the collected draws) is
    one program, exported once per machine (:func:`~softirr_stats.base._jax.exported_program`,
    keyed by ``fingerprint``): a warm start reads it back instead of tracing NumPyro's kernels.
    With the bar, the same program also calls the host after every transition
    (:mod:`~softirr_stats.inference._progress`): the draws are the same bit for bit, but a
    program with a host callback is compiled in every process (it is not kept in the cache),
    and Ctrl-C stops it at the next transition. Either way the program runs in a worker
    thread, so that Ctrl-C raises :class:`~softirr_stats.inference._progress.FitInterrupted`
    at once.

    ``arguments`` (from :func:`~softirr_stats.inference._programs.data_arguments`) passes the
    data's arrays to the program as arguments: data sets of one shape share the program
    (``fingerprint`` then describes the data's shapes, not their values). Without it, or when
    the model reads the values of its data while traced, the data are constants of the program
    (the caller catches :func:`~softirr_stats.inference._programs.needs_values` and fits again
    without ``arguments``).
    """
    from softirr_stats.inference._progress import Ticker, interruptibly, ticking_nuts

    sampled, target = nuts_model(kind, model, cfg)

    def run(k: jax.Array, arrays: dict, ticker: Ticker | None = None) -> tuple[dict, jax.Array]:
        options = {"target_accept_prob": target, "max_tree_depth": cfg.max_tree_depth,
                   "init_strategy": init_to_mean()}
        kernel = NUTS(sampled, **options) if ticker is None else ticking_nuts(ticker, sampled, **options)
        mcmc = MCMC(kernel, num_warmup=cfg.num_warmup, num_samples=cfg.num_samples,
                    num_chains=cfg.num_chains, chain_method=cfg.chain_method, progress_bar=False)
        mcmc.run(k, data if arguments is None else arguments[1](arrays), extra_fields=("diverging",), **kwargs)
        # the program hands back the model's sites, not the sampler's Gamma coordinates
        return (model_sites(kind, mcmc.get_samples(group_by_chain=True)),
                mcmc.get_extra_fields(group_by_chain=True)["diverging"])

    arrays = {} if arguments is None else arguments[0]

    def compiled() -> tuple[dict, jax.Array]:
        try:
            program = exported_program(run, (key, arrays), fingerprint)
        except needs_values():
            raise  # the caller fits again with the data as constants
        except Exception:  # noqa: BLE001 - a model jax.export cannot take (a host callback): plain jit
            return jax.jit(run)(key, arrays)
        return program.call(key, arrays)

    def with_bar() -> tuple[dict, jax.Array]:
        ticker = Ticker(cfg.num_warmup, cfg.num_samples, cfg.num_chains, show=True)
        try:
            return interruptibly(lambda: jax.jit(partial(run, ticker=ticker))(key, arrays), ticker.stop.set)
        finally:
            ticker.close()

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="There are not enough devices")
        draws, diverging = with_bar() if progress else interruptibly(compiled)
    samples = {k: np.asarray(v) for k, v in draws.items()}
    if not all(np.isfinite(v).all() for v in samples.values() if v.dtype.kind == "f"):
        raise RuntimeError("NUTS drew non-finite values (no valid initial parameters, or the model's log "
                           "density is not finite where it has prior mass): check the model and the data")
    diverging = np.asarray(diverging)
    warn_divergences(diverging)
    return samples, {"diverging": diverging}


def _fingerprint(kind: str, fn: Callable, data: Any, cfg: Any, kwargs: dict) -> bytes | None:
    """What a NUTS program of a package model depends on, as bytes; None for a custom model.

    The models' and this module's source, numpyro's version, the float width, the data,
    the settings and the model options: a change to any of them traces the program again.
    A program that takes the data's arrays as arguments is fingerprinted with the data's
    skeleton in place of the data (:func:`~softirr_stats.inference._programs.data_arguments`).

    Examples
    --------
    >>> from softirr_stats.models import encode_annotations
    >>> data = encode_annotations(np.array([[0, 1], [1, 1]]), n_classes=2)
    >>> a = _fingerprint("categorical", MODEL_SPECS["dawid_skene"].model, data, NutsConfig(), {})
    >>> b = _fingerprint("categorical", MODEL_SPECS["dawid_skene"].model, data, NutsConfig(num_samples=9), {})
    >>> a != b, _fingerprint("custom", len, data, NutsConfig(), {})
    (True, None)
    """
    import dataclasses
    import hashlib
    from pathlib import Path

    import numpyro

    import softirr_stats.models as package

    if kind == "custom":
        return None
    h = hashlib.sha256()
    for path in [*sorted(Path(package.__file__).parent.glob("*.py")), Path(__file__)]:
        h.update(path.read_bytes())
    h.update(f"{numpyro.__version__}|{fn.__module__}.{fn.__qualname__}|"
             f"{jax.dtypes.canonicalize_dtype(np.float64)}".encode())

    def feed(obj: Any) -> bool:
        if obj is None or isinstance(obj, bool | int | float | complex | str | bytes):
            h.update(f"{type(obj).__name__}:{obj!r};".encode())
        elif isinstance(obj, np.ndarray | np.generic | jax.Array):
            arr = np.asarray(obj)
            h.update(f"array:{arr.dtype}:{arr.shape};".encode())
            h.update(np.ascontiguousarray(arr).tobytes() if arr.dtype != object else repr(arr.tolist()).encode())
        elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            h.update(f"{type(obj).__module__}.{type(obj).__qualname__}(".encode())
            return all(feed(f.name) and feed(getattr(obj, f.name)) for f in dataclasses.fields(obj))
        elif isinstance(obj, dict):
            h.update(b"dict(")
            return all(feed(k) and feed(v) for k, v in sorted(obj.items(), key=lambda kv: repr(kv[0])))
        elif isinstance(obj, list | tuple):
            h.update(f"{type(obj).__name__}({len(obj)}".encode())
            return all(feed(v) for v in obj)
        else:  # an object we cannot read all of: do not keep the program
            return False
        return True

    return h.digest() if feed((data, cfg, kwargs)) else None


def _deterministic_sites(model: Callable, data: Any, kwargs: dict) -> list[str]:
    tr = handlers.trace(handlers.seed(model, jax.random.key(0))).get_trace(data, **kwargs)
    return [name for name, site in tr.items() if site["type"] == "deterministic"]


def resolve_batch_size(batch_size: Any, name: str, kind: str, data: Any,
                       guide: str = "normal") -> int | None:
    """Items per SVI minibatch for this model and data, or ``None`` (full batch).

    ``"auto"`` minibatches (``AUTO_BATCH_SIZE`` items) from ``AUTO_BATCH_MIN_ITEMS`` items
    up, for the categorical models (those with item effects only with the mean-field
    ``guide="normal"``); an explicit int must lie in ``[1, n_items]`` and needs such a
    model. The soft model and custom models are always fitted on the full data.

    Examples
    --------
    >>> import numpy as np
    >>> from softirr_stats.models import encode_annotations
    >>> small = encode_annotations(np.zeros((100, 3), int), n_classes=2)
    >>> resolve_batch_size("auto", "dawid_skene", "categorical", small) is None
    True
    >>> resolve_batch_size(32, "dawid_skene", "categorical", small)
    32
    """
    if batch_size is None:
        return None
    local = kind == "categorical" and MODEL_SPECS[name].item_effects
    able = kind == "categorical" and not (local and guide != "normal")
    n_items = data.n_items if isinstance(data, AnnotationData) else None
    if isinstance(batch_size, str) and batch_size == "auto":
        if not able or n_items is None or n_items < AUTO_BATCH_MIN_ITEMS:
            return None
        return min(AUTO_BATCH_SIZE, n_items)
    if not able:
        if kind == "categorical":
            raise ValueError(
                f"batch_size={batch_size!r}: {name} has per-item latent effects, which "
                f"minibatch SVI fits only with the mean-field guide (guide='normal'); got "
                f"guide={guide!r} (a full-covariance guide over every item's effects does "
                "not subsample): use guide='normal' or batch_size=None")
        why = ("the soft-agreement model's likelihood runs over pairs of ratings (within-item, "
               "chance and gold pairs) and its derived pi_within and kappa over all "
               "within-item pairs at once, so it has no plate of items to subsample"
               if kind == "soft" else "is not a categorical annotator model")
        raise ValueError(f"batch_size={batch_size!r}: {name} cannot be fitted on minibatches "
                         f"of items: {why}; minibatch SVI supports the categorical models "
                         "(multinomial, dawid_skene, mace, hierarchical_dawid_skene, "
                         "item_difficulty, logistic_random_effects); use batch_size=None")
    if isinstance(batch_size, bool) or not isinstance(batch_size, int | np.integer):
        raise ValueError(f"batch_size must be a positive int, 'auto' or None; got {batch_size!r}")
    if not 1 <= int(batch_size) <= n_items:
        raise ValueError(f"batch_size must lie in [1, n_items = {n_items}]; got {batch_size}")
    return int(batch_size)


def _items_plate(data: Any, *args: Any, batch_index: Any = None, **kwargs: Any) -> Any:
    """The guide's subsampled plate ``"items"``, over ``batch_index`` when given."""
    with handlers.substitute(data={} if batch_index is None else {"items": batch_index}):
        return numpyro.plate("items", data.n_items, subsample_size=data.batch_size)


def _plate_sites(model: Callable, data: Any, kwargs: dict) -> set[str]:
    """Names of the latent sample sites inside the plate ``"items"`` (per-item latents)."""
    tr = handlers.trace(handlers.seed(model, jax.random.key(0))).get_trace(data, **kwargs)
    return {name for name, site in tr.items()
            if site["type"] == "sample" and not site["is_observed"]
            and any(f.name == "items" for f in site["cond_indep_stack"])}


def _batched(model: Callable) -> Callable:
    """``model`` whose plate ``"items"`` takes the indices passed as ``batch_index``."""
    def batched_model(data: Any, *args: Any, batch_index: Any = None, **kwargs: Any) -> None:
        if batch_index is None:
            return model(data, *args, **kwargs)
        with handlers.substitute(data={"items": batch_index}):
            return model(data, *args, **kwargs)
    batched_model.__name__ = getattr(model, "__name__", "model")
    return batched_model


def _run_svi_minibatch(model: Callable, data: AnnotationData, key: jax.Array, cfg: SviConfig,
                       batch_size: int, kwargs: dict,
                       progress: bool) -> tuple[dict, dict]:
    """Subsampled SVI: the ratings stay on the device; each step gathers its batch.

    Epoch e visits the items in the order of one permutation (``fold_in(key, e)``), in
    ``n_items // batch_size`` batches (the remainder waits for a later epoch's order); one
    compiled ``lax.scan`` runs the steps of an epoch.
    """
    table = item_table(data, batch_size, device=True)
    n = table.n_items
    per_epoch = n // batch_size
    bmodel = _batched(model)
    guide_cls = AutoNormal if cfg.guide == "normal" else AutoMultivariateNormal
    # the guide's plate "items" takes the same batch as the model's, so that the per-item
    # guide parameters it reads (item-effect models) are those of the batch's items
    guide = guide_cls(bmodel, init_loc_fn=init_to_mean(), init_scale=cfg.init_scale,
                      create_plates=_items_plate)
    local = _plate_sites(bmodel, table, kwargs)
    inner = cfg.local_steps if local else 0
    # per-item guide parameters get a gradient only when their item is in the batch: Adam
    # moments per element (lazy_adam), on a clock of every update (inner ones included);
    # the models without them keep plain Adam
    import optax

    from softirr_stats.inference._lazy_adam import lazy_adam

    opt = (lazy_adam(_schedule(cfg, cfg.steps * (inner + 1))) if local
           else optax.adam(_schedule(cfg)))
    svi = SVI(bmodel, guide, opt, OrderedTraceELBO(num_particles=cfg.num_particles))
    k_init, k_perm, k_step, k_draw = jax.random.split(key, 4)
    state = svi.init(k_init, table, batch_index=jnp.arange(batch_size, dtype=jnp.int32),
                     **kwargs)
    state = state._replace(rng_key=k_step)
    if local:
        # before each global step, `inner` steps on the batch's per-item parameters alone
        # (the globals held): each visit of an item then moves its guide close to its
        # optimum given the globals, as in Hoffman et al. (2013)'s local step
        names = {f"{site}_{guide.prefix}_{part}" for site in local for part in ("loc", "scale")}

        def loss_u(u: dict, k: jax.Array, table: Any, idx: jax.Array) -> jax.Array:
            return svi.loss.loss(k, svi.constrain_fn(u), bmodel, guide, table,
                                 batch_index=idx, **kwargs)

        grad_u = jax.value_and_grad(loss_u)

        def step(carry: tuple, table: Any, idx: jax.Array) -> tuple:
            u, ostate, k = carry
            k, k_in, k_out = jax.random.split(k, 3)

            def local_step(c: tuple, ki: jax.Array) -> tuple:
                u, ostate = c
                _, g = grad_u(u, ki, table, idx)
                g = {name: v if name in names else jnp.zeros_like(v) for name, v in g.items()}
                upd, ostate = opt.update(g, ostate, u)
                return (optax.apply_updates(u, upd), ostate), None

            (u, ostate), _ = jax.lax.scan(local_step, (u, ostate), jax.random.split(k_in, inner))
            loss, g = grad_u(u, k_out, table, idx)
            upd, ostate = opt.update(g, ostate, u)
            return (optax.apply_updates(u, upd), ostate, k), loss

        u0 = svi.optim.get_params(state.optim_state)
        carry = (u0, opt.init(u0), k_step)
    else:
        def step(carry: Any, table: Any, idx: jax.Array) -> tuple:
            return svi.update(carry, table, batch_index=idx, **kwargs)

        carry = state

    @partial(jax.jit, static_argnums=4)
    def run_epoch(carry: Any, table: Any, k_perm: jax.Array, epoch: jax.Array,
                  n_steps: int) -> tuple:
        order = jax.random.permutation(jax.random.fold_in(k_perm, epoch), n)
        starts = jnp.arange(n_steps, dtype=jnp.int32) * batch_size

        def body(carry: Any, start: jax.Array) -> tuple:
            idx = jax.lax.dynamic_slice(order, (start,), (batch_size,)).astype(jnp.int32)
            return step(carry, table, idx)

        return jax.lax.scan(body, carry, starts)

    from softirr_stats.inference._progress import interruptibly

    per_call = min(per_epoch, cfg.steps)
    bar = None
    if progress:
        from softirr_stats.inference._progress import progress_bar

        bar = progress_bar(cfg.steps, f"SVI steps, batches of {batch_size} items")
    losses, done, epoch = [], 0, 0
    try:
        while done < cfg.steps:
            n_steps = min(per_call, cfg.steps - done)
            # the call runs (and reads these) before interruptibly returns; bound here all the same
            carry, loss = interruptibly(lambda carry=carry, epoch=epoch, n_steps=n_steps:
                                        run_epoch(carry, table, k_perm, jnp.int32(epoch), n_steps))
            losses.append(np.asarray(loss))
            done, epoch = done + n_steps, epoch + 1
            if bar is not None:
                bar.update(n_steps)
    finally:  # also when a step raises or Ctrl-C stops it: the bar ends its line
        if bar is not None:
            bar.close()
    losses = np.concatenate(losses)
    params = svi.constrain_fn(carry[0]) if local else svi.get_params(carry)
    _check_losses(losses, cfg.steps, params, cfg.learning_rate)
    k_guide, k_model = jax.random.split(k_draw)
    # every item's draws of the per-item latents: the guide on a batch of all items
    latent = Predictive(guide, params=params, num_samples=cfg.num_draws)(
        k_guide, table.with_batch_size(n), **kwargs)
    draws = dict(latent)
    det = _deterministic_sites(bmodel, table, kwargs)
    if det:  # deterministic sites are functions of the globals: any batch serves
        globals_ = {k: v for k, v in latent.items() if k not in local}
        draws.update(Predictive(bmodel, posterior_samples=globals_, return_sites=det,
                                parallel=False)(k_model, table, **kwargs))
    samples = {k: np.asarray(v)[None] for k, v in draws.items()
               if k != "obs" and not k.startswith("_")}
    return samples, {"losses": losses, "guide": guide, "params": params,
                     "batch_size": batch_size}


def _check_losses(losses: np.ndarray, steps: int, params: dict | None = None,
                  learning_rate: float | None = None) -> None:
    """Warn when the loss is not finite at the end; refuse (:class:`SviDivergedError`) when the parameters
    themselves are not numbers (drawing from them would fail deep inside NumPyro)."""
    bad = [k for k, v in (params or {}).items() if not np.all(np.isfinite(np.asarray(v)))]
    if bad:
        first = np.flatnonzero(~np.isfinite(losses))
        at = f" from step {int(first[0]) + 1} of {len(losses)}" if first.size else ""
        rate = f" (now {learning_rate:g})" if learning_rate is not None else ""
        raise SviDivergedError(
            f"SVI diverged: the loss is not finite{at} and the variational parameters {sorted(bad)[:3]} are not "
            f"numbers, so no posterior can be drawn; lower learning_rate{rate}, keep the default cosine schedule, "
            "or fit with method='nuts'")
    if not np.all(np.isfinite(losses[-max(1, steps // 10):])):
        warnings.warn("SVI loss is not finite at the end of optimisation: lower the "
                      "learning_rate or check the data", ConvergenceWarning, stacklevel=user_stacklevel())
        return
    late = svi_still_falling(losses)
    if late:
        warnings.warn(late, ConvergenceWarning, stacklevel=user_stacklevel())


#: Share of the loss's whole fall that may come in the second half of the steps of a converged fit.
LATE_FALL_SHARE = 0.05


def svi_still_falling(losses: Any) -> str:
    """What to say when an SVI loss was still falling in the second half of its steps ('' otherwise).

    A converged fit makes almost all of its progress early: on simulated Dawid-Skene data (40-300
    items, 3-5 raters, 2-5 classes, two seeds) the second half of 1,000-2,000 steps held at most 3%
    of the loss's fall, against 4-8% at 300 steps and 11-92% at 30-100 steps, where the kappa
    interval was a quarter to a tenth of the converged width. The learning-rate schedule flattens
    the end of any run, so the last steps alone do not tell. Flagged when the share is above
    :data:`LATE_FALL_SHARE` and the late fall is 2.5 times the noise of the window means.

    Examples
    --------
    >>> steps = np.arange(1000)
    >>> svi_still_falling(1000 * np.exp(-steps / 30) + 50) == ""
    True
    >>> svi_still_falling(1000 * np.exp(-steps / 600) + 50)[:52]
    'SVI loss was still falling in the second half of its'
    """
    loss = np.asarray(losses, dtype=np.float64).ravel()
    n = len(loss)
    if n < 20 or not np.all(np.isfinite(loss)):
        return ""
    w = max(5, n // 10)  # windows of a tenth of the steps: the start, the middle and the end
    start, end = loss[:w].mean(), loss[-w:].mean()
    middle = loss[n // 2 - w // 2: n // 2 - w // 2 + w]
    fall, late = start - end, middle.mean() - end
    noise = math.sqrt((loss[-w:].var(ddof=1) + middle.var(ddof=1)) / w)  # the ELBO's own noise
    if not fall > 0 or not late > 2.5 * noise or late / fall <= LATE_FALL_SHARE:
        return ""
    return (f"SVI loss was still falling in the second half of its {n} steps ({late / fall:.0%} of its whole fall "
            f"came after step {n // 2}): the fit has likely not converged, and its intervals may be too narrow; "
            f"raise steps= (SviConfig)")


def _ticking_svi(svi: SVI, key: jax.Array, steps: int, data: Any, kwargs: dict,
                 ticker: Any) -> tuple[dict, jax.Array]:
    """``svi.run(key, steps, data, progress_bar=False)`` that calls ``ticker(step)`` after each step.

    The same initialisation and the same ``lax.scan`` of ``svi.update`` as NumPyro's run
    without a bar, plus a host callback on the step counter (which no value depends on): the
    same parameters and losses, bit for bit (``tests/inference/test_fit_progress.py``).
    NumPyro's own bar (``progress_bar=True``) runs each step as a program of its own, which
    rounds differently.
    """
    state = svi.init(key, data, **kwargs)

    def body(state: Any, i: jax.Array) -> tuple:
        state, loss = svi.update(state, data, **kwargs)
        jax.debug.callback(ticker, i)
        return state, loss

    state, losses = jax.lax.scan(body, state, jnp.arange(steps, dtype=jnp.int32))
    return svi.get_params(state), losses


def _run_svi(model: Callable, data: Any, key: jax.Array, cfg: SviConfig,
             kwargs: dict, progress: bool) -> tuple[dict, dict]:
    guide_cls = AutoNormal if cfg.guide == "normal" else AutoMultivariateNormal
    guide = guide_cls(model, init_loc_fn=init_to_mean(),
                      init_scale=cfg.init_scale)
    import optax

    svi = SVI(model, guide, optax.adam(_schedule(cfg)), OrderedTraceELBO(num_particles=cfg.num_particles))
    k_fit, k_draw = jax.random.split(key)
    from softirr_stats.inference._progress import Ticker, interruptibly

    if progress:
        ticker = Ticker(0, cfg.steps, 1, show=True, title="SVI steps")
        try:
            params, losses = interruptibly(lambda: _ticking_svi(svi, k_fit, cfg.steps, data, kwargs, ticker),
                                           ticker.stop.set)
        finally:
            ticker.close()
    else:
        result = interruptibly(lambda: svi.run(k_fit, cfg.steps, data, progress_bar=False, **kwargs))
        params, losses = result.params, result.losses
    losses = np.asarray(losses)
    _check_losses(losses, cfg.steps, params, cfg.learning_rate)
    k_guide, k_model = jax.random.split(k_draw)
    latent = Predictive(guide, params=params, num_samples=cfg.num_draws)(
        k_guide, data, **kwargs)
    draws = dict(latent)
    det = _deterministic_sites(model, data, kwargs)
    if det:  # run the model per draw (sequentially: the likelihood can be large)
        draws.update(Predictive(model, posterior_samples=latent, return_sites=det,
                                parallel=False)(k_model, data, **kwargs))
    samples = {k: np.asarray(v)[None] for k, v in draws.items()
               if k != "obs" and not k.startswith("_")}
    return samples, {"losses": losses, "guide": guide, "params": params,
                     "batch_size": None}


def _describe_run(name: str, method: str, config: Any) -> str:
    """``dawid_skene by NUTS: 2 chain(s) x (500 warm-up + 500 draws)`` (or SVI's steps and draws)."""
    if method == "nuts":
        return (f"{name} by NUTS: {config.num_chains} chain(s) x ({config.num_warmup} warm-up + "
                f"{config.num_samples} draws)")
    return f"{name} by SVI: {config.steps} steps, then {config.num_draws} draws"


#: A fit estimated at more than this many seconds logs its size and estimate before it starts.
LONG_FIT_SECONDS = 30.0


def _announce(size: Any) -> None:
    """Refuse a fit that cannot work (:func:`check_fit_size`); say the estimate of a long one."""
    check_fit_size(size)
    if size.seconds > LONG_FIT_SECONDS:
        import logging

        logging.getLogger("softirr_stats").warning("softirr_stats: fitting %s (compilation not included; "
                                                   "Ctrl-C stops it)", size.describe())


#: Release JAX's in-memory compiled programs within bounds and give the C heap back after each
#: fit (issue 35; :mod:`~softirr_stats.inference._programs`): JAX keeps every program it compiled
#: (about 600 memory maps a fit whose data are constants of its programs: a long research process
#: hit the kernel's 65,530-map limit after ~110 fits), and glibc keeps the heap LLVM's compiles
#: freed (RSS grew by ~230 MiB a fit). ``False`` keeps everything (the behaviour before).
RELEASE_PROGRAMS = True


def _nuts(kind: str, fn: Callable, data: Any, key: jax.Array, cfg: NutsConfig, kwargs: dict,
          show: bool) -> tuple[dict, dict, bytes | None]:
    """NUTS with the data as arguments of the program where the model allows; also its key (or None)."""
    arguments = data_arguments(kind, data)
    what = f"for a NUTS fit of {getattr(fn, '__name__', 'the model')}"
    barred = " with its progress bar, again in every process (a program that calls the bar is not kept)"
    if arguments is not None:
        by_shape = _fingerprint(kind, fn, (type(data).__qualname__, arguments[2]), cfg, kwargs)
        try:
            with compiling(what + (barred if show else ", once per machine and shape of data")):
                return (*_run_nuts(fn, data, key, cfg, kwargs, show, by_shape, arguments, kind=kind), by_shape)
        except needs_values():  # the model reads its data's values while traced (drop_gap_pieces)
            pass
    with compiling(what + (barred if show else ", once per machine and data set (the model reads its data's "
                                               "values while it is compiled)")):
        return (*_run_nuts(fn, data, key, cfg, kwargs, show, _fingerprint(kind, fn, data, cfg, kwargs),
                           kind=kind), None)


@device_scoped
def fit(model: Any, data: Any, method: str = "nuts", seed: int = 0,
        config: NutsConfig | SviConfig | None = None, *, priors: Any = None,
        progress: bool | None = None, check_size: bool = True, device: str | None = None,
        **model_kwargs: Any) -> Posterior:
    """Fit an annotator model by NUTS or SVI.

    Parameters
    ----------
    model : callable or str
        A model of :mod:`softirr_stats.models` (e.g. ``models.dawid_skene``) or its name
        (``"dawid_skene"``, ``"mace"``, ``"soft"``, ...), or any NumPyro model taking
        ``(data, priors=..., **model_kwargs)`` (then only samples, ``summary``,
        ``interval`` and ``to_arviz`` are available).
    data : Annotations, AnnotationData, codes array or PairScores
        Categorical models encode annotations with
        :func:`softirr_stats.models.encode_annotations`; the soft model takes
        :class:`~softirr_stats.models.PairScores` (or Annotations, scored by exact match).
    method : {"nuts", "svi"}
    seed : int
        Seed of the ``jax.random`` key (also used for post-processing draws).
    config : NutsConfig or SviConfig, optional
        Defaults to ``NutsConfig()`` / ``SviConfig()``. ``SviConfig(batch_size=...)``
        fits on minibatches of items (default ``"auto"``: from 50,000 items up, for the
        categorical models); ``post.extra["batch_size"]`` records the choice.
    priors : prior config, optional
        The model's prior dataclass (default: the model's defaults).
    progress : bool, optional
        Progress bar of the NUTS warm-up and sampling, or of the SVI steps (tqdm). Default:
        shown when stderr is a terminal and the fit is estimated at over 30 s;
        ``False`` silences it. A NUTS fit gives the same
        draws with and without the bar (the bar is a host callback on the iteration
        counter); without it the program is exported to the compile cache for the next
        process, with it the program is compiled in every process. Ctrl-C stops a fit at
        once (:class:`KeyboardInterrupt`); with the bar the program itself stops too.
    check_size : bool
        Before compiling, size the fit (:class:`~softirr_stats.inference.FitSize`): a
        categorical model on labels that look like free text (more than
        ``OPEN_VOCABULARY_MAX_CLASSES`` distinct labels, most given once) is refused with a
        :class:`~softirr_stats.inference.FitSizeError` that names the alternatives (the soft
        model, a coarser label set); a fit estimated at over 30 s logs its estimate first.
        ``False`` fits without the check.
    device : {"auto", "cpu", "cuda"}, optional
        JAX device of the fit (default: the block's
        :func:`~softirr_stats.base._device.use_device` setting, else JAX's default device).
    **model_kwargs
        Passed to the model (e.g. ``item_effects=True`` for the soft model).

    Returns
    -------
    Posterior

    Warns
    -----
    ConvergenceWarning
        NUTS: divergent transitions, or r_hat above ``config.rhat_threshold``; SVI: a
        non-finite loss.

    Raises
    ------
    FitSizeError
        ``check_size=True`` and a categorical model on free-text labels (a ValueError).
    KeyboardInterrupt
        Ctrl-C; nothing of the fit is kept.

    Examples
    --------
    >>> import numpy as np
    >>> from softirr_stats import models
    >>> codes = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 1]] * 5)
    >>> post = fit(models.dawid_skene, codes, method="svi",
    ...            config=SviConfig(steps=100, num_draws=100))
    >>> post.samples["beta"].shape
    (100, 3, 2, 2)
    """
    method = check_choice("method", method, ["nuts", "svi"])
    _ensure_initialised()  # NumPyro's programs go to the persistent compile cache too
    show = resolve_progress(progress)
    seed = check_seed(seed)
    name, kind, fn = resolve_model(model)
    if config is None:
        config = NutsConfig() if method == "nuts" else SviConfig()
    expected = NutsConfig if method == "nuts" else SviConfig
    if not isinstance(config, expected):
        raise TypeError(f"config for method={method!r} must be a {expected.__name__}; got "
                        f"{type(config).__name__}")
    data = _prepare_data(kind, data)
    kwargs = {"priors": priors, **model_kwargs}
    if check_size or progress is None:
        spec = MODEL_KINDS[kind]
        size = fit_size(name, kind, fn, data, method, config, kwargs,
                        leapfrog_per_iteration=spec.nuts_leapfrog_per_iteration,
                        seconds_per_work=spec.seconds_per_work)
        if check_size:
            _announce(size)
        forced = env_flag(PROGRESS_ENV) is True
        wanted, show = show, show and (progress is not None or forced or size.seconds > LONG_FIT_SECONDS)
        if wanted and not show:  # a terminal, a short fit: say what runs instead of a bar
            _log.warning("softirr_stats: running %s without a progress bar (a fit estimated under %.0f s runs "
                         "its program as kept in the compile cache; SOFTIRR_PROGRESS=1 or progress=True "
                         "draws the bar and compiles it again)", _describe_run(name, method, config),
                         LONG_FIT_SECONDS)
    key = fit_key(seed)
    k_run, k_post = jax.random.split(key)
    t0 = time.perf_counter()
    _log.info("fitting %s", _describe_run(name, method, config))
    program = None  # what the fit compiled, for the release of programs (None: this fit's alone)
    if method == "nuts":
        samples, extra, program = _nuts(kind, fn, data, k_run, config, kwargs, show)
    else:
        batch_size = resolve_batch_size(config.batch_size, name, kind, data, config.guide)
        what = (f"for an SVI fit of {name} (its optimisation steps and its draws), once per machine "
                "and shape of data" + ("; the steps with the progress bar again in every process" if show
                                       and batch_size is None else ""))
        with compiling(what):
            if batch_size is None:
                samples, extra = _run_svi(fn, data, k_run, config, kwargs, show)
            else:
                samples, extra = _run_svi_minibatch(fn, data, k_run, config, batch_size, kwargs,
                                                    show)
    extra["model"] = fn
    _log.info("fitted %s by %s, %.2f s (compilation included)", name, method.upper(), time.perf_counter() - t0)
    if RELEASE_PROGRAMS:
        after_fit(program)
    post = Posterior(model_name=name, kind=kind, samples_by_chain=samples, data=data,
                     method=method, priors=priors, model_kwargs=model_kwargs, extra=extra,
                     key=k_post)
    if method == "nuts":
        warn_rhat(post, config)
    return post


