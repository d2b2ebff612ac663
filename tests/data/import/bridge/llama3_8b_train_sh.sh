# A Slurm launch through Megatron Bridge's scripts/training/train.sh (which
# runs scripts/training/setup_experiment.py; its own options :64-140 at
# 067f987df0, the rest forwarded to run_recipe.py), as
# scripts/performance/README.md:5 recommends for exported recipes. Written
# for parplan's tests: the Llama 3 8B recipe on 2 nodes of 8 GPUs with
# TP 2 and a larger global batch.
scripts/training/train.sh --nodes 2 --gpus-per-node 8 \
  --account my_account --partition batch --time 01:00:00 \
  --recipe llama3_8b_pretrain_config \
  -tp 2 -gb 1024 \
  model.sequence_parallel=true
