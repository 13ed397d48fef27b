"""Support the other parts build on (private): safe file writing and reading, input validation, model-file and artefact formats, code fingerprints, devices, small utilities.

Each name below is loaded from its module on first use, so that importing the part stays light and no
import cycle runs through this face; type checkers read the imports under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

FINGERPRINT_EXEMPT = True  # a face only re-exports: it cannot change a number

if TYPE_CHECKING:
    from cffair._support.artefacts import (
        check_data_fingerprint,
        content_hash,
        data_fingerprint,
        describe_data_changes,
        read_artefact,
        write_artefact,
    )
    from cffair._support.codehash import (
        EQUIVALENT_CODE,
        EXEMPT_FLAG,
        Equivalence,
        SourceTree,
        canonical_code,
        code_hash,
        code_version,
        normalised_code,
        stable_dump,
    )
    from cffair._support.devices import (
        Device,
        current_device,
        flushed_denormals,
        resolve_device,
        retained_heap,
        task_devices,
        use_device,
    )
    from cffair._support.integrity import (
        SEAL_KEYS,
        artefact_checksums,
        checksum_problem,
        seal,
        table_digest,
        zip_damage,
    )
    from cffair._support.io import (
        StorageError,
        atomic_path,
        atomic_write,
        ensure_dir,
        special_file,
        storage_error,
        store_lock,
        writable_dir,
        write_text_atomic,
    )
    from cffair._support.moves import (
        MOVES,
        MOVES_IN_TEXT,
    )
    from cffair._support.utils import (
        json_default,
        project_root,
        seed_everything,
        stable_hash,
        torch_cpu_setup,
        write_json_atomic,
    )
    from cffair._support.validation import (
        DEVICES,
        MAX_LEARNING_RATE,
        SETTING_GROUPS,
        TARGET_KINDS,
        TargetKind,
        check_choice,
        check_device,
        check_exponent,
        check_group_weights,
        check_int,
        check_labels,
        check_learning_rate,
        check_matrix,
        check_number,
        check_target_kind,
        check_vector,
    )
    from cffair._support.yaml_files import (
        DuplicateKeyError,
        PlainWordError,
        YamlContentError,
        check_plain_words,
        load_yaml,
        safe_load_unique,
    )

#: public name -> the module of this part that defines it
_EXPORTS: dict[str, str] = {
    "DEVICES": "validation",
    "Device": "devices",
    "DuplicateKeyError": "yaml_files",
    "EQUIVALENT_CODE": "codehash",
    "EXEMPT_FLAG": "codehash",
    "Equivalence": "codehash",
    "MAX_LEARNING_RATE": "validation",
    "MOVES": "moves",
    "MOVES_IN_TEXT": "moves",
    "PlainWordError": "yaml_files",
    "SEAL_KEYS": "integrity",
    "SETTING_GROUPS": "validation",
    "SourceTree": "codehash",
    "StorageError": "io",
    "TARGET_KINDS": "validation",
    "TargetKind": "validation",
    "YamlContentError": "yaml_files",
    "artefact_checksums": "integrity",
    "atomic_path": "io",
    "atomic_write": "io",
    "canonical_code": "codehash",
    "check_choice": "validation",
    "check_data_fingerprint": "artefacts",
    "check_device": "validation",
    "check_exponent": "validation",
    "check_group_weights": "validation",
    "check_int": "validation",
    "check_labels": "validation",
    "check_learning_rate": "validation",
    "check_matrix": "validation",
    "check_number": "validation",
    "check_plain_words": "yaml_files",
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
    "flushed_denormals": "devices",
    "json_default": "utils",
    "load_yaml": "yaml_files",
    "normalised_code": "codehash",
    "project_root": "utils",
    "read_artefact": "artefacts",
    "resolve_device": "devices",
    "retained_heap": "devices",
    "safe_load_unique": "yaml_files",
    "seal": "integrity",
    "seed_everything": "utils",
    "special_file": "io",
    "stable_dump": "codehash",
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
_SUBMODULES = ("artefacts", "codehash", "devices", "integrity", "io", "moves", "utils", "validation", "yaml_files")

__all__ = [
    "DEVICES",
    "Device",
    "DuplicateKeyError",
    "EQUIVALENT_CODE",
    "EXEMPT_FLAG",
    "Equivalence",
    "MAX_LEARNING_RATE",
    "MOVES",
    "MOVES_IN_TEXT",
    "PlainWordError",
    "SEAL_KEYS",
    "SETTING_GROUPS",
    "SourceTree",
    "StorageError",
    "TARGET_KINDS",
    "TargetKind",
    "YamlContentError",
    "artefact_checksums",
    "atomic_path",
    "atomic_write",
    "canonical_code",
    "check_choice",
    "check_data_fingerprint",
    "check_device",
    "check_exponent",
    "check_group_weights",
    "check_int",
    "check_labels",
    "check_learning_rate",
    "check_matrix",
    "check_number",
    "check_plain_words",
    "check_target_kind",
    "check_vector",
    "checksum_problem",
    "code_hash",
    "code_version",
    "content_hash",
    "current_device",
    "data_fingerprint",
    "describe_data_changes",
    "ensure_dir",
    "flushed_denormals",
    "json_default",
    "load_yaml",
    "normalised_code",
    "project_root",
    "read_artefact",
    "resolve_device",
    "retained_heap",
    "safe_load_unique",
    "seal",
    "seed_everything",
    "special_file",
    "stable_dump",
    "stable_hash",
    "storage_error",
    "store_lock",
    "table_digest",
    "task_devices",
    "torch_cpu_setup",
    "use_device",
    "writable_dir",
    "write_artefact",
    "write_json_atomic",
    "write_text_atomic",
    "zip_damage",
]


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*__all__, *_SUBMODULES})
