// parplan's web page, the "check a config" fields: every ParallelConfig field
// the CLI takes and the SystemSpec fields, each named in the URL as its CLI
// flag (tp, pp, recompute-modules, hbm-gib, ...), with how to parse and check
// a value and where it goes in the request. Pure data and functions, no DOM:
// app.js builds the inputs from these tables.
//
// window.ParplanFields = {
//   CONFIG_FIELDS, SYSTEM_FIELDS, PLACEMENT_FIELDS: [{key, json, label, kind, min, max, options, group, help}]
//   parseField(field, text) -> {ok: true, value} (value undefined when empty)
//                            | {ok: false, error}  (the error names the value and what is allowed)
//   buildConfig(values) -> ParallelConfig JSON from {key: value}
//   buildSystemSpec(values) -> SystemSpec JSON from {key: value}
//   modelRef(text) -> {ok, ref | error}: a pasted Hugging Face config.json or inline spec as a ModelRef
// }
// kind: "int" (whole number in [min, max]), "number" (decimal in (min, max]
// or [min, max] with minInclusive), "enum" (one of options; "" = default),
// "bool" ("", "true", "false"; URL also 1/0/on/off), "list" (comma-separated
// names from options), "ints" (comma-separated whole numbers in [min, max]),
// "text".
'use strict';

