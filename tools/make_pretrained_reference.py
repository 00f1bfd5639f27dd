"""Make tests/data/pretrained_reference.npz with the reference implementation.

Runs transformers' ``BertModel`` (eager attention, float32, CPU) on the same
``model.safetensors`` and ``tokenizer.json`` that ``helpers.models.pretrained``
reads, for three sentences, and stores what ``tests/test_pretrained.py``
compares with:

* ``ids_K``: the word-piece ids of sentence K (from transformers' own fast
  tokenizer built from ``tokenizer.json``);
* ``hidden_K``: float32 ``(len(HIDDEN_LAYERS), n, 384)``, the hidden states
  after the embeddings (0) and after layers 3 and 6 (the last checks
  everything before it; all layers would quadruple the file);
* ``attention_K``: float32 ``(6, 12, n, n)``, every head of every layer.

torch and transformers are never project dependencies: run this in a
throwaway environment outside the repository, e.g.::

    python3 -m venv /tmp/torchenv
    /tmp/torchenv/bin/pip install torch==2.13.0 transformers safetensors tokenizers
    python tools/fetch_test_model.py ~/.cache/attention-notebooks/hub
    /tmp/torchenv/bin/python tools/make_pretrained_reference.py \
        ~/.cache/attention-notebooks/hub/models--sentence-transformers--all-MiniLM-L6-v2/snapshots/*/
"""

import sys
from pathlib import Path

import numpy as np
import torch
import transformers
from safetensors.torch import load_file
from transformers import BertConfig, BertModel, PreTrainedTokenizerFast

SENTENCES = [
    "The fisherman sat on the muddy bank and watched the river.",
    "She deposited her savings at the bank; the interest is tiny!",
    "One mole of water weighs about eighteen grams, doesn't it?",
]
HIDDEN_LAYERS = [0, 3, 6]
ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "data" / "pretrained_reference.npz"


def reference_model(folder: Path):
    """BertModel (eager attention) with all-MiniLM-L6-v2's published config."""
    config = BertConfig(
        vocab_size=30522, hidden_size=384, num_hidden_layers=6,
        num_attention_heads=12, intermediate_size=1536, hidden_act="gelu",
        layer_norm_eps=1e-12, max_position_embeddings=512, type_vocab_size=2,
        attn_implementation="eager",
    )
    model = BertModel(config, add_pooling_layer=False)
    state = load_file(str(folder / "model.safetensors"))
    missing, unexpected = model.load_state_dict(state, strict=False)
    assert not missing, missing
    assert all(k.startswith("pooler.") or k.endswith("position_ids")
               for k in unexpected), unexpected
    model.eval()
    tokenizer = PreTrainedTokenizerFast(tokenizer_file=str(folder / "tokenizer.json"))
    tokenizer._tokenizer.no_padding()
    tokenizer._tokenizer.no_truncation()
    return model, tokenizer


def main(folder: str) -> None:
    folder = Path(folder)
    model, tokenizer = reference_model(folder)
    arrays = {"sentences": np.array(SENTENCES),
              "hidden_layers": np.array(HIDDEN_LAYERS)}
    for k, text in enumerate(SENTENCES):
        ids = tokenizer(text, return_tensors="pt")["input_ids"]
        with torch.no_grad():
            out = model(input_ids=ids, output_hidden_states=True,
                        output_attentions=True)
        hidden = torch.stack(out.hidden_states)[:, 0].numpy()
        arrays[f"ids_{k}"] = ids[0].numpy().astype(np.int32)
        arrays[f"hidden_{k}"] = hidden[HIDDEN_LAYERS].astype(np.float32)
        arrays[f"attention_{k}"] = torch.stack(out.attentions)[:, 0].numpy()
        print(k, tokenizer.convert_ids_to_tokens(ids[0]))
    OUT.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes) with torch {torch.__version__},"
          f" transformers {transformers.__version__}")


if __name__ == "__main__":
    main(sys.argv[1])
