"""Speed of lesson 10's numpy all-MiniLM-L6-v2 against PyTorch's BertModel.

Run (ours only):      .venv/bin/python tests/benchmarks/bench_pretrained.py
Run (side by side):   /path/to/torchenv/bin/python tests/benchmarks/bench_pretrained.py
                      (an environment with torch, transformers, safetensors,
                      tokenizers and numpy; torch is never a project dependency)
Options: --threads 1 (BLAS / torch threads, the same for both), --repeats 300.

Times one full forward pass of a 16-word-piece sentence: tokenize, the
embeddings and all 6 layers, with every layer's hidden state and every
head's attention weights returned. If torch and transformers can be
imported, it also times transformers' BertModel (eager attention, float32,
inference mode, same tokenizer.json, same weights) on the same text, measured
interleaved with ours in the same process and with the same thread count,
and prints the ratio. The goal (issue 12): ours within 1.25x of torch.

The model comes from HF_HUB_CACHE, else from the offline copy that
`make test-model` makes (~/.cache/attention-notebooks/hub).

A benchmark, not a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

TEXT = "The quick brown fox jumps over the lazy dog near the river bank today"
REPO_FOLDER = "models--sentence-transformers--all-MiniLM-L6-v2"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=300)
    return parser.parse_args()


def snapshot() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    cache = Path(os.environ.get("HF_HUB_CACHE") or Path(base) / "attention-notebooks"
                 / "hub")
    found = sorted((cache / REPO_FOLDER / "snapshots").glob("*/model.safetensors"))
    if not found:
        sys.exit(f"no copy of the model in {cache}: run `make test-model` first")
    return found[0].parent


def torch_runner(folder: Path, threads: int):
    """A function doing torch's full forward pass on a text, or None without torch."""
    try:
        import torch
        from safetensors.torch import load_file
        from transformers import BertConfig, BertModel, PreTrainedTokenizerFast
    except ImportError:
        return None, "torch/transformers not importable: ours only"
    torch.set_num_threads(threads)
    config = BertConfig(
        vocab_size=30522, hidden_size=384, num_hidden_layers=6,
        num_attention_heads=12, intermediate_size=1536, hidden_act="gelu",
        layer_norm_eps=1e-12, attn_implementation="eager")
    model = BertModel(config, add_pooling_layer=False)
    model.load_state_dict(load_file(str(folder / "model.safetensors")), strict=False)
    model.eval()
    tok = PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    tok._tokenizer.no_padding()
    tok._tokenizer.no_truncation()

    def run(text):
        with torch.inference_mode():
            ids = tok(text, return_tensors="pt")["input_ids"]
            return model(input_ids=ids, output_hidden_states=True,
                         output_attentions=True)

    import transformers
    return run, (f"torch {torch.__version__} (threads {torch.get_num_threads()}), "
                 f"transformers {transformers.__version__}")


def main():
    args = parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)  # before numpy (and torch) load BLAS
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    import numpy as np

    from helpers.models import pretrained

    folder = snapshot()
    model = pretrained.load(folder)
    n = len(model.run(TEXT).tokens)
    ours = {"numpy (helpers.models.pretrained)": lambda: model.run(TEXT)}
    run_torch, note = torch_runner(folder, args.threads)
    if run_torch is not None:
        ours["torch BertModel (eager)"] = lambda: run_torch(TEXT)
    print(f"{n} word pieces, {args.threads} thread(s); numpy {np.__version__}; {note}")
    times = {name: [] for name in ours}
    for fn in ours.values():  # warm up
        for _ in range(20):
            fn()
    names = list(ours)
    for r in range(args.repeats):  # interleaved, alternating order
        for name in (names if r % 2 == 0 else names[::-1]):
            start = time.perf_counter()
            ours[name]()
            times[name].append(time.perf_counter() - start)
    medians = {name: statistics.median(t) * 1e3 for name, t in times.items()}
    for name, ms in medians.items():
        print(f"  {name:28s} median {ms:7.3f} ms  (min {min(times[name]) * 1e3:.3f})")
    if len(medians) == 2:
        a, b = medians.values()
        print(f"  ratio numpy / torch: {a / b:.2f} (goal <= 1.25)")


if __name__ == "__main__":
    main()
