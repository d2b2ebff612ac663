// The given (not resolved) config back to its proto: what ImportConfig
// returns for the caller to send to any other method.
#include "server/api/convert.h"

namespace parplan {

void FromParallelConfig(const ParallelConfig& c, v1::ParallelConfig* out) {
  out->Clear();
  out->set_tp(static_cast<int32_t>(c.tp));
  out->set_pp(static_cast<int32_t>(c.pp));
  out->set_vpp(static_cast<int32_t>(c.vpp));
  out->set_cp(static_cast<int32_t>(c.cp));
  out->set_ep(static_cast<int32_t>(c.ep));
  if (c.etp.has_value()) out->set_etp(static_cast<int32_t>(*c.etp));
  if (c.sp.has_value()) out->set_sp(*c.sp);
  out->set_mbs(static_cast<int32_t>(c.mbs));
  out->set_gbs(c.gbs);
  out->set_seq_length(static_cast<int32_t>(c.seq_length));
  out->set_num_layers_in_first_pipeline_stage(static_cast<int32_t>(c.first_stage_layers));
  out->set_num_layers_in_last_pipeline_stage(static_cast<int32_t>(c.last_stage_layers));
  out->set_account_for_embedding_in_pipeline_split(c.account_for_embedding);
  out->set_account_for_loss_in_pipeline_split(c.account_for_loss);
  out->set_pipeline_layout(c.pipeline_layout);
  out->set_precision(c.precision);
  if (c.mtp_num_layers.has_value()) out->set_mtp_num_layers(static_cast<int32_t>(*c.mtp_num_layers));
  out->set_recompute_granularity(c.recompute_granularity);
  for (const auto& m : c.recompute_modules) out->add_recompute_modules(m);
  out->set_recompute_method(c.recompute_method);
  out->set_recompute_num_layers(static_cast<int32_t>(c.recompute_num_layers));
  if (c.use_distributed_optimizer.has_value()) out->set_use_distributed_optimizer(*c.use_distributed_optimizer);
  out->set_use_megatron_fsdp(c.use_megatron_fsdp);
  if (c.grad_reduce_in_fp32.has_value()) out->set_grad_reduce_in_fp32(*c.grad_reduce_in_fp32);
  out->set_optimizer_state_dtype(c.optimizer_state_dtype);
  out->set_peft(c.peft);
  out->set_cpu_offloading_num_layers(static_cast<int32_t>(c.cpu_offloading_num_layers));
  for (const auto& m : c.offload_modules) out->add_offload_modules(m);
  if (c.tp_comm_overlap.has_value()) out->set_tp_comm_overlap(*c.tp_comm_overlap);
  if (c.overlap_grad_reduce.has_value()) out->set_overlap_grad_reduce(*c.overlap_grad_reduce);
  if (c.overlap_moe_expert_parallel_comm.has_value()) {
    out->set_overlap_moe_expert_parallel_comm(*c.overlap_moe_expert_parallel_comm);
  }
  out->set_cuda_graph_impl(c.cuda_graph_impl);
  for (const auto& m : c.cuda_graph_modules) out->add_cuda_graph_modules(m);
  out->set_attention_backend(c.attention_backend);
  out->set_moe_token_dispatcher_type(c.moe_token_dispatcher_type);
  out->set_moe_flex_dispatcher_backend(c.moe_flex_dispatcher_backend);
  if (c.moe_permute_fusion.has_value()) out->set_moe_permute_fusion(*c.moe_permute_fusion);
  if (c.apply_rope_fusion.has_value()) out->set_apply_rope_fusion(*c.apply_rope_fusion);
  if (c.moe_router_force_load_balancing.has_value()) {
    out->set_moe_router_force_load_balancing(*c.moe_router_force_load_balancing);
  }
  if (c.use_transformer_engine_op_fuser.has_value()) {
    out->set_use_transformer_engine_op_fuser(*c.use_transformer_engine_op_fuser);
  }
  if (c.fine_grained_offloading_max_inflight_offloads.has_value()) {
    out->set_fine_grained_offloading_max_inflight_offloads(
        static_cast<int32_t>(*c.fine_grained_offloading_max_inflight_offloads));
  }
  out->set_cp_comm_type(c.cp_comm_type);
  for (int64_t s : c.hierarchical_context_parallel_sizes) out->add_hierarchical_context_parallel_sizes(s);
  if (c.optimizer_cpu_offload.has_value()) out->set_optimizer_cpu_offload(*c.optimizer_cpu_offload);
  if (c.optimizer_offload_fraction.has_value()) out->set_optimizer_offload_fraction(*c.optimizer_offload_fraction);
  if (c.fp8_param_gather.has_value()) out->set_fp8_param_gather(*c.fp8_param_gather);
  if (c.expandable_segments.has_value()) out->set_expandable_segments(*c.expandable_segments);
  out->set_bridge_version(c.bridge_version);
  out->set_front_end(c.front_end);
}

void OverlayParallelConfig(const v1::ParallelConfig& top, v1::ParallelConfig* base) {
  const auto* descriptor = top.GetDescriptor();
  const auto* reflection = top.GetReflection();
  for (int i = 0; i < descriptor->field_count(); ++i) {
    const auto* field = descriptor->field(i);
    if (field->is_repeated() && reflection->FieldSize(top, field) > 0) {
      base->GetReflection()->ClearField(base, field);
    }
  }
  base->MergeFrom(top);
}

}  // namespace parplan
