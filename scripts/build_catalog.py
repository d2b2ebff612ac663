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
    "window_attn_skip_freq", "add_bias_linear", "add_qkv_bias", "softmax_type",
    "position_embedding_type", "normalization", "activation_func",
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

# ---------------------------------------------------------------------------
# Nemotron 3 Super / Ultra, Nemotron 3.5 Lightning, DeepSeek-V4-Flash.
# Megatron Bridge builds all four from the HF config at runtime (AutoBridge),
# so its repository has no literal provider; the strongest sources are the
# Megatron-LM argument bundles / functional tests for the same checkpoints and
# the Megatron Bridge recipes and bridges.  Weak values (third-party copies of
# the HF config, derivations, sister-model assumptions) say so in the citation
# and are listed again in the model's notes.
MLM = "NVIDIA/Megatron-LM:"
MLM_AT = "@d98e8a64dd"
MB = "NVIDIA-NeMo/Megatron-Bridge:"
MB_AT = "@067f987df0"
SUPER_CONF = MLM + "examples/post_training/modelopt/conf/nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16.sh" + MLM_AT
SUPER_TEST = MLM + "tests/functional_tests/test_cases/nemotron/nemotron3_super_release_gb200/model_config.yaml" + MLM_AT
ULTRA_CONF = MLM + "examples/post_training/modelopt/conf/nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16.sh" + MLM_AT
LIGHTNING_TEST = (MLM + "tests/functional_tests/test_cases/nemotron/"
                  "nemotron3_5_lightning_nightly_tp1_pp1_cp1_ep8_dgx_gb200/model_config.yaml" + MLM_AT)
LIGHTNING_TEST_WHAT = " (block '# Nemotron 3 Nano / Nemotron 3.5 Lightning architecture.')"
MCORE_CONFIG = MLM + "megatron/core/transformer/transformer_config.py" + MLM_AT
DSV4_BRIDGE = MB + "src/megatron/bridge/models/deepseek/deepseek_v4_bridge.py" + MB_AT
DSV4_ARCH = ("third-party: yzlnew/infra-skills:hf-architecture-tikz/examples/deepseek-v4-flash/arch.json@26f9dd4dc5 "
             "(dims read from the HF config.json)")
DSV4_MILES = "third-party: radixark/miles:scripts/models/deepseek-v4-flash.py@12cab3e31c (Megatron args for V4-Flash)"
MAMBA_GROUPS_DEFAULT = ("Megatron-Core default: " + MCORE_CONFIG + ":1265 mamba_num_groups = 8, "
                        "which the Megatron-LM bundle leaves unset")
NEMOTRON3_SEQ = "training sequence length of the Megatron-LM bundle and the Megatron Bridge recipes (the model serves up to 1M)"

COMPLETIONS["nemotron_3_super"] = {
    "num_attention_heads": (32, SUPER_CONF + ":48 --num-attention-heads 32; also " + SUPER_TEST),
    "num_query_groups": (2, SUPER_CONF + ":50 --group-query-attention --num-query-groups 2; also " + SUPER_TEST),
    "kv_channels": (128, SUPER_CONF + ":52 --kv-channels 128; also " + SUPER_TEST),
    "ffn_hidden_size": (2688, SUPER_CONF + ":51 --ffn-hidden-size 2688 (no dense MLP layer in the pattern; "
                        "Megatron uses it as moe_ffn_hidden_size, which matches the Bridge unit test's 2688)"),
    "mamba_num_groups": (8, MAMBA_GROUPS_DEFAULT + " (" + SUPER_CONF + "); third-party: "
                         "shifangx/slime:scripts/models/nemotron-3-super-120b-a12b.sh@63a6acaf94 reads "
                         "n_groups=8 from the HF config.json"),
    "vocab_size": (131072, MB + "src/megatron/bridge/recipes/nemotronh/h100/nemotron_3_super.py" + MB_AT + ":59 "
                   "trains Super with the Nemotron-3-Nano tokenizer (131072 tokens, see nemotron_3_nano); "
                   "third-party: shifangx/slime:scripts/models/nemotron-3-super-120b-a12b.sh@63a6acaf94 "
                   "--vocab-size 131072 from the HF config.json"),
    "make_vocab_size_divisible_by": (128, "Megatron-LM default (megatron/training/arguments.py" + MLM_AT + ":2441 "
                                     "--make-vocab-size-divisible-by default=128), not overridden by " + SUPER_CONF),
    "seq_length": (8192, SUPER_CONF + ":59 --seq-length 8192; " + NEMOTRON3_SEQ),
    "share_embeddings_and_output_weights": (False, SUPER_CONF + ":42 --untie-embeddings-and-output-weights"),
    "multi_latent_attention": (False, SUPER_CONF + " uses --group-query-attention (GQA), no --multi-latent-attention"),
}

ULTRA_PATTERN = ("MEMEMEM*EMEMEM*EMEMEMEM*EMEMEMEM*EMEMEM*EMEMEMEM*EMEMEMEM*EMEMEM*EMEMEMEM*"
                 "EMEMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME")
ULTRA_HF_COPY = ("third-party: willccbb/miles:scripts/models/nemotron-3-ultra-550b-a55b.sh@176722dd6c "
                 "(header quotes the HF config.json)")
