#!/usr/bin/env python3
"""Builds core/catalog/catalog.json from the reference data in ../shared/data.

Run by a developer when the reference data changes; the build never runs it
(the generated JSON is committed and embedded in the binaries by CMake).

    python3 scripts/build_catalog.py ../shared/data core/catalog/catalog.json

What it does beyond copying:
  * keeps only the architecture fields the planner uses, under Megatron names;
  * turns `moe_layer_freq` strings ("list(len=61): 3 dense + 58 MoE; first 3
    dense") into `first_k_dense_layers` + `moe_layer_freq = 1`;
  * fills a few `null` fields from public sources, each recorded under
    `completions` with its citation (never a guess);
  * adds system ids, aliases and GPUs per node.
"""
import json
import re
import sys

ARCH_FIELDS = [
    "num_layers", "hidden_size", "ffn_hidden_size", "num_attention_heads",
    "num_query_groups", "kv_channels", "vocab_size", "make_vocab_size_divisible_by",
    "seq_length", "gated_linear_unit", "share_embeddings_and_output_weights",
    "multi_latent_attention", "q_lora_rank", "kv_lora_rank", "qk_head_dim",
    "qk_pos_emb_head_dim", "v_head_dim", "num_moe_experts", "moe_router_topk",
    "moe_ffn_hidden_size", "moe_shared_expert_intermediate_size", "moe_layer_freq",
    "moe_latent_size", "mtp_num_layers", "hybrid_layer_pattern", "mamba_state_dim",
    "mamba_head_dim", "mamba_num_heads", "mamba_num_groups", "window_size",
    "window_attn_skip_freq",
]

MLA_QUERY_GROUPS = ("derived: MLA has no grouped KV heads; Megatron-Core sets num_query_groups = "
                    "num_attention_heads when unset (NVIDIA/Megatron-LM "
                    "megatron/core/transformer/transformer_config.py, __post_init__)")

# field -> (value, citation), per model id.  Only facts with a public source.
COMPLETIONS = {
    "mixtral_8x7b": {
        "vocab_size": (32000, "NVIDIA/Megatron-LM tests/functional_tests/test_cases/mixtral/"
                       "mixtral_8x7b_tp1pp4ep8vpp8_release/model_config.yaml@d98e8a64dd trains it with "
                       "--tokenizer-type Llama2Tokenizer (32000-token SentencePiece vocabulary), matching "
                       "HF mistralai/Mixtral-8x7B-v0.1 config.json vocab_size 32000"),
        "make_vocab_size_divisible_by": (128, "same Megatron-LM test config: --make-vocab-size-divisible-by 128"),
        "multi_latent_attention": (False, "architecture: standard GQA attention (HF MixtralForCausalLM)"),
    },
    "mixtral_8x22b": {
        "vocab_size": (32000, "NVIDIA/Megatron-LM tests/functional_tests/test_cases/mixtral/"
                       "mixtral_8x22b_tp2pp8ep8vpp1_release/model_config.yaml@d98e8a64dd trains it with "
                       "--tokenizer-type Llama2Tokenizer (32000 tokens); later HF revisions of "
                       "Mixtral-8x22B use a 32768-token vocabulary (+0.03% parameters)"),
        "make_vocab_size_divisible_by": (128, "same Megatron-LM test config: --make-vocab-size-divisible-by 128"),
        "multi_latent_attention": (False, "architecture: standard GQA attention (HF MixtralForCausalLM)"),
    },
}
NEMOTRON_VOCAB = (131072, "Nemotron tokenizer: NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/recipes/"
                  "nemotronh/h100/nemotron_3_nano_4b.py@067f987df0 sets vocab_size=131072; vLLM "
                  "vllm/transformers_utils/configs/nemotron_h.py NemotronHConfig defaults vocab_size to 131072")
for _m in ("nemotronh_4b", "nemotronh_8b", "nemotronh_47b", "nemotronh_56b", "nemotron_3_nano"):
    COMPLETIONS[_m] = {"vocab_size": NEMOTRON_VOCAB}

ALIASES = {
    "llama3_8b": ["llama-3-8b", "llama3-8b"],
    "llama3_70b": ["llama-3-70b", "llama3-70b"],
    "llama31_8b": ["llama-3.1-8b", "llama3.1-8b"],
    "llama31_70b": ["llama-3.1-70b", "llama3.1-70b"],
    "llama31_405b": ["llama-3.1-405b", "llama3.1-405b", "llama3_405b"],
    "llama32_1b": ["llama-3.2-1b", "llama3.2-1b"],
    "llama32_3b": ["llama-3.2-3b", "llama3.2-3b"],
    "mixtral_8x7b": ["mixtral-8x7b"],
    "mixtral_8x22b": ["mixtral-8x22b"],
    "deepseek_v2": ["deepseek-v2", "deepseekv2"],
    "deepseek_v2_lite": ["deepseek-v2-lite"],
    "deepseek_v3": ["deepseek-v3", "deepseekv3", "dsv3"],
    "deepseek_v4_flash": ["deepseek-v4-flash"],
    "moonlight_16b": ["moonlight", "moonlight-16b-a3b"],
    "kimi_k2": ["kimi-k2", "kimi_k2_instruct"],
    "qwen3_8b": ["qwen3-8b"],
    "qwen3_32b": ["qwen3-32b"],
    "qwen3_30b_a3b": ["qwen3-30b-a3b", "qwen3_30b"],
    "qwen3_235b_a22b": ["qwen3-235b-a22b", "qwen3_235b"],
    "glm45": ["glm-4.5", "glm4.5"],
    "glm45_air": ["glm-4.5-air", "glm4.5-air"],
    "olmoe_7b": ["olmoe", "olmoe-1b-7b"],
    "gpt_oss_120b": ["gpt-oss-120b"],
    "gpt_oss_20b": ["gpt-oss-20b"],
    "nemotronh_4b": ["nemotron-h-4b"],
    "nemotronh_8b": ["nemotron-h-8b"],
    "nemotronh_47b": ["nemotron-h-47b"],
    "nemotronh_56b": ["nemotron-h-56b"],
    "nemotron_3_nano": ["nemotron-3-nano", "nemotron3_nano"],
    "nemotron_3_super": ["nemotron-3-super", "nemotron3_super"],
    "nemotron_3_ultra": ["nemotron-3-ultra", "nemotron3_ultra"],
    "nemotron_3_5_lightning": ["nemotron-3.5-lightning"],
}

