/**
 * `sandbox.allowNetwork` end to end (issue 27, ADR 0151): a sandboxed child's bash reaches a test
 * server on 127.0.0.1 through the library's filtering proxy only when user settings allow that
 * host; without the setting, or with another host allowed, it does not. No other address is used.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxPlatform } from "../../src/sandbox/platform.ts";
import { createParent, fauxAssistantMessage, fauxToolCall } from "../runtime/harness.ts";

const REPLY = "hello-from-the-test-server";
let server: Server;
let port = 0;
let hits = 0;
beforeAll(async () => {
	server = createServer((_request, response) => {
		hits++;
		response.end(REPLY);
	});
	await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
	port = (server.address() as { port: number }).port;
});
afterAll(() => server.close());

/** One sandboxed child runs curl against the server; what its bash printed. */
async function fetchFromChild(settings: Record<string, unknown> | undefined, projectFiles: Record<string, string> = {}): Promise<string> {
	const cwd = mkdtempSync(join(process.env.TMPDIR as string, "proj-"));
	for (const [path, text] of Object.entries(projectFiles)) {
		mkdirSync(dirname(join(cwd, path)), { recursive: true });
		writeFileSync(join(cwd, path), text);
	}
	let seen = "";
	const parent = await createParent({
		cwd,
		agentFiles: { "agents/fetcher.md": "---\ndescription: fetches\ntools: bash\n---\nFetch.\n" },
		...(settings ? { subagentSettings: settings } : {}),
		script: (turn) => {
			if (turn.agent === "fetcher") {
				if (turn.step === 0) return fauxAssistantMessage([fauxToolCall("bash", { command: `curl --noproxy "" -sv --max-time 5 http://127.0.0.1:${port}/ 2>&1 | tail -4; echo " curl-exit=$?"` })], { stopReason: "toolUse" });
				seen = turn.messages.filter((m) => m.role === "toolResult").map((m) => JSON.stringify(m.content)).join("\n");
				return fauxAssistantMessage("done");
			}
			return turn.step === 0 ? fauxAssistantMessage([fauxToolCall("subagent", { prompt: "fetch", description: "fetch", subagent_type: "fetcher" })], { stopReason: "toolUse" }) : fauxAssistantMessage("ok");
		},
	});
	try {
		await parent.session.prompt("go");
	} finally {
		parent.dispose();
	}
	return seen;
}

describe.skipIf(!sandboxPlatform().available)("sandbox.allowNetwork", () => {
	it("without it, the child's bash does not reach the server", async () => {
		hits = 0;
		const seen = await fetchFromChild(undefined);
		expect(seen).toContain("curl-exit=");
		expect(seen).not.toContain(REPLY);
		expect(hits).toBe(0);
	}, 60_000);

	it("with another host allowed, the proxy refuses 127.0.0.1", async () => {
		hits = 0;
		const seen = await fetchFromChild({ sandbox: { allowNetwork: ["example.invalid"] } });
		expect(seen).not.toContain(REPLY);
		expect(hits).toBe(0);
	}, 60_000);

	it("with 127.0.0.1 allowed in user settings, it reaches the server through the proxy", async () => {
		hits = 0;
		const seen = await fetchFromChild({ sandbox: { allowNetwork: ["127.0.0.1"] } });
		expect(seen).toContain(REPLY);
		expect(hits).toBe(1);
	}, 60_000);

	it("after a child with network, a child without it still reaches nothing", async () => {
		hits = 0;
		const seen = await fetchFromChild(undefined);
		expect(seen).toContain("curl-exit=");
		expect(seen).not.toContain(REPLY);
		expect(hits).toBe(0);
	}, 60_000);

	it("a project's allowNetwork is not honoured when the project is not trusted", async () => {
		hits = 0;
		const seen = await fetchFromChild(undefined, { ".pi/subagents.json": JSON.stringify({ sandbox: { allowNetwork: ["127.0.0.1"] } }) });
		expect(seen).not.toContain(REPLY);
		expect(hits).toBe(0);
	}, 60_000);
});