COMPLETIONS["nemotron_3_ultra"] = {
    "hybrid_layer_pattern": (ULTRA_PATTERN, ULTRA_CONF + ":38 --hybrid-override-pattern (108 symbols: 48 M, 48 E, 12 *)"),
    "num_layers": (108, ULTRA_CONF + ":45 --num-layers 108 (= pattern length)"),
    "hidden_size": (8192, ULTRA_CONF + ":46 --hidden-size 8192"),
    "num_attention_heads": (64, ULTRA_CONF + ":47 --num-attention-heads 64"),
    "num_query_groups": (2, ULTRA_CONF + ":49 --group-query-attention --num-query-groups 2"),
    "kv_channels": (128, ULTRA_CONF + ":51 --kv-channels 128"),
    "ffn_hidden_size": (5120, ULTRA_CONF + ":50 --ffn-hidden-size 5120"),
    "moe_ffn_hidden_size": (5120, "Megatron-Core sets moe_ffn_hidden_size = ffn_hidden_size when unset (" +
                            MCORE_CONFIG + ":1685), and " + ULTRA_CONF + " leaves it unset with "
                            "--ffn-hidden-size 5120; " + ULTRA_HF_COPY + " gives moe_intermediate_size=5120"),
    "num_moe_experts": (512, ULTRA_CONF + ":23 --num-experts 512"),
    "moe_router_topk": (22, ULTRA_CONF + ":24 --moe-router-topk 22"),
    "moe_shared_expert_intermediate_size": (10240, ULTRA_CONF + ":25 --moe-shared-expert-intermediate-size 10240"),
    "moe_latent_size": (2048, ULTRA_CONF + ":20 --moe-latent-size 2048"),
    "moe_layer_freq": (1, "hybrid model: every 'E' symbol of the pattern is an MoE layer (Megatron-Core "
                       "moe_layer_freq default 1, " + MCORE_CONFIG + ")"),
    "mamba_num_heads": (256, ULTRA_CONF + ":36 --mamba-num-heads 256"),
    "mamba_head_dim": (64, ULTRA_CONF + ":37 --mamba-head-dim 64"),
    "mamba_state_dim": (128, "Megatron-Core default mamba_state_dim = 128 (" + MCORE_CONFIG + ":1259), "
                        "not overridden by " + ULTRA_CONF),
    "mamba_num_groups": (8, MAMBA_GROUPS_DEFAULT + " (" + ULTRA_CONF + "); " + ULTRA_HF_COPY + ": mamba n_groups=8"),
    "gated_linear_unit": (False, ULTRA_CONF + ":44 --squared-relu (no --swiglu)"),
    "activation_func": ("squared_relu", ULTRA_CONF + ":44 --squared-relu"),
    "share_embeddings_and_output_weights": (False, ULTRA_CONF + ":40 --untie-embeddings-and-output-weights"),
    "multi_latent_attention": (False, ULTRA_CONF + " uses --group-query-attention (GQA)"),
    "seq_length": (8192, ULTRA_CONF + ":56 --seq-length 8192; " + NEMOTRON3_SEQ),
    "make_vocab_size_divisible_by": (128, "Megatron-LM default (megatron/training/arguments.py" + MLM_AT + ":2441), "
                                     "not overridden by " + ULTRA_CONF),
    "vocab_size": (131072, "WEAK: " + ULTRA_HF_COPY + " --vocab-size 131072; same as the Nemotron 3 Nano/Super "
                   "tokenizer. Ultra ships its own tokenizer (Megatron Bridge recipes/nemotronh/h100/"
                   "nemotron_3_ultra.py" + MB_AT + " tokenizer_model = the Ultra checkpoint) and the official "
                   "config.json was not retrievable here"),
    "mtp_num_layers": (1, "one shared MTP block: " + MB + "src/megatron/bridge/recipes/nemotronh/h100/"
                       "nemotron_3_ultra.py" + MB_AT + " runs mtp_num_layers=2 with mtp_use_repeated_layer=True "
                       "(one set of weights applied twice, as its Super recipe explains: 'HF config has "
                       "num_nextn_predict_layers=1 for the shared block'); " + ULTRA_HF_COPY +
                       ": num_nextn_predict_layers=1"),
}

LIGHTNING_FROM_NANO = (" -- the Lightning recipes build the Nano provider unchanged: " + MB +
                       "src/megatron/bridge/perf_recipes/nemotronh/gb200/nemotronh.py" + MB_AT +
                       ":478 nemotron_3_5_lightning_pretrain_8gpu_gb200_bf16_config starts from "
                       "nemotron_3_nano_pretrain_8gpu_gb200_bf16_config and swaps only hf_model_id, tokenizer "
                       "and MTP (Nano shape: recipes/nemotronh/h100/nemotron_3_nano.py" + MB_AT + ":78-91)")
def _lt(line, arg):
    return LIGHTNING_TEST + ":" + str(line) + " " + arg + LIGHTNING_TEST_WHAT
