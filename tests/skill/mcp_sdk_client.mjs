// A Node.js MCP client (the official @modelcontextprotocol/sdk) talking to
// `parplan mcp`: the snippet the README shows, run as a test. The SDK
// validates tools/list against the MCP schema; then every tool is called
// with the arguments its schema requires and must answer without an error.
//   node mcp_sdk_client.mjs PATH/parplan   (from a folder whose node_modules has the SDK)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const parplan = process.argv[2] ?? "parplan";
// --- README snippet begins
const client = new Client({ name: "example", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: parplan, args: ["mcp"] }));
const { tools } = await client.listTools();
const answer = await client.callTool({
  name: "min_gpus",
  arguments: { config: { tp: 1, pp: 4, ep: 32, cp: 1 } },
});
console.log(answer.structuredContent.min_gpus, answer.structuredContent.reasons[0]);
// --- README snippet ends

const fail = (why) => { console.error("FAIL:", why); process.exit(1); };
if (tools.length !== 14) fail(`expected 14 tools, got ${tools.length}`);
if (answer.structuredContent.min_gpus !== "128") fail(`min_gpus ${answer.structuredContent.min_gpus}`);
const plan = await client.callTool({
  name: "recommend",
  arguments: { model: { id: "llama3_8b" }, placement: { system: "h100-sxm", gpus: 8 }, config: { seq_length: 8192 } },
});
if (plan.isError || plan.structuredContent.plans.length < 1) fail("recommend gave no plan");
// Every tool, with what its schema marks required (and one more argument).
const model = { id: "llama3_8b" };
const placement = { system: "h100-sxm", gpus: 8 };
const calls = {
  list_models: { filter: "llama" },
  get_model: { model },
  list_systems: {},
  get_system: { system: "h100-sxm" },
  min_gpus: { config: { tp: 2, pp: 2 } },
  validate: { model, placement, config: { tp: 2 } },
  explain_layout: { placement, config: { tp: 2 } },
  render_config: { model, placement, config: { tp: 2 } },
  estimate_memory: { model, placement, config: { tp: 2 } },
  estimate_performance: { model, placement, config: { tp: 2 } },
  recommend: { model, placement, top_k: 2 },
  import_config: { text: "recipe:llama3_8b_pretrain_config", placement },
  compare_run: { log: " iteration 1/ 10 | elapsed time per iteration (ms): 900.0 |\n iteration 2/ 10 | elapsed time per iteration (ms): 500.0 |\n", placement },
  calibrate: {
    runs: [{
      log: [1, 2, 3, 4, 5, 6].map((i) => ` iteration ${i}/ 100 | elapsed time per iteration (ms): ${i === 1 ? 90000 : 50000}.0 | global batch size: 512 |`).join("\n"),
      config_text: "recipe:llama3_8b_pretrain_config",
      placement,
    }],
  },
};
const listed = JSON.stringify({ tools }).length;
// 40,000: the output schemas and the inline model/system fields (issue 25).
if (listed > 40000) fail(`tools/list is ${listed} bytes`);
for (const tool of tools) {
  const args = calls[tool.name];
  if (args === undefined) fail(`no test call for ${tool.name}`);
  for (const field of tool.inputSchema.required ?? []) {
    if (!(field in args)) fail(`${tool.name}: the test call lacks required ${field}`);
  }
  const result = await client.callTool({ name: tool.name, arguments: args });
  if (result.isError || result.structuredContent === undefined) fail(`${tool.name}: ${JSON.stringify(result).slice(0, 300)}`);
}
console.log(`sdk client: ${tools.length} tools called, tools/list ${listed} bytes`);
const bad = await client.callTool({ name: "validate", arguments: { config: { tp: "eight" } } });
if (!bad.isError || !bad.content[0].text.includes('"field":"config.tp"')) fail("bad arguments not reported");
await client.close();
console.log("sdk client: ok");
