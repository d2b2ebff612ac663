# The combined-parallelism check of Megatron Bridge's
# skills/nemo-mbridge-perf-parallelism-strategies/SKILL.md:279-292 at
# 067f987df0 (a run_recipe.py launch with TP 2, PP 2, SP on 4 GPUs), written
# out for parplan's tests.
CUDA_VISIBLE_DEVICES=0,1,2,3 uv run python -m torch.distributed.run --nproc_per_node=4 \
  scripts/training/run_recipe.py \
  --recipe llama32_1b_pretrain_config \
  model.tensor_model_parallel_size=2 \
  model.pipeline_model_parallel_size=2 \
  model.sequence_parallel=True \
  train.train_iters=3 train.global_batch_size=8 train.micro_batch_size=1 \
  scheduler.lr_warmup_iters=0 \
  validation.eval_iters=0 validation.eval_interval=0 \
  checkpoint.save_interval=0 \
  logger.log_interval=1
