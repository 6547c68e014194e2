// `vault-search mcp` through the official MCP TypeScript SDK: the client most Node-based agents
// embed. The SDK validates each structuredContent against the tool's outputSchema and turns
// JSON-RPC errors into McpError, so this session checks the server as those agents see it.
//
//     node ts_client.mjs PATH/TO/vault-search VAULT CACHE_DIR TOOLS_JSON
//
// TOOLS_JSON: tests/clients/tools.json, the server's tool names (the clients' one list).
//
// tests/clients/ts_client.py installs the pinned SDK, makes the vault and runs this.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { readFileSync } from "node:fs";

const [binary, vault, cache, toolsJson] = process.argv.slice(2);
const toolNames = JSON.parse(readFileSync(toolsJson, "utf8"));

function check(cond, what) {
  if (!cond) throw new Error(what);
}

const textOf = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("");

async function callIsError(client, name, args, needle) {
  const r = await client.callTool({ name, arguments: args });
  check(r.isError === true, `${name} ${JSON.stringify(args)} is refused: ${textOf(r)}`);
  if (needle) check(textOf(r).includes(needle), `${name} ${JSON.stringify(args)}: ${textOf(r)}`);
  return r;
}

// The JSON-RPC error code a request ends with, or a failure if it succeeds.
async function rpcErrorCode(promise, what) {
  try {
    const r = await promise;
    throw new Error(`${what} succeeded: ${JSON.stringify(r)}`);
  } catch (e) {
    check(e instanceof McpError, `${what}: not a JSON-RPC error: ${e}`);
    return e.code;
  }
}