COMPLETIONS["nemotron_3_5_lightning"] = {
    "hybrid_layer_pattern": ("MEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEM*EMEMEMEM*EMEMEMEME",
                             _lt(48, "--hybrid-layer-pattern MEMEM*...EMEMEMEME/*E/*E (main decoder part; "
                                 "'/*E/*E' are the two MTP depths)") + LIGHTNING_FROM_NANO),
    "num_layers": (52, _lt(49, "--num-layers 52")),
    "hidden_size": (2688, _lt(50, "--hidden-size 2688") + LIGHTNING_FROM_NANO),
    "ffn_hidden_size": (1856, _lt(51, "--ffn-hidden-size 1856")),
    "moe_ffn_hidden_size": (1856, _lt(52, "--moe-ffn-hidden-size 1856")),
    "num_attention_heads": (32, _lt(53, "--num-attention-heads 32")),
    "num_query_groups": (2, _lt(55, "--num-query-groups 2")),
    "kv_channels": (128, _lt(56, "--kv-channels 128")),
    "mamba_num_heads": (64, _lt(57, "--mamba-num-heads 64")),
    "mamba_head_dim": (64, _lt(58, "--mamba-head-dim 64")),
    "mamba_state_dim": (128, _lt(59, "--mamba-state-dim 128")),
    "mamba_num_groups": (8, _lt(60, "--mamba-num-groups 8")),
    "share_embeddings_and_output_weights": (False, _lt(64, "--untie-embeddings-and-output-weights")),
    "gated_linear_unit": (False, _lt(66, "--squared-relu")),
    "activation_func": ("squared_relu", _lt(66, "--squared-relu")),
    "make_vocab_size_divisible_by": (128, _lt(69, "--make-vocab-size-divisible-by 128")),
    "moe_shared_expert_intermediate_size": (3712, _lt(84, "--moe-shared-expert-intermediate-size 3712")),
    "multi_latent_attention": (False, _lt(55, "--group-query-attention") + " (GQA, no MLA)"),
    "seq_length": (8192, LIGHTNING_TEST + " --seq-length 8192; every Lightning perf recipe asserts seq_length "
                   "8192 (" + MB + "tests/unit_tests/recipes/test_nemotron_3_5_lightning_perf_recipes.py" + MB_AT + ")"),
    "vocab_size": (131072, "ASSUMED from the sister model: the Lightning recipes keep the Nano provider, whose "
                   "Nemotron tokenizer has 131072 tokens (see nemotron_3_nano), but tokenize with the "
                   "Lightning checkpoint's own tokenizer, whose size is not stated in any source read here "
                   "(the Megatron-LM functional test uses a GPT-2 vocabulary for mock data)"),
}

COMPLETIONS["deepseek_v4_flash"] = {
    "multi_latent_attention": (True, DSV4_BRIDGE + ":398 provider.multi_latent_attention = True "
                               "(experimental_attention_variant='dsv4_hybrid' on the MLA provider)"),
    "num_attention_heads": (64, "HF num_attention_heads, mapped by " + MB + "src/megatron/bridge/models/conversion/"
                            "model_bridge.py" + MB_AT + ":461; value from " + DSV4_ARCH + " H=64 and " +
                            DSV4_MILES + " --num-attention-heads 64"),
    "q_lora_rank": (1024, DSV4_BRIDGE + ":419 provider.q_lora_rank = hf_config.q_lora_rank  # 1024"),
    "qk_pos_emb_head_dim": (64, DSV4_BRIDGE + ":411 provider.qk_pos_emb_head_dim = hf_config.qk_rope_head_dim  # 64"),
    "v_head_dim": (512, DSV4_BRIDGE + ":410 provider.v_head_dim = hf_config.head_dim  # 512"),
    "qk_head_dim": (448, DSV4_BRIDGE + ":409 '# head_dim = 512 (nope_dim + rope_dim = 448 + 64)' and :418 "
                    "'qk_head_dim ... derived automatically'; Megatron Bridge's dsv4_hybrid FLOPs "
                    "(src/megatron/bridge/training/utils/flop_utils.py" + MB_AT + ":1088) size wq_b as "
                    "q_lora_rank x heads x (qk_head_dim + qk_pos_emb_head_dim) = 1024 x 64 x 512"),
    "kv_lora_rank": (448, "APPROXIMATION (derived): V4 has no KV up-projection; its single shared 512-wide KV "
                     "head (wkv: hidden 4096 -> 512, " + DSV4_ARCH + ") is written as an MLA KV down-projection "
                     "of kv_lora_rank + qk_pos_emb_head_dim = 512, so 448 (the bridge derives kv_lora_rank "
                     "in DSv4HybridConfig, " + DSV4_BRIDGE + ":418; " + DSV4_MILES + " passes 512 with a "
                     "different nope/rope split)"),
    "moe_ffn_hidden_size": (2048, "HF moe_intermediate_size, mapped by " + MB + "src/megatron/bridge/models/"
                            "conversion/model_bridge.py" + MB_AT + ":482; value from " + DSV4_ARCH + " f_moe=2048 "
                            "and " + DSV4_MILES + " --moe-ffn-hidden-size 2048"),
    "moe_shared_expert_intermediate_size": (2048, DSV4_BRIDGE + ":508 moe_intermediate_size * n_shared_experts "
                                            "= 2048 x 1 (values from " + DSV4_ARCH + ")"),
    "gated_linear_unit": (True, DSV4_BRIDGE + ":481 provider.gated_linear_unit = True (SwiGLU, clamped at 10)"),
    "share_embeddings_and_output_weights": (False, DSV4_BRIDGE + ":514 bool(hf_config.tie_word_embeddings); "
                                            "tie_word_embeddings=False per " + DSV4_MILES +
                                            " (--untie-embeddings-and-output-weights) and " + DSV4_ARCH +
                                            " (separate lm_head)"),
    "make_vocab_size_divisible_by": (1280, DSV4_BRIDGE + ":523 provider.make_vocab_size_divisible_by = 1280"),
    "seq_length": (4096, DSV4_BRIDGE + ":524 provider.seq_length = 4096 (also every V4-Flash recipe)"),
}