(function () {
  const MAX_DIM = 4096;
  const MAX_LAYERS = 1024;

  const CONFIG_FIELDS = [
    { key: 'tp', json: 'tp', label: 'TP', kind: 'int', min: 1, max: MAX_DIM, group: 'Parallelism', help: 'tensor parallel size [1]' },
    { key: 'pp', json: 'pp', label: 'PP', kind: 'int', min: 1, max: MAX_DIM, group: 'Parallelism', help: 'pipeline parallel size [1]' },
    { key: 'vpp', json: 'vpp', label: 'VPP', kind: 'int', min: 1, max: MAX_DIM, group: 'Parallelism', help: 'virtual pipeline stages per rank [none]' },
    { key: 'cp', json: 'cp', label: 'CP', kind: 'int', min: 1, max: MAX_DIM, group: 'Parallelism', help: 'context parallel size [1]' },
    { key: 'ep', json: 'ep', label: 'EP', kind: 'int', min: 1, max: MAX_DIM, group: 'Parallelism', help: 'expert parallel size [1]' },
    { key: 'etp', json: 'etp', label: 'ETP', kind: 'int', min: 1, max: MAX_DIM, group: 'Parallelism', help: 'expert tensor parallel size [TP]' },
    { key: 'sp', json: 'sp', label: 'Sequence parallel', kind: 'bool', group: 'Parallelism', help: '[on when TP > 1]' },
    { key: 'mbs', json: 'mbs', label: 'MBS', kind: 'int', min: 1, max: 65536, group: 'Batch', help: 'micro batch size [1]' },
    { key: 'gbs', json: 'gbs', label: 'GBS', kind: 'int', min: 1, max: 1073741824, group: 'Batch', help: 'global batch size [about 4M tokens]' },
    { key: 'seq', json: 'seq_length', label: 'Seq. length', kind: 'int', min: 1, max: 16777216, group: 'Batch', help: 'tokens [model default]' },
    { key: 'precision', json: 'precision', label: 'Precision', kind: 'enum', options: ['bf16', 'fp8-cs', 'fp8-mx', 'fp8-sc', 'fp8-ds', 'nvfp4'], group: 'Batch', help: '[bf16]' },
    { key: 'recompute', json: 'recompute_granularity', label: 'Recompute', kind: 'enum', options: ['none', 'selective', 'full'], group: 'Recompute', help: 'granularity [none]' },
    { key: 'recompute-method', json: 'recompute_method', label: 'Method', kind: 'enum', options: ['uniform', 'block'], group: 'Recompute', help: 'under full [uniform]' },
    { key: 'recompute-layers', json: 'recompute_num_layers', label: 'Layers', kind: 'int', min: 1, max: MAX_LAYERS, group: 'Recompute', help: 'N for the method [1]' },
    { key: 'recompute-modules', json: 'recompute_modules', label: 'Modules', kind: 'list', options: ['core_attn', 'mlp', 'moe', 'moe_act', 'shared_experts', 'layernorm', 'mla_up_proj', 'gdn_norm_out', 'gdp_in_proj', 'gdp_qkv', 'mhc'], group: 'Recompute', help: 'under selective, comma-separated [core_attn]' },
    { key: 'dist-opt', json: 'use_distributed_optimizer', label: 'Distributed optimizer', kind: 'bool', group: 'Memory', help: '[on]' },
    { key: 'fsdp', json: 'use_megatron_fsdp', label: 'Megatron FSDP', kind: 'bool', group: 'Memory', help: '[off]' },
    { key: 'grad-dtype', json: 'grad_reduce_in_fp32', label: 'Gradient dtype', kind: 'enum', options: ['fp32', 'bf16'], group: 'Memory', help: '[fp32]' },
    { key: 'optimizer-dtype', json: 'optimizer_state_dtype', label: 'Optimizer dtype', kind: 'enum', options: ['fp32', 'bf16'], group: 'Memory', help: 'Adam moments [fp32]' },
    { key: 'peft', json: 'peft', label: 'PEFT', kind: 'enum', options: ['none', 'lora'], group: 'Memory', help: '[none]' },
    { key: 'cpu-offload-layers', json: 'cpu_offloading_num_layers', label: 'CPU offload layers', kind: 'int', min: 0, max: MAX_LAYERS, group: 'Memory', help: 'per stage [0]' },
    { key: 'offload-modules', json: 'offload_modules', label: 'Offload modules', kind: 'list', options: ['core_attn', 'attn_proj', 'expert_fc1', 'fused_group_mlp', 'moe_act', 'attn_norm', 'mlp_norm', 'qkv_linear', 'gdp_qkv'], group: 'Memory', help: 'comma-separated [none]' },
    { key: 'optimizer-cpu-offload', json: 'optimizer_cpu_offload', label: 'Optimizer CPU offload', kind: 'bool', group: 'Memory', help: 'optimizer state and step on the host [off]' },
    { key: 'optimizer-offload-fraction', json: 'optimizer_offload_fraction', label: 'Offload fraction', kind: 'number', min: 0, max: 1, minInclusive: true, group: 'Memory', help: "with CPU offload [0.0: Megatron-Core's; Megatron-LM's 1.0]" },
    { key: 'fine-grained-offloading-max-inflight-offloads', json: 'fine_grained_offloading_max_inflight_offloads', label: 'Max in-flight offloads', kind: 'int', min: 0, max: 1024, group: 'Memory', help: 'per offload module, 0 = join each; full_iteration graphs need it [unset]' },
    { key: 'first-stage-layers', json: 'num_layers_in_first_pipeline_stage', label: 'First stage layers', kind: 'int', min: 1, max: MAX_LAYERS, group: 'Pipeline', help: 'uneven PP [even]' },
    { key: 'last-stage-layers', json: 'num_layers_in_last_pipeline_stage', label: 'Last stage layers', kind: 'int', min: 1, max: MAX_LAYERS, group: 'Pipeline', help: 'uneven PP [even]' },
    { key: 'pp-layout', json: 'pipeline_layout', label: 'PP layout', kind: 'text', max: 65536, group: 'Pipeline', help: 'Megatron pipeline_model_parallel_layout, e.g. Et*4|(t*4|)*14tmL' },
    { key: 'account-for-embedding-in-pipeline-split', json: 'account_for_embedding_in_pipeline_split', label: 'Embedding counts as a layer', kind: 'bool', group: 'Pipeline', help: '[off]' },
    { key: 'account-for-loss-in-pipeline-split', json: 'account_for_loss_in_pipeline_split', label: 'Loss counts as a layer', kind: 'bool', group: 'Pipeline', help: '[off]' },
    { key: 'mtp-layers', json: 'mtp_num_layers', label: 'MTP layers', kind: 'int', min: 0, max: 64, group: 'Pipeline', help: "[the model's]" },
    { key: 'tp-comm-overlap', json: 'tp_comm_overlap', label: 'TP comm overlap', kind: 'bool', group: 'Overlap', help: '[off]' },
    { key: 'overlap-grad-reduce', json: 'overlap_grad_reduce', label: 'Overlap grad reduce', kind: 'bool', group: 'Overlap', help: '[on when DP > 1]' },
    { key: 'overlap-moe-expert-parallel-comm', json: 'overlap_moe_expert_parallel_comm', label: 'Overlap EP comm', kind: 'bool', group: 'Overlap', help: '[off]' },
    { key: 'cuda-graph-impl', json: 'cuda_graph_impl', label: 'CUDA graphs', kind: 'enum', options: ['none', 'local', 'transformer_engine', 'full_iteration'], group: 'Overlap', help: '[none]' },
    { key: 'cuda-graph-modules', json: 'cuda_graph_modules', label: 'Graph modules', kind: 'list', options: ['attn', 'mlp', 'moe', 'moe_router', 'moe_preprocess', 'mamba', 'full'], group: 'Overlap', help: 'comma-separated [whole layer]' },
    { key: 'moe-token-dispatcher-type', json: 'moe_token_dispatcher_type', label: 'MoE dispatcher', kind: 'enum', options: ['alltoall', 'allgather', 'flex'], group: 'MoE', help: "[alltoall: Bridge's]" },
    { key: 'moe-flex-dispatcher-backend', json: 'moe_flex_dispatcher_backend', label: 'Flex backend', kind: 'enum', options: ['deepep', 'hybridep', 'ncclep'], group: 'MoE', help: 'with flex [deepep]' },
    { key: 'moe-permute-fusion', json: 'moe_permute_fusion', label: 'Permute fusion', kind: 'bool', group: 'MoE', help: "[on: Bridge's]" },
    { key: 'moe-router-force-load-balancing', json: 'moe_router_force_load_balancing', label: 'Force load balancing', kind: 'bool', group: 'MoE', help: 'benchmarks only [off]' },
    { key: 'use-transformer-engine-op-fuser', json: 'use_transformer_engine_op_fuser', label: 'TE op fuser', kind: 'bool', group: 'MoE', help: 'fused grouped expert MLP; needed to offload fused_group_mlp [off]' },
    { key: 'attention-backend', json: 'attention_backend', label: 'Attention backend', kind: 'enum', options: ['auto', 'flash', 'fused', 'unfused', 'local'], group: 'Overlap', help: '[auto]' },
    { key: 'cp-comm-type', json: 'cp_comm_type', label: 'CP comm type', kind: 'enum', options: ['p2p', 'all_gather', 'a2a', 'a2a+p2p'], group: 'Parallelism', help: "sliding window needs a2a or all_gather [p2p: Megatron's]" },
    { key: 'hierarchical-context-parallel-sizes', json: 'hierarchical_context_parallel_sizes', label: 'Hierarchical CP sizes', kind: 'ints', min: 1, max: MAX_DIM, group: 'Parallelism', help: 'a2a+p2p: inner (a2a) size first, product = CP, e.g. 2,2 [none]' },
  ];

  const SYSTEM_FIELDS = [
    { key: 'system-name', json: 'name', label: 'Name', kind: 'text', max: 256, help: 'free text' },
    { key: 'gpu-arch', json: 'gpu_arch', label: 'GPU arch', kind: 'enum', options: ['ampere', 'hopper', 'blackwell'], help: 'required without a base system' },
    { key: 'hbm-gib', json: 'hbm_gib', label: 'HBM GiB', kind: 'number', min: 0, max: 16384, help: 'per GPU, as the driver reports' },
    { key: 'hbm-tbps', json: 'hbm_tbps', label: 'HBM TB/s', kind: 'number', min: 0, max: 1000 },
    { key: 'bf16-tflops', json: 'bf16_tflops', label: 'BF16 TFLOP/s', kind: 'number', min: 0, max: 1e6, help: 'dense peak' },
    { key: 'fp8-tflops', json: 'fp8_tflops', label: 'FP8 TFLOP/s', kind: 'number', min: 0, max: 1e6, minInclusive: true, help: '0 = none' },
    { key: 'fp4-tflops', json: 'fp4_tflops', label: 'FP4 TFLOP/s', kind: 'number', min: 0, max: 1e6, minInclusive: true, help: '0 = none' },
    { key: 'gpus-per-node', json: 'gpus_per_node', label: 'GPUs per node', kind: 'int', min: 1, max: 1024 },
    { key: 'nvlink-domain', json: 'nvlink_domain_size', label: 'NVLink domain', kind: 'int', min: 1, max: MAX_DIM, help: 'GPUs' },
    { key: 'nvlink-gbps', json: 'nvlink_gbps', label: 'NVLink GB/s', kind: 'number', min: 0, max: 1e5, minInclusive: true, help: 'both directions' },
    { key: 'scaleout-gbps', json: 'scaleout_gbps', label: 'Scale-out Gb/s', kind: 'number', min: 0, max: 1e6, help: 'per GPU' },
    { key: 'nics-per-node', json: 'nics_per_node', label: 'NICs per node', kind: 'int', min: 1, max: 64 },
    { key: 'nic-gbps', json: 'nic_gbps', label: 'NIC Gb/s', kind: 'number', min: 0, max: 1e6 },
    { key: 'pcie-gbps', json: 'pcie_gbps', label: 'PCIe GB/s', kind: 'number', min: 0, max: 1e5, help: 'per direction' },
  ];

  // Placement fields besides system and gpus (json: the Placement field).
  const PLACEMENT_FIELDS = [
    { key: 'gpus-per-domain', json: 'gpus_per_nvlink_domain', label: 'GPUs per NVLink domain', kind: 'int', min: 0, max: MAX_DIM,
      help: 'GPUs used of each NVLink domain; ranks fill domain 0, then 1, ... [0 = the even split: e.g. 64 of 72 per GB200 NVL72 rack for 256 or 1,024 GPUs]' },
  ];

  const fmtLimit = (v) => Number(v).toLocaleString('en-US');

  // Parses `text` (a URL value or an input's value) for `field`.
  function parseField(field, text) {
    const t = text === undefined || text === null ? '' : String(text).trim();
    if (t === '') return { ok: true, value: undefined };
    const quoted = "'" + (t.length > 40 ? t.slice(0, 40) + '…' : t) + "'";
    switch (field.kind) {
      case 'int': {
        if (!/^[+-]?\d+$/.test(t)) return { ok: false, error: quoted + ' is not a whole number; allowed ' + fmtLimit(field.min) + '..' + fmtLimit(field.max) };
        const v = Number(t);
        if (v < field.min || v > field.max) return { ok: false, error: t + ' is out of range; allowed ' + fmtLimit(field.min) + '..' + fmtLimit(field.max) };
        return { ok: true, value: v };
      }
      case 'number': {
        const v = Number(t);
        const lowOk = field.minInclusive ? v >= field.min : v > field.min;
        const range = (field.minInclusive ? '[' : '(') + fmtLimit(field.min) + ', ' + fmtLimit(field.max) + ']';
        if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t) || !Number.isFinite(v)) return { ok: false, error: quoted + ' is not a number; allowed ' + range };
        if (!lowOk || v > field.max) return { ok: false, error: t + ' is out of range; allowed ' + range };
        return { ok: true, value: v };
      }
      case 'enum': {
        const v = t.toLowerCase();
        if (!field.options.includes(v)) return { ok: false, error: quoted + ' is not allowed; allowed ' + field.options.join(', ') };
        return { ok: true, value: v };
      }
      case 'bool': {
        const v = t.toLowerCase();
        if (['true', '1', 'on', 'yes'].includes(v)) return { ok: true, value: true };
        if (['false', '0', 'off', 'no'].includes(v)) return { ok: true, value: false };
        return { ok: false, error: quoted + ' is not a boolean; allowed true, false' };
      }
      case 'ints': {
        const items = t.split(',').map((s) => s.trim()).filter((s) => s);
        const range = fmtLimit(field.min) + '..' + fmtLimit(field.max);
        const values = [];
        for (const s of items) {
          if (!/^[+-]?\d+$/.test(s)) return { ok: false, error: "'" + s.slice(0, 40) + "' is not a whole number; allowed comma-separated " + range };
          const v = Number(s);
          if (v < field.min || v > field.max) return { ok: false, error: s + ' is out of range; allowed ' + range };
          values.push(v);
        }
        return { ok: true, value: values.length ? values : undefined };
      }
      case 'list': {
        const items = t.split(',').map((s) => s.trim()).filter((s) => s);
        const bad = items.filter((s) => !field.options.includes(s));
        if (bad.length) return { ok: false, error: "'" + bad.join(', ') + "' not allowed; allowed " + field.options.join(', ') };
        return { ok: true, value: items.length ? items : undefined };
      }
      default: {
        if (field.max && t.length > field.max) return { ok: false, error: 'longer than ' + fmtLimit(field.max) + ' characters' };
        return { ok: true, value: t };
      }
    }
  }

  // A ParallelConfig from {key: parsed value}; undefined values are left out.
  function buildConfig(values) {
    const config = {};
    for (const f of CONFIG_FIELDS) {
      const v = values[f.key];
      if (v === undefined) continue;
      config[f.json] = f.key === 'grad-dtype' ? v === 'fp32' : v;
    }
    return config;
  }

  // A SystemSpec from {key: parsed value}.
  function buildSystemSpec(values) {
    const spec = {};
    for (const f of SYSTEM_FIELDS) {
      if (values[f.key] !== undefined) spec[f.json] = values[f.key];
    }
    return spec;
  }

  // A pasted model: a Hugging Face config.json (it has model_type,
  // architectures or num_hidden_layers) goes as hf_config_json; any other
  // JSON object as the inline Megatron-named spec.
  function modelRef(text) {
    const t = (text || '').trim();
    if (!t) return { ok: false, error: 'paste a Hugging Face config.json or an inline spec (JSON)' };
    let json;
    try {
      json = JSON.parse(t);
    } catch (e) {
      return { ok: false, error: 'not valid JSON: ' + e.message };
    }
    if (!json || typeof json !== 'object' || Array.isArray(json)) return { ok: false, error: 'not a JSON object' };
    if ('model_type' in json || 'architectures' in json || 'num_hidden_layers' in json) {
      return { ok: true, ref: { hf_config_json: t }, kind: 'Hugging Face config.json' };
    }
    return { ok: true, ref: { spec: json }, kind: 'inline spec' };
  }

  window.ParplanFields = { CONFIG_FIELDS, SYSTEM_FIELDS, PLACEMENT_FIELDS, parseField, buildConfig, buildSystemSpec, modelRef };
})();
