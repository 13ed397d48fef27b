"""Support the other parts build on (private): safe file writing and reading, input validation, model-file and artefact formats, code fingerprints, devices, small utilities.

Each name below is loaded from its module on first use, so importing the part stays light and no
import cycle runs through this face.
"""

from __future__ import annotations

import importlib

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

#: public name -> the module of this part that defines it
_EXPORTS: dict[str, str] = {
    "DEVICES": "validation",
    "Device": "devices",
    "EQUIVALENT_CODE": "codehash",
    "EXEMPT_FLAG": "codehash",
    "Equivalence": "codehash",
    "FLOW_FORMAT": "artefacts",
    "LEARNER_FORMAT": "artefacts",
    "MAX_LEARNING_RATE": "validation",
    "MOVES": "codehash",
    "SEAL_KEYS": "integrity",
    "SETTING_GROUPS": "validation",
    "SourceTree": "codehash",
    "StorageError": "io",
    "TARGET_KINDS": "validation",
    "TargetKind": "validation",
    "artefact_checksums": "integrity",
    "atomic_path": "io",
    "atomic_write": "io",
    "canonical_code": "codehash",
    "check_choice": "validation",
    "check_data_fingerprint": "artefacts",
    "check_device": "validation",
    "check_fitted": "validation",
    "check_group_weights": "validation",
    "check_int": "validation",
    "check_labels": "validation",
    "check_learning_rate": "validation",
    "check_matrix": "validation",
    "check_number": "validation",
    "check_target_kind": "validation",
    "check_vector": "validation",
    "checksum_problem": "integrity",
    "code_hash": "codehash",
    "code_version": "codehash",
    "content_hash": "artefacts",
    "current_device": "devices",
    "data_fingerprint": "artefacts",
    "describe_data_changes": "artefacts",
    "ensure_dir": "io",
    "flow_from_payload": "artefacts",
    "flow_payload": "artefacts",
    "flushed_denormals": "devices",
    "json_default": "utils",
    "learner_extra": "artefacts",
    "learner_state": "artefacts",
    "load_flow": "artefacts",
    "load_learner": "artefacts",
    "load_yaml": "validation",
    "normalised_code": "codehash",
    "project_root": "utils",
    "read_artefact": "artefacts",
    "resolve_device": "devices",
    "save_flow": "artefacts",
    "save_learner": "artefacts",
    "seal": "integrity",
    "seed_everything": "utils",
    "special_file": "io",
    "stable_hash": "utils",
    "storage_error": "io",
    "store_lock": "io",
    "table_digest": "integrity",
    "task_devices": "devices",
    "torch_cpu_setup": "utils",
    "use_device": "devices",
    "writable_dir": "io",
    "write_artefact": "artefacts",
    "write_json_atomic": "utils",
    "write_text_atomic": "io",
    "zip_damage": "integrity",
}
_SUBMODULES = ("artefacts", "codehash", "devices", "integrity", "io", "utils", "validation")

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*__all__, *_SUBMODULES})