# Notes that replace the reference data's notes for these models (which said
# the fields were left null); every weak value and approximation is named.
NOTES = {
    "nemotron_3_super": [
        "Architecture built at runtime from the HF config via AutoBridge (Megatron Bridge recipes/nemotronh/"
        "h100/nemotron_3_super.py); the shape here is Megatron-LM's own argument bundle for this checkpoint "
        "(examples/post_training/modelopt/conf/nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16.sh@d98e8a64dd), "
        "which also confirms the pattern, hidden 4096, Mamba 128 heads x 64, 512 experts top-22, latent 1024 "
        "and shared 5376 that the reference data took from third-party summaries.",
        "LatentMoE: experts operate in a 1024-d latent space (hidden 4096 -> latent 1024).",
        "Weaker values: mamba_num_groups=8 is Megatron-Core's default, which the bundle does not override "
        "(third-party copies of the HF config agree: n_groups=8); vocab_size=131072 is the Nano tokenizer "
        "that the Megatron Bridge Super recipe trains with (third-party copies of the HF config agree).",
        "MTP: one shared MTP block in the checkpoint (mtp_num_layers=1 here); the Megatron Bridge recipes run "
        "it twice (mtp_num_layers=2, mtp_use_repeated_layer=True), so a run's config should say "
        "mtp_num_layers=2 for compute while the weights are one block.",
        "Parameter count here: 123.6B total / 13.0B active with the MTP block, 120.7B / 12.8B without it "
        "(published 120B / 12B; the technical report's 120.6B excludes MTP).",
    ],
    "nemotron_3_ultra": [
        "Architecture built at runtime from the HF config via AutoBridge (Megatron Bridge recipes/nemotronh/"
        "h100/nemotron_3_ultra.py); the shape here is Megatron-LM's own argument bundle for this checkpoint "
        "(examples/post_training/modelopt/conf/nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16.sh@d98e8a64dd).",
        "LatentMoE: experts operate in a 2048-d latent space (hidden 8192 -> latent 2048).",
        "Weaker values: mamba_state_dim=128 and mamba_num_groups=8 are Megatron-Core defaults the bundle does "
        "not override; vocab_size=131072 comes only from a third-party copy of the HF config "
        "(willccbb/miles) and equals the Nano/Super tokenizer -- Ultra has its own tokenizer, not verified "
        "here; mtp_num_layers=1 (one shared block, run twice by the Megatron Bridge recipes) rests on the "
        "recipes' mtp_use_repeated_layer and the same third-party copy.",
        "Parameter count here: 560.5B total / 57.0B active with the MTP block, 549.3B / 56.1B without it "
        "(published 550B / 55B). With MTP in BF16 that is 1.12 TB, matching the 'about 1.1 TB' BF16 "
        "checkpoint of NVIDIA-NeMo/Megatron-Bridge:examples/models/nemotron/nemotron_3/ultra/README.md"
        "@067f987df0 -- a check of the whole shape including the assumed vocabulary, though a coarse one.",
    ],
    "nemotron_3_5_lightning": [
        "Perf recipe pins HF revision b3caaabed0263651a17dc1f2d4ce97e794f76c44 (perf_recipes/nemotronh/gb200/"
        "nemotronh.py).",
        "Same architecture as Nemotron 3 Nano plus one MTP block: Megatron-LM's Lightning functional test "
        "(tests/functional_tests/test_cases/nemotron/nemotron3_5_lightning_nightly_tp1_pp1_cp1_ep8_dgx_gb200/"
        "model_config.yaml@d98e8a64dd) spells out the shape under '# Nemotron 3 Nano / Nemotron 3.5 Lightning "
        "architecture.', and every Megatron Bridge Lightning recipe builds the explicit Nano provider and only "
        "swaps the checkpoint id, tokenizer and MTP settings; the NeMo Customizer page also says it shares "
        "Nano's architecture.",
        "ASSUMPTION: vocab_size=131072 (the Nano tokenizer) -- Lightning tokenizes with its own checkpoint's "
        "tokenizer, whose size no source read here states. A third-party size table lists the BF16 "
        "checkpoint at 65.8 GB (~32.9B parameters), which matches this shape with a 131072 vocabulary and one "
        "MTP block (32.9B).",
        "MTP: one shared MTP block ('*E'); the recipes and the Megatron-LM test run it twice "
        "(mtp_num_layers=2, mtp_use_repeated_layer=True).",
        "Parameter count here: 32.9B total / 3.7B active with the MTP block, 31.6B / 3.6B without it "
        "(published 30B / ~3B, like Nano's 31.6B / 3.6B).",
    ],
    "deepseek_v4_flash": [
        "Megatron Bridge builds it from the HF config with trust_remote_code (recipes/deepseek/h100/"
        "deepseek_v4.py) as an MLA model: provider.multi_latent_attention=True with "
        "experimental_attention_variant='dsv4_hybrid' (models/deepseek/deepseek_v4_bridge.py@067f987df0). "
        "This entry uses the same MLA fields, so the tuned recipes' 'mla_up_proj' recompute is valid.",
        "APPROXIMATION -- not representable exactly: V4 attention is per-layer hybrid (2 sliding-window-only "
        "layers, 21 CSA layers with compress ratio 4 and a top-512 lightning indexer, 20 HCA layers with "
        "ratio 128, each plus a 128-token sliding window: csa_window_size=128), with one shared 512-wide KV "
        "head, a grouped low-rank output projection (o_groups=8, o_lora_rank=1024), compressor/indexer "
        "weights, 4-stream hyper-connections (hc_mult=4) and 3 hash-routed MoE layers. Here it is standard "
        "MLA: q_lora_rank 1024, 64 heads, qk 448+64, v 512, kv_lora_rank 448 (the 512-wide KV head as an MLA "
        "down-projection). Consequences: (1) parameters: attention counts 201.6M per layer (a spurious KV "
        "up-projection of 27.5M and a full 64x512->4096 output projection of 134M) against V4's ~107M plus "
        "~14M of compressor/indexer on average, so active parameters come out ~3.5B high; (2) FLOPs: the "
        "planner's MLA path counts full causal attention and the larger projections, ~56% more model FLOPs "
        "per token at seq 4096 than Megatron Bridge's dsv4_hybrid count (141.7 vs 90.95 GFLOP/token in the "
        "calibration rows), so predicted step times are pessimistic; (3) window_size is left null: Megatron "
        "Bridge sets csa_window_size, not Megatron's sliding window_size, and the planner applies "
        "window_size only to non-MLA attention.",
        "Megatron Bridge requires TP=1 for V4 ('MLA tensor parallelism is not supported alongside the DSv4 "
        "hybrid attention path', examples/models/deepseek_v4/README.md@067f987df0:163). The catalog has no "
        "field for that, so the planner's validation and search may accept or propose TP>1 for this model; "
        "pin --tp 1.",
        "Weaker values: num_attention_heads=64 and moe_ffn_hidden_size=2048 are HF-config values read from "
        "third-party copies (yzlnew/infra-skills arch.json, radixark/miles V4-Flash args); kv_lora_rank=448 "
        "is derived (see completions).",
        "Parameter count here: 294.6B total / 17.8B active with the MTP layer, 287.9B / 17.3B without it "
        "(published 284B / 13B; infra-skills' exact count from the HF config: 284.44B, 13.90B active, "
        "6.61B MTP).",
    ],
}
PRIMARY_SOURCE = {
    "nemotron_3_super": SUPER_CONF + " + " + SUPER_TEST + " (the HF config.json itself not retrieved)",
    "nemotron_3_ultra": ULTRA_CONF + " (the HF config.json itself not retrieved)",
    "nemotron_3_5_lightning": LIGHTNING_TEST + " + Megatron Bridge Lightning recipes (Nano provider)" ,
    "deepseek_v4_flash": DSV4_BRIDGE + " (field mapping) + HF config values via third-party copies",
}

