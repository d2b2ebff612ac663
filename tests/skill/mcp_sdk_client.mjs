// A Node.js MCP client (the official @modelcontextprotocol/sdk) talking to
// `parplan mcp`: the snippet the README shows, run as a test. The SDK checks
// each structured result against the tool's outputSchema.
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
if (tools.length !== 11) fail(`expected 11 tools, got ${tools.length}`);
if (answer.structuredContent.min_gpus !== "128") fail(`min_gpus ${answer.structuredContent.min_gpus}`);
const plan = await client.callTool({
  name: "recommend",
  arguments: { model: { id: "llama3_8b" }, placement: { system: "h100-sxm", gpus: 8 }, config: { seq_length: 8192 } },
});
if (plan.isError || plan.structuredContent.plans.length < 1) fail("recommend gave no plan");
const bad = await client.callTool({ name: "validate", arguments: { config: { tp: "eight" } } });
if (!bad.isError || !bad.content[0].text.includes("arguments.config.tp")) fail("bad arguments not reported");
await client.close();
console.log("sdk client: ok");