async function session(client) {
  const server = client.getServerVersion();
  check(server?.name === "vault-search", `server info: ${JSON.stringify(server)}`);
  check(client.getServerCapabilities()?.tools, "the server offers tools");

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  check(
    JSON.stringify(names) === JSON.stringify(toolNames),
    `tools: ${names}, not ${toolNames}`,
  );
  for (const t of tools) {
    const a = t.annotations ?? {};
    check(a.readOnlyHint === true && a.openWorldHint === false, `${t.name} annotations: ${JSON.stringify(a)}`);
    check(t.inputSchema?.type === "object", `${t.name} inputSchema`);
  }
  await client.ping();

  // Normal calls; the SDK checks structuredContent against each outputSchema on the way.
  let r = await client.callTool({ name: "search_notes", arguments: { query: "stale daemon", source: "local" } });
  check(!r.isError, `search: ${textOf(r)}`);
  const s = r.structuredContent;
  check(s.engine === "local" && s.total_results >= 1, `search: ${JSON.stringify(s)}`);
  check(s.results[0].path === "Dev/kotlin.md" && s.results[0].line === 6, `top hit: ${JSON.stringify(s.results[0])}`);
  check(JSON.stringify(s.results[0].tags) === '["build"]', `tags: ${JSON.stringify(s.results[0])}`);
  const p = s.results[0].passages[0];
  check(p.line === 4 && p.end_line === 6 && p.text.endsWith("The gradle daemon kept a stale lock."), `passage: ${JSON.stringify(p)}`);
  check(textOf(r).includes("Dev/kotlin.md:4-6 — Kotlin"), `text: ${textOf(r)}`);
  r = await client.callTool({ name: "search_notes", arguments: { query: "gradle", source: "local", budget: 100 } });
  check(!r.isError && textOf(r).length <= 400, `budget 100: ${textOf(r)}`);
  r = await client.callTool({ name: "read_note", arguments: { path: "Dev/kotlin.md", heading: "Kotlin" } });
  check(!r.isError && textOf(r).includes("section Kotlin (lines 4-6)"), `section: ${textOf(r)}`);

  // Odd but valid: non-ASCII words find the note that has them; an unknown word finds nothing.
  r = await client.callTool({ name: "search_notes", arguments: { query: "crème brûlée", source: "local" } });
  check(!r.isError && r.structuredContent.results[0]?.path === "Café/dessert.md", `unicode: ${textOf(r)}`);
  r = await client.callTool({ name: "search_notes", arguments: { query: "zeppelin", source: "local" } });
  check(!r.isError && r.structuredContent.total_results === 0, `no hits: ${textOf(r)}`);
  r = await client.callTool({ name: "search_notes", arguments: { sort: "modified", source: "local" } });
  check(!r.isError && r.structuredContent.total_results === 4, `listing: ${textOf(r)}`);
  r = await client.callTool({ name: "search_notes", arguments: { query: "gradle", limit: 1, source: "local" } });
  check(!r.isError && r.structuredContent.results.length === 1, `limit 1: ${textOf(r)}`);

  // Bad arguments are tool errors the agent can read and correct.
  await callIsError(client, "search_notes", { query: "gradle", limit: 99 });
  await callIsError(client, "search_notes", { query: "gradle", limit: "ten" }, "limit must be a whole number");
  await callIsError(client, "search_notes", { query: "gradle", folder: "Deev" }, '"Dev"');
  await callIsError(client, "search_notes", { query: 42 }, "expected a string");
  await callIsError(client, "search_notes", { query: "", source: "local" }, "query is empty");
  await callIsError(client, "search_notes", { query: "gradle", source: "nowhere" }, "`local`");
  // A misspelt argument (`limt`) is refused, naming the arguments there are, rather than
  // dropped without a word.
  r = await callIsError(client, "search_notes", { query: "gradle", limt: 1, source: "local" }, "`limt`");
  check(textOf(r).includes("`limit`"), `unknown argument: ${textOf(r)}`);

  r = await client.callTool({ name: "read_note", arguments: { path: "Dev/kotlin.md", line: 6, context: 1 } });
  check(!r.isError && textOf(r).includes("6\tThe gradle daemon kept a stale lock."), `read_note: ${textOf(r)}`);
  r = await client.callTool({ name: "read_note", arguments: { path: "Café/dessert.md" } });
  check(!r.isError && textOf(r).includes("crème brûlée"), `read_note unicode: ${textOf(r)}`);
  // The note's links and backlinks follow its text, unless links is false.
  r = await client.callTool({ name: "read_note", arguments: { path: "Dev/kotlin.md" } });
  check(!r.isError && textOf(r).includes("links in (1): Meta/todo.md"), `read_note links: ${textOf(r)}`);
  r = await client.callTool({ name: "read_note", arguments: { path: "Meta/todo.md", links: false } });
  check(!r.isError && !textOf(r).includes("links out"), `read_note links=false: ${textOf(r)}`);
  r = await client.callTool({ name: "related_notes", arguments: { path: "Dev/kotlin.md", limit: 5 } });
  const rel = r.structuredContent;
  check(!r.isError && rel.note === "Dev/kotlin.md", `related_notes: ${textOf(r)}`);
  check(rel.results[0].path === "Meta/todo.md" && rel.results[0].reasons.includes("links here"), `related: ${JSON.stringify(rel)}`);
  await callIsError(client, "related_notes", { path: "Dev/kotlin.md", limit: 99 }, "limit must be 1-50");
  await callIsError(client, "related_notes", { path: "Dev/nothing.md" }, "no file");
  r = await client.callTool({ name: "read_note", arguments: { paths: ["Dev/rust.md", "Meta/todo.md"] } });
  check(!r.isError && textOf(r).includes("Cargo builds") && textOf(r).includes("fix the gradle"), `paths: ${textOf(r)}`);
  await callIsError(client, "read_note", { path: "../outside.md" }, "..");
  r = await callIsError(client, "read_note", { path: ".obsidian/private.md" });
  check(!textOf(r).includes("private text"), `hidden note leaked: ${textOf(r)}`);
  await callIsError(client, "read_note", { path: "Dev/missing.md" });
  await callIsError(client, "read_note", { path: "Dev/kotlin.md", line: -3 }, "0 or more");
  await callIsError(client, "read_note", { path: "Dev/kotlin.md", line: 999 }, "nothing at line 999");
  await callIsError(client, "read_note", {});

  r = await client.callTool({ name: "vault_overview", arguments: {} });
  check(!r.isError && r.structuredContent.notes === 4, `overview: ${textOf(r)}`);
  const links = r.structuredContent.links;
  check(links.links === 1 && links.broken === 0 && links.orphans === 2, `overview links: ${textOf(r)}`);
  r = await client.callTool({ name: "index_status", arguments: {} });
  const st = r.structuredContent;
  check(!r.isError && st.indexed === true && st.notes === 4 && st.omnisearch_answers === false, `status: ${JSON.stringify(st)}`);

  // Calls the server cannot take at all are JSON-RPC errors, with the code the spec gives.
  let code = await rpcErrorCode(client.callTool({ name: "no_such_tool", arguments: {} }), "an unknown tool");
  check(code === -32602, `unknown tool: code ${code}`);
  code = await rpcErrorCode(client.request({ method: "no/such/method", params: {} }, ResultAny), "an unknown method");
  check(code === -32601, `unknown method: code ${code}`);
  code = await rpcErrorCode(client.listTools({ cursor: "page-2" }), "a tool-list cursor");
  check(code === -32602, `cursor: code ${code}`);
  // The session goes on after the errors.
  r = await client.callTool({ name: "index_status", arguments: {} });
  check(!r.isError, "a call after the errors");
}

// Any result will do for a request whose answer must be an error.
const ResultAny = { parse: (v) => v, safeParse: (v) => ({ success: true, data: v }) };

const transport = new StdioClientTransport({
  command: binary,
  args: ["mcp", "--vault", vault],
  // A port nothing listens on: no real Obsidian answers.
  env: { VAULT_SEARCH_CACHE_DIR: cache, OMNISEARCH_PORT: "9", PATH: process.env.PATH ?? "" },
  stderr: "pipe",
});
let stderr = "";
transport.stderr?.on("data", (d) => (stderr += d));
const client = new Client({ name: "ts_client.mjs", version: "1" });
const timer = setTimeout(() => {
  console.error("mcp TypeScript SDK check FAILED: timed out");
  process.exit(1);
}, 120_000);
try {
  await client.connect(transport);
  await session(client);
} catch (e) {
  console.error(`mcp TypeScript SDK check FAILED: ${e?.stack ?? e}`);
  if (stderr) console.error(`server stderr: ${stderr.slice(-2000)}`);
  process.exit(1);
} finally {
  clearTimeout(timer);
  await client.close().catch(() => {});
}