# Native context and RoPE scaling (issue 24): seq_length is the model's
# native context, its HF config's max_position_embeddings, which for YaRN and
# llama3-scaled models is already the scaled length; rope_scaling_type /
# rope_scaling_factor / rope_original_context are the config's rope_scaling
# (type, factor, original_max_position_embeddings). Only models whose values
# were confirmed against a copy of the published config are listed; the
# others keep the reference data's seq_length (see the notes of issue 24:
# moonlight_16b, mixtral_8x7b, nemotron_3_*, deepseek_v4_flash unconfirmed).
MB_PIN = "@067f987df0"
DSV3_CONFIG = (MB + "tests/unit_tests/models/deepseek/test_deepseek_bridges.py" + MB_PIN +
               ":57,80-88 (ds_v3_config, the DeepSeek-V3 config.json: max_position_embeddings 163840, "
               "rope_scaling type yarn, factor 40, original_max_position_embeddings 4096); "
               + MLM + "examples/post_training/modelopt/conf/deepseek-ai/DeepSeek-R1.sh" + MLM_AT +
               ":47,53 (same architecture: --max-position-embeddings 163840 --rotary-scaling-factor 40)")
DSV2_CONFIG = ("HF deepseek-ai/DeepSeek-V2 and DeepSeek-V2-Lite config.json: max_position_embeddings 163840, "
               "rope_scaling {type yarn, factor 40, original_max_position_embeddings 4096, mscale 0.707} "
               "(third-party verbatim copies: gpustack's scheduler test fixture mirroring DeepSeek-V2-Chat's "
               "config.json, and a C++ config-parser test 'ParsesDeepSeekV2Lite'); the factor as Megatron "
               "runs it: " + MLM + "examples/post_training/modelopt/conf/deepseek-ai/DeepSeek-V2-Lite.sh" + MLM_AT +
               ":51-53 (--rotary-scaling-factor 40 --mscale 0.707) and "
               "NVIDIA-NeMo/Megatron-Bridge:src/megatron/bridge/models/deepseek/deepseek_provider.py@7af9601c9d:87 "
               "(rotary_scaling_factor 40; MLATransformerConfig's original_max_position_embeddings 4096); "
               "4096 x 40 = 163840")
