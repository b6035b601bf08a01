"""The shared EIP-712 golden vectors: the design's copy beside the checkout (../shared/vectors/eip712.json)
when present, else the repository's copy in test/fixtures (kept identical by test/support/vectors.test.ts);
RELAY_VECTORS names another file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parents[3]


def vectors_path() -> Path:
    if os.environ.get("RELAY_VECTORS"):
        return Path(os.environ["RELAY_VECTORS"])
    shared = ROOT.parent / "shared" / "vectors" / "eip712.json"
    return shared if shared.exists() else ROOT / "test" / "fixtures" / "eip712-vectors.json"


def load_vectors() -> List[Dict[str, Any]]:
    with open(vectors_path(), encoding="utf8") as file:
        return json.load(file)["vectors"]


def vector_named(name: str) -> Dict[str, Any]:
    for vector in load_vectors():
        if vector["name"] == name:
            return vector
    raise KeyError(name)
