# A launch of Megatron Bridge's performance launcher in the form of
# scripts/performance/README.md:58 at 067f987df0 ("setup_experiment.py
# --account ... --partition ... --gpu ... --model_family_name ...
# --model_recipe_name ... -ng ..."), written for parplan's tests. It selects
# the flat recipe llama3_70b_pretrain_64gpu_h100_fp8cs_config
# (perf_recipes/llama/h100/llama3.py:159: TP 4, PP 8, VPP 5, GBS 256) and
# halves the global batch, with a trailing ConfigContainer override.
uv run python scripts/performance/setup_experiment.py \
  --account my_account --partition batch \
  --gpu h100 --model_family_name llama --model_recipe_name llama3_70b \
  -ng 64 -gn 8 -c fp8_cs \
  -gb 128 -ms 50 -sl 4096 \
  ddp.overlap_param_gather=true
