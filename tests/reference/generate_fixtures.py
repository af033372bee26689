#!/usr/bin/python3
"""Reference values from PyTorch for the engine's tests.

Run with Debian's interpreter and python3-torch:  /usr/bin/python3 tests/reference/generate_fixtures.py
Writes tests/reference/fixtures/attention.json. The tests read that file and never need torch.
Weights are stored in the engine's layout: y = x·W + b, c_attn columns [W_Q | W_K | W_V].
"""
import json
import math
import pathlib

import torch
import torch.nn.functional as F

OUT = pathlib.Path(__file__).resolve().parent / "fixtures"


def tensor(t):
    t = t.detach().to(torch.float32).contiguous()
    return {"shape": list(t.shape), "data": [float(f"{v:.9g}") for v in t.flatten().tolist()]}


def torch_mha_case(name, d, h, n, causal=False, m=None, key_padding=None):
    """torch.nn.MultiheadAttention: self-attention when m is None, else cross-attention."""
    mha = torch.nn.MultiheadAttention(d, h, batch_first=True, bias=True)
    with torch.no_grad():
        mha.in_proj_bias.normal_(0, 0.5)
        mha.out_proj.bias.normal_(0, 0.5)
    x = torch.randn(1, n, d)
    memory = x if m is None else torch.randn(1, m, d)
    mask = torch.triu(torch.ones(n, memory.shape[1], dtype=torch.bool), 1) if causal else None
    padding = None if key_padding is None else torch.tensor([key_padding], dtype=torch.bool)
    out, weights = mha(x, memory, memory, attn_mask=mask, key_padding_mask=padding,
                       need_weights=True, average_attn_weights=False)
    case = {
        "name": name, "kind": "self" if m is None else "cross",
        "d_model": d, "n_heads": h, "n_kv_heads": h, "causal": causal,
        "key_padding": key_padding or [],
        "tensors": {
            "x": tensor(x[0]),
            "c_attn_weight": tensor(mha.in_proj_weight.T),
            "c_attn_bias": tensor(mha.in_proj_bias),
            "c_proj_weight": tensor(mha.out_proj.weight.T),
            "c_proj_bias": tensor(mha.out_proj.bias),
            "weights": tensor(weights[0]),
            "output": tensor(out[0]),
        },
    }
    if m is not None:
        case["tensors"]["memory"] = tensor(memory[0])
    return case


def grouped_query_case(name, d, h, g, n, causal):
    """GQA/MQA written out in torch: kv head j serves query heads j·h/g … (j+1)·h/g − 1."""
    dk = d // h
    w_attn = torch.randn(d, d + 2 * g * dk) / math.sqrt(d)
    b_attn = torch.randn(d + 2 * g * dk) * 0.5
    w_proj = torch.randn(d, d) / math.sqrt(d)
    b_proj = torch.randn(d) * 0.5
    x = torch.randn(n, d)
    qkv = x @ w_attn + b_attn
    q = qkv[:, :d].reshape(n, h, dk).transpose(0, 1)
    k = qkv[:, d:d + g * dk].reshape(n, g, dk).transpose(0, 1).repeat_interleave(h // g, dim=0)
    v = qkv[:, d + g * dk:].reshape(n, g, dk).transpose(0, 1).repeat_interleave(h // g, dim=0)
    scores = q @ k.transpose(1, 2) / math.sqrt(dk)
    if causal:
        scores = scores.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), float("-inf"))
    weights = F.softmax(scores, dim=-1)
    out = (weights @ v).transpose(0, 1).reshape(n, d) @ w_proj + b_proj
    return {
        "name": name, "kind": "self", "d_model": d, "n_heads": h, "n_kv_heads": g,
        "causal": causal, "key_padding": [],
        "tensors": {
            "x": tensor(x), "c_attn_weight": tensor(w_attn), "c_attn_bias": tensor(b_attn),
            "c_proj_weight": tensor(w_proj), "c_proj_bias": tensor(b_proj),
            "weights": tensor(weights), "output": tensor(out),
        },
    }


def main():
    torch.manual_seed(20261121)
    cases = []
    for d, h, n in [(5, 1, 4), (8, 1, 3), (6, 2, 5), (8, 2, 6), (12, 4, 7), (16, 4, 4),
                    (16, 8, 5), (24, 8, 8)]:
        for causal in (False, True):
            cases.append(torch_mha_case(f"mha_d{d}_h{h}_n{n}{'_causal' if causal else ''}",
                                        d, h, n, causal))
    cases.append(torch_mha_case("cross_d8_h2_n3_m5", 8, 2, 3, m=5))
    cases.append(torch_mha_case("key_padding_d6_h2_n4", 6, 2, 4, key_padding=[0, 0, 1, 1]))
    cases.append(grouped_query_case("gqa_d8_h4_g2_n5", 8, 4, 2, 5, causal=False))
    cases.append(grouped_query_case("gqa_d16_h8_g2_n6_causal", 16, 8, 2, 6, causal=True))
    cases.append(grouped_query_case("mqa_d8_h4_g1_n5", 8, 4, 1, 5, causal=False))
    OUT.mkdir(exist_ok=True)
    doc = {"generator": "tests/reference/generate_fixtures.py", "torch": torch.__version__,
           "cases": cases}
    (OUT / "attention.json").write_text(json.dumps(doc, separators=(",", ":")) + "\n")
    print(f"wrote {len(cases)} cases to {OUT / 'attention.json'}")


if __name__ == "__main__":
    main()
