"""Where models train: the ``device`` option of the flow, the LTN learner and every baseline.

``"cpu"`` is the default everywhere (the committed results are CPU runs); ``"cuda"`` (or
``"cuda:N"``) trains on an accelerator and fails at once with a :class:`~cffair.errors.DeviceError`
when none is present; ``"auto"`` takes ``cuda`` when it is present and ``cpu`` otherwise.

The code path is one for every device: a model is initialised on the CPU from its seed (so
its first weights are the same bits whatever the device), moved with ``.to(device)`` once,
its training data moved once per stage, and random draws are made by the same CPU generators
as before and moved, so a run on an accelerator follows the CPU run's random stream and
differs from it only by floating-point rounding. Results come back as CPU arrays, and saved
models hold CPU tensors (a checkpoint written on an accelerator loads on any machine).

The grid gives each worker one device (:func:`use_device`, set by
:func:`cffair.workflows.run_grid`); a device is where a number is computed, not what it is,
so it enters no record's fingerprint and no cache key.

>>> str(resolve_device("cpu"))
'cpu'
>>> with use_device("cpu"):
...     current_device()
'cpu'
"""

from __future__ import annotations

__all__ = [
    "Device",
    "current_device",
    "flushed_denormals",
    "resolve_device",
    "retained_heap",
    "task_devices",
    "use_device",
]

import contextlib
import ctypes
import os
import sys
import threading
from collections.abc import Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from cffair._support.validation import Device, check_device
from cffair.errors import DeviceError

if TYPE_CHECKING:
    import torch

_CURRENT: ContextVar[str] = ContextVar("cffair_device", default="cpu")


def resolve_device(device: str = "cpu", *, input_name: str = "device") -> torch.device:
    """The :class:`torch.device` that ``device`` names on this machine.

    Raises:
        DeviceError: for an unknown name, or ``"cuda"`` / ``"cuda:N"`` on a machine without
            that accelerator (the message says what is present and to use ``cpu`` or ``auto``).
    """
    import torch

    name = check_device(device, input_name=input_name)
    if name == "cpu":
        return torch.device("cpu")
    available = torch.cuda.is_available()
    if name == "auto":
        return torch.device("cuda" if available else "cpu")
    count = torch.cuda.device_count() if available else 0
    index = int(name.partition(":")[2] or 0)
    if index >= count:
        present = f"{count} CUDA device(s)" if count else "no CUDA device"
        raise DeviceError(
            f"{input_name} {name!r} was asked for but this machine has {present} "
            f"(torch {torch.__version__}); use device 'cpu', or 'auto' to take an accelerator only when there is one."
        )
    return torch.device(name)


def current_device() -> str:
    """The device this process (a grid worker) trains on unless told otherwise (``"cpu"``)."""
    return _CURRENT.get()


@contextlib.contextmanager
def use_device(device: str) -> Iterator[str]:
    """Within the block, :func:`current_device` is ``device`` (checked to be present first)."""
    resolve_device(device)
    token = _CURRENT.set(device)
    try:
        yield device
    finally:
        _CURRENT.reset(token)


def task_devices(device: str, n_tasks: int) -> list[str]:
    """The device of each of ``n_tasks`` grid tasks: ``device`` for all of them, except that
    ``"cuda"`` (or ``"auto"`` where accelerators are present) spreads the tasks over every
    accelerator, task ``k`` on ``cuda:(k mod count)``.

    Raises:
        DeviceError: as :func:`resolve_device`, before any task starts.

    >>> task_devices("cpu", 3)
    ['cpu', 'cpu', 'cpu']
    """
    resolved = resolve_device(device)
    if resolved.type != "cuda" or device.startswith("cuda:"):
        return [str(resolved) if device == "auto" else device] * n_tasks
    import torch

    count = torch.cuda.device_count()
    return [f"cuda:{k % count}" for k in range(n_tasks)]


def _flushing_denormals() -> bool:
    """Whether this process's CPU arithmetic flushes float32 denormals to zero now."""
    import torch

    tiny = torch.tensor([1e-39], dtype=torch.float32)  # a denormal (below 1.18e-38)
    return bool(float(tiny * 2.0) == 0.0)