KIMI_CONFIG = (MLM + "examples/post_training/modelopt/conf/moonshotai/Kimi-K2-Instruct.sh" + MLM_AT +
               ":46,52 (--max-position-embeddings 131072 --rotary-scaling-factor 32) and "
               "NVIDIA-NeMo/Megatron-Bridge:src/megatron/bridge/models/kimi/kimi_provider.py@dc805f5cf9:101 "
               "(rotary_scaling_factor 32, YaRN on MLATransformerConfig's original_max_position_embeddings "
               "4096); 4096 x 32 = 131072, HF moonshotai/Kimi-K2-Instruct config.json rope_scaling type yarn")
LLAMA31_CONFIG = ("NVIDIA-NeMo/Megatron-Bridge:src/megatron/bridge/models/llama/llama_provider.py@7af9601c9d:"
                  "142-145 (Llama31ModelProvider: llama3 RoPE scaling, scale_factor 8.0, old_context_len 8192; "
                  "HF rope_scaling rope_type llama3, factor 8.0, original_max_position_embeddings 8192)")
LLAMA32_CONFIG = (MB + "tests/unit_tests/models/llama/test_llama_bridge.py" + MB_PIN +
                  ":54,62-68 (Llama 3.2 1B config.json: max_position_embeddings 131072, rope_scaling rope_type "
                  "llama3, factor 32.0, original_max_position_embeddings 8192); "
                  "NVIDIA-NeMo/Megatron-Bridge:src/megatron/bridge/models/llama/llama_provider.py@7af9601c9d:"
                  "271,291 (Llama32ModelProvider1B/3B scale_factor 32)")
GPTOSS_CONFIG = ("NVIDIA-NeMo/Megatron-Bridge:src/megatron/bridge/models/gpt_oss/gpt_oss_provider.py@7af9601c9d:"
                 "59-62 (position_embedding_type yarn, yarn_rotary_scaling_factor 32.0, "
                 "yarn_original_max_position_embeddings 4096); " + MLM +
                 "tests/functional_tests/test_cases/moe/gpt_dynamic_inference_tp2_pp2_ep2_gptoss_20b_swa/"
                 "model_config.yaml" + MLM_AT + ":58-59 (--rotary-scaling-factor 32.0 "
                 "--yarn-original-max-position-embeddings 4096); 4096 x 32 = 131072")
# id -> (max_position_embeddings, rope_scaling type, factor, original context, citation)
NATIVE_CONTEXT = {
    "deepseek_v3": (163840, "yarn", 40.0, 4096, DSV3_CONFIG),
    "deepseek_v2": (163840, "yarn", 40.0, 4096, DSV2_CONFIG),
    "deepseek_v2_lite": (163840, "yarn", 40.0, 4096, DSV2_CONFIG),
    "kimi_k2": (131072, "yarn", 32.0, 4096, KIMI_CONFIG),
    "llama31_8b": (131072, "llama3", 8.0, 8192, LLAMA31_CONFIG),
    "llama31_70b": (131072, "llama3", 8.0, 8192, LLAMA31_CONFIG),
    "llama31_405b": (131072, "llama3", 8.0, 8192, LLAMA31_CONFIG),
    "llama32_1b": (131072, "llama3", 32.0, 8192, LLAMA32_CONFIG),
    "llama32_3b": (131072, "llama3", 32.0, 8192, LLAMA32_CONFIG),
    "gpt_oss_120b": (131072, "yarn", 32.0, 4096, GPTOSS_CONFIG),
    "gpt_oss_20b": (131072, "yarn", 32.0, 4096, GPTOSS_CONFIG),
}
# The pretraining length of the models whose native context changed above
# and that no tuned recipe covers, so their default plans keep the length
# they had (DefaultSeqLength caps the native context at 8192 otherwise).
PRETRAIN_SEQ = {
    "deepseek_v2": (4096, MB + "src/megatron/bridge/recipes/deepseek/h100/deepseek_v2.py" + MB_PIN +
                    ":175 (deepseek_v2_pretrain_128gpu_h100_bf16_config: cfg.model.seq_length = 4096)"),
    "deepseek_v2_lite": (4096, MB + "src/megatron/bridge/recipes/deepseek/h100/deepseek_v2.py" + MB_PIN +
                         ":53 (deepseek_v2_lite_pretrain_8gpu_h100_bf16_config: cfg.model.seq_length = 4096)"),
    "kimi_k2": (4096, MB + "src/megatron/bridge/recipes/kimi/h100/kimi_k2.py" + MB_PIN +
                ":134 (kimi_k2_pretrain_512gpu_h100_bf16_config: cfg.dataset.seq_length = 4096)"),
}


def apply_native_context(model):
    """Sets seq_length and the RoPE scaling fields from NATIVE_CONTEXT, and the
    pretraining length from PRETRAIN_SEQ, each with its citation."""
    arch, key = model["arch"], model["id"]
    for f in ("rope_scaling_type", "rope_scaling_factor", "rope_original_context"):
        arch.setdefault(f, None)
    if key in NATIVE_CONTEXT:
        positions, rope_type, factor, original, cite = NATIVE_CONTEXT[key]
        arch["seq_length"] = positions
        arch["rope_scaling_type"], arch["rope_scaling_factor"], arch["rope_original_context"] = (
            rope_type, factor, original)
        model["sources"]["seq_length"] = cite
        for f in ("rope_scaling_type", "rope_scaling_factor", "rope_original_context"):
            model["sources"][f] = cite
    if key in PRETRAIN_SEQ:
        assert model.get("pretrain_seq_length") is None, key
        model["pretrain_seq_length"], model["pretrain_seq_source"] = PRETRAIN_SEQ[key]
    return model


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


