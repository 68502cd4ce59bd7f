"""all-MiniLM-L6-v2's files, for Attention Lab: ``get_model_path()`` is the model's directory.

>>> (get_model_path() / "config.json").is_file()
True
"""

from pathlib import Path

__version__ = "0.1.0"

MODEL_DIR = Path(__file__).resolve().parent / "all-MiniLM-L6-v2"


def get_model_path() -> Path:
    """The directory holding config.json, tokenizer.json, model.safetensors and the rest."""
    return MODEL_DIR
