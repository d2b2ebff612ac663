#!/bin/bash
# parplan test fixture, written for parplan: the GPT-3 175B launch of
# NVIDIA/Megatron-LM examples/gpt3/train_gpt3_175b_distributed.sh at commit
# d98e8a64ddf34856e74b24714e3bedb2f5a39553, its values in the same shell style.

export CUDA_DEVICE_MAX_CONNECTIONS=1

GPUS_PER_NODE=8
NUM_NODES=1             # the example launches one node (see the warning in the test)
MASTER_ADDR=localhost
MASTER_PORT=29500
NODE_RANK=0
WORLD_SIZE=$(($GPUS_PER_NODE*$NUM_NODES))

CKPT_DIR=$1        # checkpoint directory
TB_DIR=$2          # tensorboard directory
VOCAB=$3           # gpt2-vocab.json
MERGES=$4          # gpt2-merges.txt
DATA=$5            # data prefix

LAUNCH=(
    --nproc_per_node $GPUS_PER_NODE
    --nnodes $NUM_NODES
    --master_addr $MASTER_ADDR
    --master_port $MASTER_PORT
)

MODEL=(
    --num-layers 96
    --hidden-size 12288
    --num-attention-heads 96
    --seq-length 2048
    --max-position-embeddings 2048
    --attention-backend auto   # flash / fused / unfused / local also accepted
)

TRAIN=(
    --micro-batch-size 1
    --global-batch-size 1536
    --step-batch-size-schedule "0:16 2.4B:320 4.8B:624 7.2B:928 9.6B:1232 12B:1536"
    --train-iters 500000
    --weight-decay 0.1
    --adam-beta1 0.9
    --adam-beta2 0.95
    --init-method-std 0.006
    --clip-grad 1.0
    --fp16
    --lr 6.0e-5
    --lr-decay-style cosine
    --min-lr 6.0e-6
    --lr-warmup-fraction .001
    --lr-decay-iters 430000
)

PARALLEL=(
	--tensor-model-parallel-size 8
	--pipeline-model-parallel-size 16
)

DATA_ARGS=(
    --data-path $DATA
    --vocab-file $VOCAB
    --merge-file $MERGES
    --split 949,50,1
)

LOGGING=(
    --log-interval 100
    --save-interval 10000
    --eval-interval 1000
    --save $CKPT_DIR
    --load $CKPT_DIR
    --eval-iters 10
    --tensorboard-dir $TB_DIR
)

torchrun ${LAUNCH[@]} pretrain_gpt.py \
    ${MODEL[@]} \
    ${TRAIN[@]} \
    ${PARALLEL[@]} \
    ${DATA_ARGS[@]} \
    ${LOGGING[@]}