def recipe_seq_lengths(data_dir):
    """model_key -> (pretraining sequence length, source) from NVIDIA's tuned
    Megatron Bridge pretraining recipes (the most common seq_length)."""
    import collections
    import csv
    by_model = collections.defaultdict(collections.Counter)
    recipe = {}
    with open(f"{data_dir}/tuned_configs_calibration.csv", newline="") as f:
        for r in csv.DictReader(f):
            if r["task"] != "pretrain" or not r["seq_length"].isdigit():
                continue
            by_model[r["model_key"]][int(r["seq_length"])] += 1
            recipe.setdefault((r["model_key"], int(r["seq_length"])), (r["recipe_function"], r["source_file"]))
    out = {}
    for key, counts in by_model.items():
        seq = max(sorted(counts), key=lambda s: counts[s])
        fn, src = recipe[(key, seq)]
        out[key] = (seq, f"Megatron Bridge pretraining recipe {fn} ({src}): seq_length {seq}, as in "
                         f"{counts[seq]} of {sum(counts.values())} tuned pretraining recipes "
                         f"(shared/data/tuned_configs_calibration.csv)")
    return out


def activation_name(value):
    """Megatron's activation_func as the reference data writes it ("F.silu") -> its name ("silu")."""
    if value is None:
        return None
    return value[2:] if value.startswith("F.") else value


def build_model(key, m, recipe_seq=None):
    arch = {f: m["arch"].get(f) for f in ARCH_FIELDS}
    arch["activation_func"] = activation_name(arch["activation_func"])
    if arch["hybrid_layer_pattern"] is None and m["arch"].get("hybrid_override_pattern"):
        arch["hybrid_layer_pattern"] = m["arch"]["hybrid_override_pattern"]
    sources = {f: m["field_sources"][f] for f in ARCH_FIELDS if f in m.get("field_sources", {})}
    completions = {}
    if arch["num_moe_experts"]:
        arch["moe_layer_freq"] = 1 if arch["moe_layer_freq"] is not None or m["kind"] != "dense" else None
    for field, (value, cite) in COMPLETIONS.get(key, {}).items():
        assert arch[field] is None, (key, field)
        arch[field] = value
        completions[field] = cite
    # After the completions: they may supply multi_latent_attention and the heads.
    if arch["multi_latent_attention"] and arch["num_query_groups"] is None and arch["num_attention_heads"]:
        arch["num_query_groups"] = arch["num_attention_heads"]
        completions["num_query_groups"] = MLA_QUERY_GROUPS
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
        "notes": NOTES.get(key, m.get("notes", [])),
        "primary_source": PRIMARY_SOURCE.get(key, m.get("primary_source")),
        "pretrain_seq_length": (recipe_seq or {}).get(key, (None, None))[0],
        "pretrain_seq_source": (recipe_seq or {}).get(key, (None, None))[1],
    }


# Host PCIe link per GPU of the reference systems (GB/s per direction):
# A100 hosts are PCIe Gen4 x16, Hopper and Blackwell Gen5 x16.
PCIE = {
    "ampere": (32, "PCIe Gen4 x16: 16 GT/s x 16 lanes, 128b/130b = 31.5 GB/s per direction (A100 datasheet: "
                   "'PCIe Gen4: 64GB/s' both directions)"),
    "hopper": (64, "PCIe Gen5 x16: 32 GT/s x 16 lanes = 63 GB/s per direction (H100 datasheet: 'PCIe Gen5: "
                   "128GB/s' both directions)"),
    "blackwell": (64, "PCIe Gen5 x16 host link (DGX B200 user guide; Grace-Blackwell trays use NVLink-C2C to the "
                      "CPU, GPU-to-GPU traffic stays on NVLink)"),
}
# The CPU side of each GPU, for optimizer CPU offload (core/perf/optimizer_offload.h): the link between host
# and GPU per direction, and the host DRAM bandwidth one GPU's share of the CPUs sees. Grace-Blackwell trays
# reach their Grace CPU over NVLink-C2C; every other system here is an x86 host on PCIe.
GRACE_HOST = {
    "host_link_gbps_unidirectional": (450, "NVLink-C2C, Grace to each Blackwell GPU: 900 GB/s bidirectional "
                                           "(GB200 NVL72 datasheet, NVLink-C2C row) -> 450 GB/s per direction"),
    "host_memory_gbps_per_gpu": (256, "Grace CPU LPDDR5X: up to 512 GB/s (Grace datasheet), one Grace per two "
                                      "Blackwell GPUs -> 256 GB/s per GPU"),
}
X86_HOST_MEMORY = {
    "ampere": (51, "DGX A100: 2x AMD EPYC 7742, 8 channels DDR4-3200 each = 2 x 204.8 GB/s, shared by 8 GPUs"),
    "hopper": (77, "DGX H100: 2x Xeon Platinum 8480C, 8 channels DDR5-4800 each = 2 x 307 GB/s, shared by 8 GPUs"),
    "blackwell": (90, "DGX B200: 2x Xeon Platinum 8570, 8 channels DDR5-5600 each = 2 x 358 GB/s, shared by 8 "
                      "GPUs"),
}


