// The official MCP SDK's Streamable HTTP client (@modelcontextprotocol/sdk,
// pinned in tests/skill/npm) against parplan-server's /mcp: lists the tools
// and calls min_gpus and recommend; with EXPECT=401 it must be refused.
//   node mcp_sdk_http_client.mjs http://127.0.0.1:PORT/mcp [TOKEN] [EXPECT]
//   EXPECT: "ok" (default) or "401"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token = "", expect = "ok"] = process.argv.slice(2);
const fail = (why) => { console.error("FAIL:", why); process.exit(1); };
// --- README snippet begins
const headers = token ? { Authorization: `Bearer ${token}` } : {};
const client = new Client({ name: "example", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
// --- README snippet ends
try {
  await client.connect(transport);
} catch (error) {
  // The SDK's StreamableHTTPError carries the HTTP status as `code`.
  if (expect === "401" && error.code === 401 && String(error).includes("UNAUTHENTICATED")) {
    console.log(`sdk http client: refused without the token (HTTP ${error.code}: ${String(error).slice(0, 90)})`);
    process.exit(0);
  }
  fail(`connect: ${error}`);
}
if (expect === "401") fail("connected without the token");
const { tools } = await client.listTools();
if (tools.length !== 14) fail(`expected 14 tools, got ${tools.length}`);
const answer = await client.callTool({ name: "min_gpus", arguments: { config: { tp: 1, pp: 4, ep: 32 } } });
if (answer.isError || answer.structuredContent.min_gpus !== "128") fail(`min_gpus: ${JSON.stringify(answer).slice(0, 300)}`);
const plan = await client.callTool({
  name: "recommend",
  arguments: { model: { id: "llama3_70b" }, placement: { system: "h100-sxm", gpus: 64 }, top_k: 3 },
});
if (plan.isError || plan.structuredContent.plans.length < 1) fail(`recommend: ${JSON.stringify(plan).slice(0, 300)}`);
console.log(`sdk http client: ${tools.length} tools; min_gpus ${answer.structuredContent.min_gpus}; ` +
            `recommend #1 ${plan.structuredContent.plans[0].label}`);
await transport.terminateSession();
await client.close();
