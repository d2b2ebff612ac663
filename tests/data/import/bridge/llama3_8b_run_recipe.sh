# A Megatron Bridge launch in the form of scripts/training/run_recipe.py
# (Megatron Bridge 067f987df0, run_recipe.py:15-60 and COMMON_OVERRIDE_FIELDS
# :135): a complete recipe name, convenience flags and trailing KEY=VALUE
# ConfigContainer overrides. Written for parplan's tests; the recipe is
# recipes/llama/h100/llama3.py llama3_8b_pretrain_2gpu_h100_bf16_config (its
# legacy name llama3_8b_pretrain_config, recipes/llama/llama3.py:22), the
# overrides take it to 8 GPUs with TP 2 and selective recompute of
# core_attn and mlp (module names of Megatron-Core's recompute_modules).
torchrun --nproc-per-node=8 scripts/training/run_recipe.py \
  --recipe llama3_8b_pretrain_config \
  -tp 2 -sl 4096 -gb 256 \
  model.sequence_parallel=True \
  model.context_parallel_size=1 \
  model.recompute_granularity=selective \
  "model.recompute_modules=[core_attn, mlp]" \
  logger.log_interval=1 \
  checkpoint.save=/results/llama3_8b/checkpoints \
  --dry-run