@contextlib.contextmanager
def flushed_denormals(device: torch.device | str = "cpu") -> Iterator[None]:
    """Flush float32 denormals to zero on the CPU inside the block, then restore the process's setting.

    Every training loop runs inside it (the LTN learner's stages, the MLP baselines, the GAN's two
    stages, DCEVAE): a saturated network's gradients and Adam's running averages hold many
    denormal values, and x86 CPUs compute with denormals many times slower (measured: 1.46x on GAN
    epochs, with bit-identical losses). Process-wide flushing would change every other library in
    the process, so it is scoped to training. Usable as a decorator too. Accelerators are left
    alone (they flush in their own kernels).

    >>> import torch
    >>> with flushed_denormals():
    ...     float(torch.tensor([1e-39]) * 2.0)
    0.0
    """
    import torch

    if torch.device(device).type != "cpu":
        yield
        return
    before = _flushing_denormals()
    torch.set_flush_denormal(True)
    try:
        yield
    finally:
        torch.set_flush_denormal(before)


# ---------------------------------------------------------------------------- the C heap while training
#: glibc's ``mallopt`` parameters (malloc.h) and their documented defaults, restored after training.
_M_TRIM_THRESHOLD, _M_MMAP_MAX = -1, -4
_DEFAULT_TRIM_THRESHOLD, _DEFAULT_MMAP_MAX = 128 * 1024, 65536
#: How much freed memory the heap keeps while training (above it, glibc gives memory back).
_TRAINING_TRIM_THRESHOLD = 1 << 30
#: Environment variables by which a user tunes glibc's allocator; when one is set, it is left alone.
_ALLOCATOR_ENV = ("GLIBC_TUNABLES", "MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_")

_heap_lock = threading.Lock()
_heap_depth = 0


def _glibc() -> Any:
    """The process's C library when it is glibc with ``mallopt`` and ``malloc_trim`` (Linux), else ``None``."""
    if not sys.platform.startswith("linux") or any(name in os.environ for name in _ALLOCATOR_ENV):
        return None
    try:
        libc = ctypes.CDLL(None)
    except OSError:  # pragma: no cover - a Linux process always has its C library
        return None
    if not (hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") and hasattr(libc, "gnu_get_libc_version")):
        return None  # musl and others: their allocators are not tuned here
    return libc


@contextlib.contextmanager
def retained_heap(device: torch.device | str = "cpu") -> Iterator[None]:
    """Keep freed memory in the C heap inside the block, so that the next epoch reuses it.

    A full-batch epoch on tens of thousands of rows allocates activations of tens of megabytes.
    glibc serves each such block with a fresh ``mmap`` and unmaps it when freed, so every epoch
    touches new pages and the kernel zero-fills each one again: on Adult's CKE stages, 133,000
    page faults per epoch. Inside the block the allocator takes large blocks from the heap and
    keeps up to 1 GiB of freed memory there (``mallopt``: ``M_MMAP_MAX`` 0, ``M_TRIM_THRESHOLD``
    1 GiB); on leaving the outermost block, glibc's defaults come back and the free memory is
    returned to the system (``malloc_trim``). Measured: 1.22x the CPU time of an Adult
    fairness epoch and 1.51x over its CKE steps, none in pre-training (``benchmarks/bench_ltn_heap.py``).

    Only where the arithmetic is: which memory holds a tensor changes no number, so training
    inside and outside the block gives the same bits. A no-op on an accelerator, off glibc, and
    when the environment tunes the allocator itself (``GLIBC_TUNABLES``, ``MALLOC_*_``). Blocks
    nest and may be entered from several threads: the outermost one restores.
    """
    global _heap_depth
    import torch

    libc = _glibc() if torch.device(device).type == "cpu" else None
    if libc is None:
        yield
        return
    with _heap_lock:
        _heap_depth += 1
        if _heap_depth == 1:
            libc.mallopt(_M_MMAP_MAX, 0)
            libc.mallopt(_M_TRIM_THRESHOLD, _TRAINING_TRIM_THRESHOLD)
    try:
        yield
    finally:
        with _heap_lock:
            _heap_depth -= 1
            if _heap_depth == 0:
                libc.mallopt(_M_MMAP_MAX, _DEFAULT_MMAP_MAX)
                libc.mallopt(_M_TRIM_THRESHOLD, _DEFAULT_TRIM_THRESHOLD)
                libc.malloc_trim(0)