def with_host(system):
    """`system` with host_link_gbps_unidirectional and host_memory_gbps_per_gpu (and their sources) after its
    PCIe field: NVLink-C2C and Grace memory on Grace-Blackwell, else the PCIe link and a DGX-class x86 host of
    the GPU's generation (named as typical where the product's own host differs)."""
    sources = dict(system.get("sources") or {})
    if system["id"].startswith("gb"):
        figures = GRACE_HOST
    else:
        mem, mem_source = X86_HOST_MEMORY[system["gpu_arch"]]
        if not system["id"].startswith(("a100-80gb", "a100-40gb", "h100-sxm", "b200", "b300")):
            mem_source += "; taken as typical for this generation's hosts (not this product's own datasheet)"
        figures = {
            "host_link_gbps_unidirectional": (system["pcie_gbps_unidirectional"],
                                              "the GPU's PCIe link to its host (pcie_gbps_unidirectional)"),
            "host_memory_gbps_per_gpu": (mem, mem_source),
        }
    out = {}
    for key, value in system.items():
        out[key] = value
        if key == "pcie_gbps_unidirectional":
            for field, (figure, cite) in figures.items():
                out[field] = figure
                sources[field] = cite
    out["sources"] = sources
    return out


EXTRA_SYSTEMS = "scripts/catalog/extra_systems.json"
# Figures the reference data left null, each with its public source.
SYSTEM_COMPLETIONS = {
    "GB200_NVL72": {
        "scaleout_gbps_per_gpu": (400, "https://docs.nvidia.com/dgx/dgxgb200-user-guide/hardware.html (DGX GB200 "
                                       "compute tray: 'Cluster network | 4x NVIDIA ConnectX-7 single port 400G OSFP "
                                       "NIC' per tray of 4 GPUs) -> 400 Gb/s per GPU"),
    },
}


# Exponentials (MUFU.EX2) per clock per SM where a GPU differs from its
# architecture's (core/perf/kernel_rates.h: 16 on Ampere, Hopper and
# Blackwell); tests/data/blackwell_kernels/published.csv lists the sources.
BLACKWELL_ULTRA_EXP = (32, "NVIDIA Technical Blog 'Making Softmax More Efficient with NVIDIA Blackwell Ultra': "
                           "Blackwell Ultra doubles SFU (MUFU.EX2) throughput over Blackwell's 16 per clock per SM")
EXP_PER_CLOCK = {"B300": BLACKWELL_ULTRA_EXP, "GB300_NVL72": BLACKWELL_ULTRA_EXP}


EXTRA_MODELS = "scripts/catalog/extra_models.json"


def build_extra_model(m):
    """A model of scripts/catalog/extra_models.json, each field cited there."""
    out = dict(m)
    out["arch"] = {f: m["arch"].get(f) for f in ARCH_FIELDS}
    out["first_k_dense_layers"] = 0
    return out


def build_extra_system(s):
    out = {k: s.get(k) for k in (
        "id", "name", "aliases", "gpu_arch", "bf16_dense_tflops", "fp8_dense_tflops", "fp4_dense_tflops", "hbm_gb",
        "hbm_bw_tbps", "nvlink_gbps_unidirectional", "nvlink_domain_size", "gpus_per_node",
        "pcie_gbps_unidirectional", "scaleout_gbps_per_gpu", "description", "sources", "notes")}
    out["node_note"] = None
    return out


def build_system(key, g):
    sid, aliases, per_node, gpu_arch, node_note = SYSTEMS[key]
    pcie, pcie_source = PCIE[gpu_arch]
    sources = dict(g.get("sources", {}))
    sources["pcie_gbps_unidirectional"] = pcie_source
    g = dict(g)
    for field, (value, cite) in SYSTEM_COMPLETIONS.get(key, {}).items():
        assert g.get(field) is None, (key, field)
        g[field] = value
        sources[field] = cite
    out = {
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
        "pcie_gbps_unidirectional": pcie,
        "description": g.get("system"),
        "node_note": node_note,
        "sources": sources,
        "notes": g.get("notes", []) + g.get("conflicts", []),
    }
    if key in EXP_PER_CLOCK:
        value, cite = EXP_PER_CLOCK[key]
        out["exp_per_clock_per_sm"] = value
        out["sources"]["exp_per_clock_per_sm"] = cite
    return out


def main(data_dir, out_path):
    models = json.load(open(f"{data_dir}/models.json"))
    hardware = json.load(open(f"{data_dir}/hardware.json"))
    recipe_seq = recipe_seq_lengths(data_dir)
    out = {
        "_meta": {
            "generated_by": "scripts/build_catalog.py",
            "from": "shared/data/models.json and hardware.json (Megatron-Bridge 067f987df0); models and systems "
                    "beyond them from scripts/catalog/extra_models.json and extra_systems.json (each figure cited "
                    "there)",
            "null_means": "not verified; the planner lists the model as incomplete and names the field",
        },
        "models": [apply_native_context(build_model(k, m, recipe_seq)) for k, m in models["models"].items()] +
                  [apply_native_context(build_extra_model(m)) for m in json.load(open(EXTRA_MODELS))["models"]],
        "systems": [with_host(build_system(k, g)) for k, g in hardware["gpus"].items()] +
                   [with_host(build_extra_system(s)) for s in json.load(open(EXTRA_SYSTEMS))["systems"]],
    }
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1, sort_keys=False)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
