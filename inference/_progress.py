"""Progress and Ctrl-C for a compiled NUTS run, without changing its draws.

A NUTS run is one compiled program (``_fit._run_nuts``). :class:`Ticker` is a host
callback that the kernel of :func:`ticking_nuts` calls after every transition
(``jax.debug.callback`` on the iteration counter, which no value of the chain depends on):
it moves a progress bar through warm-up and sampling, and when Ctrl-C was pressed it raises
inside the program, which stops it. The arithmetic of the chain is untouched, so the draws
are those of the same fit without the bar, bit for bit (``tests/inference/test_fit_progress.py``).

:func:`interruptibly` runs a call in a worker thread while the main thread waits, so that
Ctrl-C reaches Python at once (a compiled program holds the main thread until it ends).

:func:`progress_bar` draws every bar of a fit (NUTS, SVI, minibatch SVI) at a width that
also works on a pseudo-terminal that reports 0 columns (``script``, ``docker exec -t``, some
CI runners): there tqdm's dynamic width draws nothing at all.
"""

import contextvars
import threading
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
from numpyro.infer import NUTS

from softirr_stats.base._bars import progress_bar as shared_progress_bar
from softirr_stats.base._interrupt import check, handled

__all__ = ["FitInterrupted", "Ticker", "interruptibly", "progress_bar", "ticking_nuts"]


class FitInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a fit: nothing of it is kept."""


def progress_bar(total: int, desc: str, unit: str = "it") -> Any:
    """A tqdm bar on stderr, ``total`` steps, that shows on every terminal.

    The package's one bar (:func:`softirr_stats.base._bars.progress_bar`): on a pseudo-terminal
    that reports 0 columns and 0 rows, where tqdm's own sizing draws nothing, the width is
    ``$COLUMNS`` or :data:`~softirr_stats.base._bars.FALLBACK_COLUMNS`.

    Examples
    --------
    >>> import io, contextlib
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     bar = progress_bar(4, "SVI steps")
    ...     bar.update(4)
    ...     bar.close()
    >>> "SVI steps" in err.getvalue() and "0/4 [" in err.getvalue()  # its first frame
    True
    """
    return shared_progress_bar(int(total), desc, unit, show=True)


class Ticker:
    """Host side of a ticking run: a tqdm bar over NUTS warm-up and sampling (or SVI steps), and a stop flag.

    Parameters
    ----------
    num_warmup, num_samples, num_chains : int
        The run's size (the bar counts ``num_chains x (num_warmup + num_samples)`` transitions).
    show : bool
        Draw the bar (on stderr); without it the ticker only watches the stop flag.
    title : str, optional
        The bar's fixed description (SVI: ``"SVI steps"``); default ``"NUTS warm-up"``, then
        ``"NUTS sampling"``.

    Examples
    --------
    >>> t = Ticker(2, 3, 1, show=False)
    >>> for i in range(5):
    ...     t(np.int32(i))
    >>> t.done, t.phase
    (5, 'sampling')
    """

    def __init__(self, num_warmup: int, num_samples: int, num_chains: int, show: bool,
                 title: str | None = None) -> None:
        self.num_warmup = int(num_warmup)
        self.total = int(num_chains) * (int(num_warmup) + int(num_samples))
        self.done = 0
        self.phase = "warm-up" if num_warmup else "sampling"
        self.stop = threading.Event()
        self.show = bool(show)
        self.title = title
        self.bar: Any = None  # drawn at the first transition: the compilation before it is not timed

    def __call__(self, i: Any) -> None:
        if self.stop.is_set():
            raise FitInterrupted("interrupted")
        i = np.asarray(i)
        self.done += int(i.size)
        phase = "sampling" if int(i.max(initial=0)) >= self.num_warmup else "warm-up"
        if self.show and self.bar is None:
            self.bar = progress_bar(self.total, self.title or f"NUTS {self.phase}")
        if self.bar is not None:
            if phase != self.phase and self.title is None:
                self.bar.set_description(f"NUTS {phase}", refresh=False)
            self.bar.update(int(i.size))
        self.phase = phase

    def close(self) -> None:
        """Remove the bar."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def ticking_nuts(ticker: Ticker, *args: Any, **kwargs: Any) -> NUTS:
    """A :class:`numpyro.infer.NUTS` kernel that calls ``ticker(state.i)`` after each transition.

    Examples
    --------
    >>> from softirr_stats import models
    >>> kernel = ticking_nuts(Ticker(1, 1, 1, show=False), models.dawid_skene)
    >>> isinstance(kernel, NUTS)
    True
    """
    class _TickingNUTS(NUTS):
        def sample(self, state: Any, model_args: Any, model_kwargs: Any) -> Any:
            new = super().sample(state, model_args, model_kwargs)
            jax.debug.callback(ticker, new.i)
            return new

    return _TickingNUTS(*args, **kwargs)


#: After Ctrl-C, how long :func:`interruptibly` waits for a ticking program to stop.
STOP_WAIT_SECONDS = 1.5
#: The name of the worker thread of :func:`interruptibly` (the CLI looks for it at exit).
WORKER_NAME = "softirr-fit"


def interruptibly(call: Callable[[], Any], on_interrupt: Callable[[], None] | None = None) -> Any:
    """``call()`` in a worker thread; Ctrl-C in the main thread raises :class:`FitInterrupted` at once.

    ``call``'s result is waited for in the worker (JAX dispatches asynchronously). On Ctrl-C,
    ``on_interrupt`` runs first (a :class:`Ticker`'s stop flag: the program stops at its next
    transition, waited for up to ``STOP_WAIT_SECONDS``); a program without a ticker runs on in
    its daemon thread, its result dropped (the CLI then leaves with ``os._exit``).
    Outside the main thread (where Python delivers no signal) ``call`` runs directly.

    Examples
    --------
    >>> interruptibly(lambda: 6 * 7)
    42
    """
    if threading.current_thread() is not threading.main_thread():
        return call()
    check()  # a Ctrl-C swallowed before the fit (by a garbage-collector callback) stops it here
    box: dict[str, Any] = {}
    context = contextvars.copy_context()  # the caller's settings (the device of use_device) go with the fit

    def in_scope() -> Any:
        from softirr_stats.base._device import current_device, jax_device_scope

        with jax_device_scope(current_device()):  # JAX's default device is per thread
            return jax.block_until_ready(call())  # JAX dispatches asynchronously: wait here

    def target() -> None:
        try:
            box["value"] = context.run(in_scope)
        except BaseException as err:  # noqa: BLE001 - handed to the caller's thread
            box["error"] = err

    worker = threading.Thread(target=target, name=WORKER_NAME, daemon=True)
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.1)
            check()
    except KeyboardInterrupt:
        handled()
        if on_interrupt is not None:
            on_interrupt()
            try:  # a ticking program stops at its next transition: let it end before we leave
                worker.join(STOP_WAIT_SECONDS)
            except KeyboardInterrupt:
                pass
        raise FitInterrupted("interrupted") from None
    if "error" in box:
        raise box["error"]
    return box["value"]
