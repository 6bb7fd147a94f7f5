"""What the CPU can do for the local model: its name and the instruction sets that make int8 matrix products fast.

ONNX Runtime's int8 GEMMs (MLAS) beat float32 where the CPU multiplies int8 in one instruction: AVX-512 VNNI or
AVX-VNNI (Intel since Cascade Lake / Alder Lake, AMD since Zen 4) and AMX-INT8 (Intel Sapphire Rapids and later).
Without them (AVX2 alone, as on AMD EPYC before Zen 4) int8 was only 1.3× faster than float32 and less exact, so
the engine stays float32 there. Read from /proc/cpuinfo on Linux; elsewhere the flags are unknown and the engine is
float32 (an `embed_engine` of "onnx-int8" asks for int8 anyway).

And how many threads numpy's BLAS may use: one (`one_blas_thread`). The model runs in ONNX Runtime with its own
threads; numpy multiplies small matrices (a question against the vocabulary, the aligned model's layers, a few
passages' token states), where a second BLAS thread only waits for a core: on this project's two-core machines,
busy, a 15×512 by 512×768 product took 25-30 ms with OpenBLAS's two threads and 0.2 ms with one, and a
cross-language search 850 → 530 ms (XQuAD ru2en, 35 questions, same run).
"""

from __future__ import annotations

import functools
import os
import platform
from dataclasses import dataclass
from pathlib import Path

INT8_FLAGS = {"amx_int8": "AMX-INT8", "avx512_vnni": "AVX-512 VNNI", "avx_vnni": "AVX-VNNI"}
SHOWN_FLAGS = {**INT8_FLAGS, "avx512f": "AVX-512", "avx2": "AVX2"}


@dataclass(frozen=True)
class Cpu:
    model: str  # "Intel(R) Xeon(R) Platinum 8480+", or the machine type where the name is unknown
    flags: frozenset[str]  # as Linux names them (avx2, avx512_vnni, amx_int8, …)
    cores: int

    @property
    def int8_fast(self) -> bool:
        return any(flag in self.flags for flag in INT8_FLAGS)

    @property
    def features(self) -> list[str]:
        """The flags that matter here, as people name them, fastest for int8 first."""
        return [label for flag, label in SHOWN_FLAGS.items() if flag in self.flags]

    def describe(self) -> str:
        return f"{self.model} ({', '.join(self.features) or 'no AVX2'}; {self.cores} cores)"


@functools.cache
def one_blas_thread() -> None:
    """Limit numpy's BLAS (OpenBLAS, MKL …) to one thread in this process, once; nothing where threadpoolctl cannot
    find one."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")


@functools.cache
def this_cpu() -> Cpu:
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return parse_cpuinfo(_read("/proc/cpuinfo"), cores) or Cpu(platform.processor() or platform.machine() or "unknown CPU", frozenset(), cores)


def parse_cpuinfo(text: str, cores: int) -> Cpu | None:
    """The first processor's name and flags in /proc/cpuinfo's text; None when it has neither."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            if fields:
                break  # one processor is enough: the others are the same chip
            continue
        key, _, value = line.partition(":")
        fields.setdefault(key.strip(), value.strip())
    if "flags" not in fields and "model name" not in fields:
        return None
    return Cpu(fields.get("model name") or platform.machine(), frozenset(fields.get("flags", "").split()), cores)


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