SYSTEMS = {
    # hardware.json key -> (id, aliases, gpus_per_node, GPU architecture, node note)
    "A100_80GB_SXM": ("a100-80gb", ["dgx-a100", "a100", "a100-sxm"], 8, "ampere", "DGX A100: 8 GPUs per node"),
    "H100_SXM": ("h100-sxm", ["dgx-h100", "h100", "hgx-h100"], 8, "hopper", "DGX H100: 8 GPUs per node"),
    "H200_SXM": ("h200-sxm", ["dgx-h200", "h200", "hgx-h200"], 8, "hopper", "DGX H200: 8 GPUs per node"),
    "B200": ("b200", ["dgx-b200", "hgx-b200"], 8, "blackwell", "DGX B200: 8 GPUs per node"),
    "B300": ("b300", ["dgx-b300", "hgx-b300"], 8, "blackwell", "DGX/HGX B300: 8 GPUs per node"),
    "GB200_NVL72": ("gb200-nvl72", ["dgx-gb200", "gb200"], 4, "blackwell",
                    "GB200 NVL72: 18 compute trays of 4 GPUs; the NVLink domain spans 72 GPUs"),
    "GB300_NVL72": ("gb300-nvl72", ["dgx-gb300", "gb300"], 4, "blackwell",
                    "GB300 NVL72: 18 compute trays of 4 GPUs; the NVLink domain spans 72 GPUs"),
}


def first_k_dense(model):
    freq = model["arch"].get("moe_layer_freq")
    if isinstance(freq, str):
        m = re.search(r"first (\d+) dense", freq)
        return int(m.group(1)) if m else 0
    return model.get("first_k_dense_layers", 0) or 0


def build_model(key, m):
    arch = {f: m["arch"].get(f) for f in ARCH_FIELDS}
    if arch["hybrid_layer_pattern"] is None and m["arch"].get("hybrid_override_pattern"):
        arch["hybrid_layer_pattern"] = m["arch"]["hybrid_override_pattern"]
    sources = {f: m["field_sources"][f] for f in ARCH_FIELDS if f in m.get("field_sources", {})}
    completions = {}
    if arch["num_moe_experts"]:
        arch["moe_layer_freq"] = 1 if arch["moe_layer_freq"] is not None or m["kind"] != "dense" else None
    if arch["multi_latent_attention"] and arch["num_query_groups"] is None and arch["num_attention_heads"]:
        arch["num_query_groups"] = arch["num_attention_heads"]
        completions["num_query_groups"] = MLA_QUERY_GROUPS
    for field, (value, cite) in COMPLETIONS.get(key, {}).items():
        assert arch[field] is None, (key, field)
        arch[field] = value
        completions[field] = cite
    pub = m.get("published_params", {})
    return {
        "id": key,
        "name": m["name"],
        "hf_id": m.get("hf_id"),
        "aliases": ALIASES.get(key, []),
        "kind": m["kind"],
        "published_total_params": pub.get("total"),
        "published_active_params": pub.get("active"),
        "params_source": pub.get("source"),
        "first_k_dense_layers": first_k_dense(m),
        "arch": arch,
        "sources": sources,
        "completions": completions,
        "notes": m.get("notes", []),
        "primary_source": m.get("primary_source"),
    }


def build_system(key, g):
    sid, aliases, per_node, gpu_arch, node_note = SYSTEMS[key]
    return {
        "id": sid,
        "name": g["name"],
        "aliases": aliases + [key.lower()],
        "gpu_arch": gpu_arch,
        "bf16_dense_tflops": g.get("bf16_dense_tflops"),
        "fp8_dense_tflops": g.get("fp8_dense_tflops"),
        "fp4_dense_tflops": g.get("fp4_dense_tflops"),
        "hbm_gb": g.get("hbm_gb"),
        "hbm_bw_tbps": g.get("hbm_bw_tbps"),
        "nvlink_gbps_unidirectional": g.get("nvlink_gbps_unidirectional"),
        "nvlink_domain_size": g.get("nvlink_domain_size"),
        "gpus_per_node": per_node,
        "scaleout_gbps_per_gpu": g.get("scaleout_gbps_per_gpu"),
        "description": g.get("system"),
        "node_note": node_note,
        "sources": g.get("sources", {}),
        "notes": g.get("notes", []) + g.get("conflicts", []),
    }


def main(data_dir, out_path):
    models = json.load(open(f"{data_dir}/models.json"))
    hardware = json.load(open(f"{data_dir}/hardware.json"))
    out = {
        "_meta": {
            "generated_by": "scripts/build_catalog.py",
            "from": "shared/data/models.json and hardware.json (Megatron-Bridge 067f987df0)",
            "null_means": "not verified; the planner lists the model as incomplete and names the field",
        },
        "models": [build_model(k, m) for k, m in models["models"].items()],
        "systems": [build_system(k, g) for k, g in hardware["gpus"].items()],
    }
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=False)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
