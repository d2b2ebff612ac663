// Kernel rates of one GPU architecture, measured on kernels, never fitted to
// step times: GEMM ceilings by precision, fused attention forward/backward,
// memory-bound kernels' share of HBM bandwidth, fixed per-kernel times.
// Hopper from the H200 tables in tests/data/h200_kernels (bench
// kernel_accuracy_bench checks every row); Ampere and Blackwell from
// published kernel measurements until a table exists for them. Each value
// and its source: core/perf/README.md ("Kernel rates").
#ifndef PARPLAN_CORE_PERF_KERNEL_RATES_H_
#define PARPLAN_CORE_PERF_KERNEL_RATES_H_

namespace parplan {

struct KernelRates {
  // Largest fraction of the dense peak a large GEMM sustains, by operand
  // precision (0 bf16, 1 FP8, 2 FP4), at the clocks a busy GPU holds.
  double gemm_ceiling[3] = {0.7, 0.7, 0.7};
  double gemm_launch_us = 4;  // fixed GPU time of one GEMM kernel (start, prologue, epilogue)
  // Dense bf16 peak of the GPU the rates were measured on. A GPU of the same
  // silicon that markets a higher peak (higher boost clocks in a larger
  // power envelope) sustains about the reference's absolute rate: the
  // shares above (GEMMs at every precision, attention) are scaled by
  // reference / its bf16 peak (MakeDevice).
  double reference_bf16_tflops = 0;
  // cuDNN fused attention (what Transformer Engine runs), head dim 128:
  // fraction of the bf16 peak one SM sustains inside a long causal call.
  double attention_forward = 0.6;
  double attention_backward = 0.5;
  double attention_forward_us = 6;    // fixed time per forward call
  double attention_backward_us = 40;  // per backward call: its 3-4 kernels (dO.O, dQ accumulate and convert)
  // Causal attention hands the last query block the most key blocks; this
  // share of that longest block's time shows beyond the even spread over SMs.
  double attention_tail = 0.25;
  // The head-dimension share of those rates (AttentionHeadShare,
  // kernel_time.h): a 128x128 tile's SM clocks are its MMA (4 x 128^2 x d
  // FLOPs at tensor_flops_per_clock_per_sm dense bf16 FLOPs per clock), its
  // 128^2 exponentials at exp_per_clock_per_sm (the SFU's MUFU.EX2) and
  // attention_other_clocks of the rest (softmax arithmetic, loads,
  // synchronisation; forward, backward), one after the other; head dims
  // above 128 run at the d = 128 rate per FLOP (measured). Whichever GPU
  // of the architecture the rates were measured on sets these; a GPU whose
  // SFU differs (Blackwell Ultra) names its own exponential rate in the
  // catalog (SystemSpec::exp_per_clock_per_sm).
  double tensor_flops_per_clock_per_sm = 4096;
  double exp_per_clock_per_sm = 16;
  double attention_other_clocks[2] = {180, 770};
  // Memory-bound kernels: share of the HBM peak for streaming kernels
  // (copies, adds, activations, casts) and for row reductions (norms).
  double stream_efficiency = 0.85;
  double reduction_efficiency = 0.55;
  double gelu_efficiency = 0.63;  // GeLU (erf) forward: more arithmetic per byte than a copy
  double elementwise_launch_us = 4;
  // Norm backward: dx from x and dy, and the weight-gradient partial sums
  // and their reduction, as a multiple of the forward's time.
  double norm_backward_ratio = 2.3;
  // Fused AdamW (torch.optim.AdamW fused=True, the kernel Megatron's
  // optimizer runs): HBM bytes per parameter it moves at the streaming rate:
  // fp32 param, grad, two moments read, three written (28 B), at its own
  // share of the HBM peak (multi-tensor apply reaches less than a copy).
  double adam_bytes_per_param = 28;
  double adam_efficiency = 0.72;
  // Mamba-2's chunked SSD scan (mamba_ssm Triton kernels): its matmul
  // FLOPs' share of the bf16 peak, its HBM traffic's share of the HBM peak,
  // the backward over the forward, and the host time to launch its Triton
  // kernels forward and backward from Python (the GPU waits when its work is
  // shorter, unless CUDA graphs replay the layer).
  double mamba_scan_efficiency = 0.2;
  double ssd_efficiency = 0.5;
  double ssd_backward_ratio = 3.9;
  double ssd_host_us = 3400;
  double gated_norm_backward_ratio = 6.7;  // Mamba's gated RMSNorm backward / forward
  // Unfused MoE token unpermutation (PyTorch scatter-add of the router-
  // weighted copies back to their tokens: reads the copies and the output,
  // writes the output, 3 x pairs x hidden x 2 B) as a share of the HBM peak,
  // and the routing-map sort the unfused permutation runs once per layer.
  // Transformer Engine's fused permute/unpermute stream at stream_efficiency.
  double scatter_efficiency = 0.16;
  double route_sort_us = 155;
};

// The rates of architecture `arch` (0 Ampere, 1 Hopper, 2 Blackwell; any
// other index gets Blackwell's).
const KernelRates& MeasuredKernelRates(int arch);

}  // namespace parplan

#endif  // PARPLAN_CORE_PERF_KERNEL_RATES_H_
